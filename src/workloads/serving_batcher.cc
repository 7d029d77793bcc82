#include "workloads/serving_batcher.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ys::workloads {
namespace {

double MeanOfServing(const std::vector<double>& v) {
  return v.empty() ? 0.0 : std::accumulate(v.begin(), v.end(), 0.0) / v.size();
}

// The run's state: which request each slot holds, since when a free slot's client has waited.
class ContinuousBatcher {
 public:
  ContinuousBatcher(const ServingStream& s, ServingEngine& engine,
                    const std::function<double()>& clock)
      : s_(s),
        engine_(engine),
        clock_(clock),
        slot_request_(s.concurrency, -1),
        free_since_(s.concurrency, 0.0),
        counted_left_(s.measured_requests) {}

  Result<ServingTrace> Run(const std::function<void(const std::string&)>& progress) {
    const double t0 = clock_();
    std::fill(free_since_.begin(), free_since_.end(), t0);
    while (counted_left_ > 0) {
      if (s_.time_limit_s > 0 && clock_() - t0 > s_.time_limit_s) {
        admitting_ = false;
        trace_.time_limited = true;
      }
      auto worked = Step();
      if (!worked.ok()) return worked.status();
      if (!*worked) break;  // nothing in flight and nothing admitted: the time limit ended it
      if (progress && trace_.steps % 64 == 0)
        progress(fmt::format("serving step {}, {} requests", trace_.steps, next_id_));
    }
    trace_.duration_s = clock_() - t0;
    return std::move(trace_);
  }

 private:
  // Output tokens asked by request `id`: staggered for the warm-up requests (header comment).
  int OslOf(int id) const {
    const int k = s_.concurrency;
    if (id >= k) return s_.osl;
    return std::max(1, static_cast<int>(std::ceil(static_cast<double>(s_.osl) * (id + 1) / k)));
  }
  bool Counted(int id) const {
    return id >= s_.concurrency && id < s_.concurrency + s_.measured_requests;
  }

  // Stamps a token of the request in `slot` at `t`; frees the slot when its last token is out.
  void Emit(int slot, double t) {
    ServedRequest& r = trace_.requests[slot_request_[slot]];
    r.token_s.push_back(t);
    if (!r.Complete()) return;
    if (r.counted) --counted_left_;
    slot_request_[slot] = -1;
    free_since_[slot] = t;
  }

  // Prefill first: every free slot takes its client's next request. Whether any was admitted.
  Result<bool> Admit() {
    bool any = false;
    for (int slot = 0; admitting_ && slot < s_.concurrency; ++slot) {
      if (slot_request_[slot] >= 0) continue;
      const int id = next_id_++;
      trace_.requests.push_back(
          {.id = id, .osl = OslOf(id), .counted = Counted(id), .arrival_s = free_since_[slot]});
      slot_request_[slot] = static_cast<int>(trace_.requests.size()) - 1;
      YS_RETURN_IF_ERROR(engine_.Prefill(slot, id));
      ++trace_.prefills;
      any = true;
      Emit(slot, clock_());
    }
    return any;
  }

  // One engine step: admissions, then one decode of the sequences that ran before them. Whether
  // the step did anything.
  Result<bool> Step() {
    std::vector<int> running;
    for (int slot = 0; slot < s_.concurrency; ++slot)
      if (slot_request_[slot] >= 0) running.push_back(slot);
    auto admitted = Admit();
    if (!admitted.ok()) return admitted.status();
    int in_flight = static_cast<int>(running.size());
    for (int slot = 0; slot < s_.concurrency; ++slot)
      in_flight += slot_request_[slot] >= 0 &&
                   std::find(running.begin(), running.end(), slot) == running.end();
    trace_.max_in_flight = std::max(trace_.max_in_flight, in_flight);
    if (running.empty() && !*admitted) return false;
    if (!running.empty()) {
      YS_RETURN_IF_ERROR(engine_.Decode(running));
      const double t = clock_();
      for (int slot : running) Emit(slot, t);
    }
    ++trace_.steps;
    return true;
  }

  const ServingStream& s_;
  ServingEngine& engine_;
  const std::function<double()>& clock_;
  std::vector<int> slot_request_;  // index into trace_.requests, -1 when free
  std::vector<double> free_since_;
  int counted_left_ = 0;
  int next_id_ = 0;
  bool admitting_ = true;
  ServingTrace trace_;
};

}  // namespace

Status CheckServingStream(const ServingStream& s) {
  auto bad = [](const char* what, int v, int lo) {
    return Status::Invalid(
        fmt::format("serving stream: {} is {}; expected at least {}", what, v, lo));
  };
  if (s.concurrency < 1) return bad("concurrency", s.concurrency, 1);
  if (s.isl < 1) return bad("isl", s.isl, 1);
  if (s.osl < 2) return bad("osl (TPOT needs two output tokens)", s.osl, 2);
  if (s.measured_requests < 1) return bad("measured requests", s.measured_requests, 1);
  return Status::Ok();
}

Result<ServingTrace> RunContinuousBatching(
    const ServingStream& stream, ServingEngine& engine, const std::function<double()>& clock,
    const std::function<void(const std::string&)>& progress) {
  YS_RETURN_IF_ERROR(CheckServingStream(stream));
  ContinuousBatcher batcher(stream, engine, clock);
  return batcher.Run(progress);
}

double NearestRankPercentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const double rank = std::ceil(p / 100.0 * values.size());
  const size_t i = static_cast<size_t>(std::clamp(rank, 1.0, static_cast<double>(values.size())));
  return values[i - 1];
}

Result<ServingStats> SummarizeServing(const ServingTrace& trace) {
  ServingStats s;
  double start = 0, end = 0;
  for (const ServedRequest& r : trace.requests) {
    if (!r.counted || !r.Complete() || r.osl < 2) continue;
    s.ttft_s.push_back(r.token_s.front() - r.arrival_s);
    s.tpot_s.push_back((r.token_s.back() - r.token_s.front()) / (r.osl - 1));
    s.latency_s.push_back(r.token_s.back() - r.arrival_s);
    start = s.completed == 0 ? r.arrival_s : std::min(start, r.arrival_s);
    end = std::max(end, r.token_s.back());
    ++s.completed;
  }
  if (s.completed == 0)
    return Status::Invalid("serving run: no counted request completed (" +
                           std::to_string(trace.requests.size()) + " requests admitted)");
  for (const ServedRequest& r : trace.requests)
    for (double t : r.token_s) s.span_tokens += t > start && t <= end;
  s.span_s = end - start;
  s.ttft_mean_s = MeanOfServing(s.ttft_s);
  s.ttft_p50_s = NearestRankPercentile(s.ttft_s, 50);
  s.ttft_p99_s = NearestRankPercentile(s.ttft_s, 99);
  s.tpot_mean_s = MeanOfServing(s.tpot_s);
  s.tpot_p50_s = NearestRankPercentile(s.tpot_s, 50);
  s.output_tokens_per_s = s.span_s > 0 ? s.span_tokens / s.span_s : 0;
  s.tokens_per_s_per_user = s.tpot_mean_s > 0 ? 1 / s.tpot_mean_s : 0;
  return s;
}

}  // namespace ys::workloads
