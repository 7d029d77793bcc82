// Continuous batching of a synthetic request stream at a fixed concurrency, and the serving
// figures of its time stamps: what the CPU serving proxy (workloads/serving/serving_unit.h) runs
// over its engine, kept apart from the arithmetic so that the bookkeeping is tested alone.
//
// The stream (closed loop, as a load generator at a fixed concurrency drives a server): K clients
// each hold one request in flight; a client sends its next request the moment its previous one
// returns its last token. Every request asks ISL prompt tokens and exactly OSL output tokens
// (no end-of-sequence stop).
//
// The schedule ("prefill first", no chunking): each engine step first admits every waiting request
// into a free slot and runs its whole prefill (ISL tokens, which emits its first token), then runs
// one decode step of every sequence that was already running (one token each, all in one batch).
// A sequence whose last token is out frees its slot at the end of the step. A request prefilled in
// a step starts decoding in the next. So a decode step waits for the prefills admitted before it,
// as in an engine that schedules prefills ahead of decodes.
//
// Warm-up: the first K requests are not counted and ask staggered lengths (client i asks
// ceil(OSL·(i+1)/K) tokens), so that the slots free at evenly spread steps, as in a server that
// has run for a while, instead of all K in lock-step. Then `measured_requests` counted requests,
// then tail requests (not counted) that keep the batch at K until the last counted request is
// done; the run stops there, tail requests unfinished. Past `time_limit_s` no new request is
// admitted and the requests in flight finish (the trace says so).
//
// Figures (the definitions of docs/design.md's serving phase, as vLLM's benchmark defines them):
//   TTFT    first token − arrival, per counted request (mean, p50, p99: nearest rank)
//   TPOT    (last token − first token) / (OSL − 1), per counted request (mean, p50)
//   output tokens/s   every token the engine emitted between the first counted request's arrival
//                     and the last counted request's last token, over that span
//   tokens/s per user 1 / mean TPOT
//
// Thread safety: none; the engine is called from the caller's thread.
#ifndef YARDSTICK_WORKLOADS_SERVING_BATCHER_H_
#define YARDSTICK_WORKLOADS_SERVING_BATCHER_H_

#include <functional>
#include <string>
#include <vector>

#include "core/status.h"

namespace ys::workloads {

struct ServingStream {
  int concurrency = 8;  // K: requests in flight, slots of the engine
  int isl = 128;
  int osl = 32;
  int measured_requests = 32;
  double time_limit_s = 0;  // > 0: no request admitted after this many seconds of the run
};

// Invalid naming the figure when a size is below 1 or OSL below 2 (TPOT needs two tokens).
Status CheckServingStream(const ServingStream& s);

// What the batcher drives: `concurrency` slots, each holding one sequence and its KV cache.
class ServingEngine {
 public:
  virtual ~ServingEngine() = default;
  // A new request (`request` numbers them from 0) enters `slot`: its ISL prompt tokens run
  // through the model, and its first output token is sampled.
  virtual Status Prefill(int slot, int request) = 0;
  // One decode step of the sequences in `slots` (in slot order, never empty): one token each.
  virtual Status Decode(const std::vector<int>& slots) = 0;
};

struct ServedRequest {
  int id = 0;
  int osl = 0;           // output tokens asked
  bool counted = false;  // warm-up and tail requests are not
  double arrival_s = 0;
  std::vector<double> token_s;  // when each output token came out; [0] is the first

  bool Complete() const { return static_cast<int>(token_s.size()) == osl; }
};

struct ServingTrace {
  std::vector<ServedRequest> requests;  // in arrival order
  int steps = 0;
  int prefills = 0;
  int max_in_flight = 0;  // the most sequences the engine held at once
  bool time_limited = false;
  double duration_s = 0;
};

// Runs the stream over `engine` with `clock` (seconds, monotonic). `progress` (may be empty) is
// told every few steps. An engine error ends the run with that error.
Result<ServingTrace> RunContinuousBatching(const ServingStream& stream, ServingEngine& engine,
                                           const std::function<double()>& clock,
                                           const std::function<void(const std::string&)>& progress);

struct ServingStats {
  int completed = 0;                              // counted requests that completed
  std::vector<double> ttft_s, tpot_s, latency_s;  // per counted request, in arrival order
  double ttft_mean_s = 0, ttft_p50_s = 0, ttft_p99_s = 0;
  double tpot_mean_s = 0, tpot_p50_s = 0;
  double output_tokens_per_s = 0;
  double tokens_per_s_per_user = 0;
  double span_s = 0;    // the span output tokens/s is taken over
  int span_tokens = 0;  // tokens emitted in it
};

// The figures of a trace (see the header comment). Invalid when no counted request completed.
Result<ServingStats> SummarizeServing(const ServingTrace& trace);

// The nearest-rank percentile `p` (0..100] of `values`; 0 for no values.
double NearestRankPercentile(std::vector<double> values, double p);

}  // namespace ys::workloads

#endif  // YARDSTICK_WORKLOADS_SERVING_BATCHER_H_
