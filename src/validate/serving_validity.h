// Whether a serving point measured what it claims, before anything scores it. A point is refused
// (INCONCLUSIVE, with its reason) when its numbers describe something other than the serving
// capacity of the deployment:
//   requests_lost     fewer requests completed than were asked
//   requests_failed   the tool counted failed, errored or cancelled requests, or says the run
//                     was cancelled
//   outputs_short     the outputs stopped short of the asked length (more than 3% on average), or
//                     the tool counted outputs whose length differs from the asked one
//                     (AIPerf's osl_mismatch_count): EOS was not ignored, so the decode phase
//                     measured was shorter than the phase claims
//   outputs_long      the outputs average more than 10% over the asked length: the tool counted
//                     something else than the asked output (a miscounted stream)
//   rate_limited      a fixed request rate that the run merely kept up with: request throughput
//                     within 5% of the offered rate, or the run ended within two request latencies
//                     of its last arrival (num_prompts / rate): the figure is the offered load, not
//                     the capacity
//   inconsistent      request throughput above the offered rate: the figures do not describe one
//                     run at that rate
//   not_streamed      every inter-token gap 0 with TTFT the whole request latency: the output came
//                     in one piece, so TPOT and ITL were not measured
//   overloaded        TTFT past the phase's limit, or (without one) a median TTFT over 10 s or
//                     over half the request latency (and over 2 s): queueing, the throughput a
//                     saturation artefact; never at concurrency 1, where nothing queues
//   too_few_requests  fewer than 8x the concurrency (and fewer than 10) measured requests
//   warmup_in_window  the tool's own record says warm-up requests were counted
//   loadgen_invalid   MLPerf LoadGen judged its own run INVALID
// Comparisons that need the reference (a GPU denominator other than the reference's, an offline
// TTFT against a serving one) are refused where the point meets its reference (the phase rule).
#ifndef YARDSTICK_VALIDATE_SERVING_VALIDITY_H_
#define YARDSTICK_VALIDATE_SERVING_VALIDITY_H_

#include <optional>
#include <string>
#include <vector>

#include "validate/inference_result.h"

namespace ys::validate {

enum class ServingFlaw {
  kRequestsLost,
  kRequestsFailed,
  kOutputsShort,
  kOutputsLong,
  kRateLimited,
  kInconsistent,
  kNotStreamed,
  kOverloaded,
  kTooFewRequests,
  kWarmupInWindow,
  kLoadgenInvalid,
};
// "requests_lost", "requests_failed", "outputs_short", "outputs_long", "rate_limited",
// "inconsistent", "not_streamed", "overloaded", "too_few_requests", "warmup_in_window",
// "loadgen_invalid".
const char* ServingFlawName(ServingFlaw f);

struct ServingFlawFound {
  ServingFlaw flaw;
  std::string detail;  // "353 of 500 requests completed"
};

// What a phase allows, when the suite says; defaults otherwise.
struct ServingLimits {
  std::optional<double> ttft_limit_ms;  // a TTFT statistic above this is overload
  std::string ttft_stat = "p50";        // the statistic the limit applies to
  double requests_per_concurrency = 8;
  int min_requests = 10;
  double osl_short_fraction = 0.03;
  double rate_limited_fraction = 0.05;
};

std::vector<ServingFlawFound> FindServingFlaws(const ServingPoint& p,
                                               const ServingLimits& limits = {});

// "requests_lost: 353 of 500 requests completed; overloaded: ..." (empty when valid).
std::string DescribeFlaws(const std::vector<ServingFlawFound>& flaws);

}  // namespace ys::validate

#endif  // YARDSTICK_VALIDATE_SERVING_VALIDITY_H_
