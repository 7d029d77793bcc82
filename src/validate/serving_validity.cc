#include "validate/serving_validity.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

namespace ys::validate {
namespace {

void RequestFlaws(const ServingPoint& p, std::vector<ServingFlawFound>& out) {
  if (p.completed && p.num_prompts && *p.completed < *p.num_prompts) {
    out.push_back({ServingFlaw::kRequestsLost,
                   fmt::format("{} of {} requests completed", *p.completed, *p.num_prompts)});
  }
  if (p.failed && *p.failed > 0) {
    out.push_back({ServingFlaw::kRequestsFailed, fmt::format("{} request(s) failed", *p.failed)});
  } else if (p.cancelled) {
    out.push_back({ServingFlaw::kRequestsFailed, "the tool says the run was cancelled"});
  }
}

void LengthFlaws(const ServingPoint& p, const ServingLimits& l,
                 std::vector<ServingFlawFound>& out) {
  if (p.osl_mismatch && *p.osl_mismatch > 0) {
    std::string of = p.completed ? fmt::format(" of {}", *p.completed) : std::string();
    out.push_back({ServingFlaw::kOutputsShort,
                   fmt::format("{}{} outputs differ from the asked length{}", *p.osl_mismatch, of,
                               p.ignore_eos == false ? " (ignore_eos was false)" : "")});
    return;
  }
  std::optional<double> got = StatOf(p.osl_tokens, "mean");
  if (!got || !p.osl_asked || *p.osl_asked <= 0) return;
  if (*got > *p.osl_asked * 1.1) {
    out.push_back({ServingFlaw::kOutputsLong,
                   fmt::format("outputs average {:.1f} tokens of the {:.0f} asked ({:.1f}x): the "
                               "tool counted another output than the one asked",
                               *got, *p.osl_asked, *got / *p.osl_asked)});
  } else if (*got < *p.osl_asked * (1 - l.osl_short_fraction)) {
    out.push_back(
        {ServingFlaw::kOutputsShort,
         fmt::format("outputs average {:.1f} tokens of the {:.0f} asked ({:.1f}% short){}", *got,
                     *p.osl_asked, 100 * (1 - *got / *p.osl_asked),
                     p.ignore_eos == false ? "; ignore_eos was false" : "")});
  }
}

void RateFlaw(const ServingPoint& p, const ServingLimits& l, std::vector<ServingFlawFound>& out) {
  if (p.request_rate.empty() || !p.request_throughput) return;
  char* end = nullptr;
  double rate = std::strtod(p.request_rate.c_str(), &end);
  if (end == p.request_rate.c_str() || *end != '\0' || !std::isfinite(rate) || rate <= 0) return;
  if (*p.request_throughput > rate * (1 + l.rate_limited_fraction)) {
    out.push_back({ServingFlaw::kInconsistent,
                   fmt::format("request throughput {:.3g} req/s is above the offered rate {}: the "
                               "figures do not describe one run at that rate",
                               *p.request_throughput, p.request_rate)});
    return;
  }
  if (*p.request_throughput >= rate * (1 - l.rate_limited_fraction)) {
    out.push_back({ServingFlaw::kRateLimited,
                   fmt::format("request throughput {:.3g} req/s is the offered rate {}: the run "
                               "kept up with its load and did not measure capacity",
                               *p.request_throughput, p.request_rate)});
    return;
  }
  // A run that ends within two request latencies of its last arrival had no backlog to drain.
  std::optional<double> e2el = StatOf(p.e2el_ms, "p50");
  if (!e2el) e2el = StatOf(p.e2el_ms, "mean");
  if (!p.num_prompts || !p.duration_s || !e2el) return;
  const double arrivals_s = static_cast<double>(*p.num_prompts) / rate;
  if (*p.duration_s <= arrivals_s + 2 * *e2el / 1000) {
    out.push_back({ServingFlaw::kRateLimited,
                   fmt::format("the run took {:.1f} s for {} requests offered over {:.1f} s at {} "
                               "req/s, plus two request latencies at most: it kept up with its "
                               "load and did not measure capacity",
                               *p.duration_s, *p.num_prompts, arrivals_s, p.request_rate)});
  }
}

// Every inter-token gap 0 and the first token arriving with the last: the output was not
// streamed, so no TPOT or ITL was measured.
void StreamFlaw(const ServingPoint& p, std::vector<ServingFlawFound>& out) {
  std::optional<double> itl = StatOf(p.itl_ms, "mean");
  if (!itl) itl = StatOf(p.tpot_ms, "mean");
  std::optional<double> ttft = StatOf(p.ttft_ms, "mean"), e2el = StatOf(p.e2el_ms, "mean");
  if (!itl || *itl != 0 || !ttft || !e2el || *e2el <= 0) return;
  if (*ttft >= 0.95 * *e2el) {
    out.push_back({ServingFlaw::kNotStreamed,
                   fmt::format("inter-token gaps 0 ms and TTFT {:.0f} ms of a {:.0f} ms request: "
                               "the output came in one piece, TPOT and ITL were not measured",
                               *ttft, *e2el)});
  }
}

void OverloadFlaw(const ServingPoint& p, const ServingLimits& l,
                  std::vector<ServingFlawFound>& out) {
  if (p.mode == ServingMode::kOffline) return;  // every request queued at once: TTFT is queueing
  // One request at a time: nothing queues; a long first token is the model's (hidden reasoning).
  if (p.mode == ServingMode::kLatency || p.max_concurrency == 1) return;
  if (l.ttft_limit_ms) {
    if (auto ttft = StatOf(p.ttft_ms, l.ttft_stat); ttft && *ttft > *l.ttft_limit_ms) {
      out.push_back({ServingFlaw::kOverloaded,
                     fmt::format("{} TTFT {:.0f} ms is past the phase's limit of {:.0f} ms",
                                 l.ttft_stat, *ttft, *l.ttft_limit_ms)});
    }
    return;
  }
  std::optional<double> ttft = StatOf(p.ttft_ms, "p50");
  std::string stat = "median";
  if (!ttft) ttft = StatOf(p.ttft_ms, "mean"), stat = "mean";
  if (!ttft) return;
  std::optional<double> e2el = StatOf(p.e2el_ms, stat == "median" ? "p50" : "mean");
  if (*ttft > 10000) {
    out.push_back({ServingFlaw::kOverloaded,
                   fmt::format("{} TTFT {:.1f} s: requests queued for their first token", stat,
                               *ttft / 1000)});
  } else if (e2el && *ttft > 2000 && *ttft > 0.5 * *e2el) {
    out.push_back({ServingFlaw::kOverloaded,
                   fmt::format("{} TTFT {:.1f} s is {:.0f}% of the request latency: queueing", stat,
                               *ttft / 1000, 100 * *ttft / *e2el)});
  }
}

void CountFlaw(const ServingPoint& p, const ServingLimits& l, std::vector<ServingFlawFound>& out) {
  if (!p.completed) return;
  double need = l.min_requests;
  std::string why = fmt::format("at least {}", l.min_requests);
  if (p.mode != ServingMode::kOffline && p.max_concurrency &&
      *p.max_concurrency * l.requests_per_concurrency > need) {
    need = *p.max_concurrency * l.requests_per_concurrency;
    why =
        fmt::format("{:g}x the concurrency of {}", l.requests_per_concurrency, *p.max_concurrency);
  }
  if (static_cast<double>(*p.completed) < need) {
    out.push_back({ServingFlaw::kTooFewRequests,
                   fmt::format("{} requests measured; a steady state needs {} ({:.0f})",
                               *p.completed, why, need)});
  }
}

}  // namespace

const char* ServingFlawName(ServingFlaw f) {
  switch (f) {
    case ServingFlaw::kRequestsLost:
      return "requests_lost";
    case ServingFlaw::kRequestsFailed:
      return "requests_failed";
    case ServingFlaw::kOutputsShort:
      return "outputs_short";
    case ServingFlaw::kOutputsLong:
      return "outputs_long";
    case ServingFlaw::kRateLimited:
      return "rate_limited";
    case ServingFlaw::kInconsistent:
      return "inconsistent";
    case ServingFlaw::kNotStreamed:
      return "not_streamed";
    case ServingFlaw::kOverloaded:
      return "overloaded";
    case ServingFlaw::kTooFewRequests:
      return "too_few_requests";
    case ServingFlaw::kWarmupInWindow:
      return "warmup_in_window";
    case ServingFlaw::kLoadgenInvalid:
      return "loadgen_invalid";
  }
  return "unknown";
}

std::vector<ServingFlawFound> FindServingFlaws(const ServingPoint& p, const ServingLimits& l) {
  std::vector<ServingFlawFound> out;
  if (p.loadgen_valid == false) {
    out.push_back({ServingFlaw::kLoadgenInvalid, "LoadGen reports 'Result is : INVALID'"});
  }
  RequestFlaws(p, out);
  LengthFlaws(p, l, out);
  RateFlaw(p, l, out);
  StreamFlaw(p, out);
  OverloadFlaw(p, l, out);
  CountFlaw(p, l, out);
  if (p.warmup_in_window) {
    out.push_back({ServingFlaw::kWarmupInWindow, "warm-up requests are counted in the figures"});
  }
  return out;
}

std::string DescribeFlaws(const std::vector<ServingFlawFound>& flaws) {
  std::string out;
  for (const ServingFlawFound& f : flaws) {
    out += fmt::format("{}{}: {}", out.empty() ? "" : "; ", ServingFlawName(f.flaw), f.detail);
  }
  return out;
}

}  // namespace ys::validate
