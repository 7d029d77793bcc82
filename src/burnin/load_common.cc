// The shared frame of the loads (load_internal.h): per-entity samples and the pinned CPU cycle.
#include <algorithm>
#include <chrono>
#include <exception>
#include <thread>

#include "burnin/load_internal.h"

namespace ys::burnin {

std::optional<double> Median(std::vector<double> v) {
  if (v.empty()) return std::nullopt;
  std::sort(v.begin(), v.end());
  size_t mid = v.size() / 2;
  return v.size() % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

EntitySample LoadSample(const LoadContext& ctx, const std::string& entity, const std::string& kind,
                        const char* metric, const char* unit, const CycleTally& tally,
                        const std::string& digest) {
  EntitySample s;
  s.node = ctx.node;
  s.entity = entity;
  s.kind = kind;
  s.metric = metric;
  s.unit = unit;
  s.perf = Median(tally.rates);
  s.iterations = tally.iterations;
  s.miscompares = tally.miscompares;
  s.miscompare_detail = tally.detail;
  s.digest = digest;
  s.load_error = tally.error;
  return s;
}

Status CheckedLoad::RunCycle(double at_s, double seconds, std::vector<EntitySample>& out) {
  using Clock = std::chrono::steady_clock;
  const auto& cpus = ids();
  std::vector<CycleTally> tallies(cpus.size());
  std::vector<bool> planted(cpus.size(), false);
  std::vector<double> kept(cpus.size(), 1.0);
  for (size_t i = 0; i < cpus.size(); ++i) {
    if (ctx_.timeline == nullptr) continue;
    std::string entity = kind_ + std::to_string(cpus[i]);
    planted[i] = ctx_.timeline->FlipPlanted(entity, at_s, at_s + seconds);
    kept[i] = ctx_.timeline->RateKept(entity, at_s);
  }
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(std::max(0.0, seconds)));
  std::vector<Status> done = RunWorkers([&](int i) {
    CycleTally& t = tallies[i];
    bool flip = planted[i];
    do {
      double rate = 0;
      std::string mismatch;
      Status s = Iterate(i, flip, rate, mismatch);
      flip = false;  // one planted flip per cycle
      if (!s.ok()) {
        t.error = s.ToString();
        return;
      }
      t.rates.push_back(rate * kept[i]);
      ++t.iterations;
      if (!mismatch.empty()) {
        if (t.miscompares == 0) t.detail = std::move(mismatch);
        ++t.miscompares;
      }
    } while (Clock::now() < deadline);
  });
  for (size_t i = 0; i < cpus.size(); ++i) {
    if (!done[i].ok() && tallies[i].error.empty()) tallies[i].error = done[i].ToString();
    out.push_back(LoadSample(ctx_, kind_ + std::to_string(cpus[i]), kind_, metric_, unit_,
                             tallies[i], Digest(static_cast<int>(i))));
  }
  return Status::Ok();
}

std::vector<Status> RunOnThreads(size_t n, const std::function<void(int)>& work) {
  std::vector<Status> out(n, Status::Ok());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      try {
        work(static_cast<int>(i));
      } catch (const std::exception& e) {
        out[i] = Status::Internal(std::string("worker ") + std::to_string(i) + ": " + e.what());
      }
    });
  }
  for (auto& t : threads) t.join();
  return out;
}

Status PerGpuLoad::InitEach(const std::function<Status(int)>& init) {
  std::vector<Status> result(ordinals_.size(), Status::Ok());
  std::vector<Status> thrown = RunOnThreads(ordinals_.size(), [&](int i) { result[i] = init(i); });
  for (size_t i = 0; i < result.size(); ++i) {
    YS_RETURN_IF_ERROR(thrown[i]);
    if (!result[i].ok()) {
      return Status(result[i].code(),
                    "gpu" + std::to_string(ordinals_[i]) + ": " + result[i].message());
    }
  }
  return Status::Ok();
}

}  // namespace ys::burnin
