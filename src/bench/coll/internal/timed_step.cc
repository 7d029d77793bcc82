#include "bench/coll/internal/timed_step.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <string>
#include <string_view>
#include <utility>

#include "core/text.h"

namespace ys::bench::coll {
namespace {

constexpr double kStepNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

size_t RotationSteps(const comm::CollectiveOp& op, size_t buffer_bytes) {
  size_t total = op.counts.size_bytes();
  return total == 0 ? 1 : std::max<size_t>(1, buffer_bytes / total);
}

Status WarmUp(comm::CollectiveBackend& b, const comm::CollectiveOp& op, int warmup,
              size_t buffer_bytes) {
  size_t steps = RotationSteps(op, buffer_bytes);
  for (int i = 0; i < warmup; ++i) {
    YS_RETURN_IF_ERROR(b.Launch(op, false, op.counts.size_bytes() * (i % steps)));
  }
  return b.Synchronize();
}

namespace {

// One measurement by this process: input, an untimed call, barrier, `iters` timed calls, then the
// data check with a new seed (`wrong`: one count per local rank). A process driving several GPUs
// times them together, as nccl-tests -g does.
Status TimeAndCheck(comm::Communicator& world, comm::CollectiveBackend* b,
                    const comm::CollectiveOp& op, bool in_place, int iters, size_t buffer_bytes,
                    uint32_t seed, double& time_us, std::vector<int64_t>& wrong) {
  Status s = Status::Ok();
  if (b != nullptr) {
    s = comm::PrepareLocalData(*b, op, in_place, seed);
    if (s.ok()) s = b->Launch(op, in_place, 0);
    if (s.ok()) s = b->Synchronize();
  }
  YS_RETURN_IF_ERROR(world.Barrier());  // every rank of the job, also those outside the group
  if (b == nullptr || !s.ok()) return s;
  const size_t steps = RotationSteps(op, buffer_bytes);
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < iters && s.ok(); ++i)
    s = b->Launch(op, in_place, op.counts.size_bytes() * (i % steps));
  if (s.ok()) s = b->Synchronize();
  auto elapsed =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
  YS_RETURN_IF_ERROR(s);
  time_us = elapsed / iters;
  YS_RETURN_IF_ERROR(comm::PrepareLocalData(*b, op, in_place, seed + 1));
  YS_RETURN_IF_ERROR(b->Launch(op, in_place, 0));
  YS_RETURN_IF_ERROR(b->Synchronize());
  auto w = comm::CheckLocalData(*b, op, in_place, seed + 1);
  if (!w.ok()) return w.status();
  wrong = std::move(*w);
  return Status::Ok();
}

}  // namespace

Result<StepSamples> MeasureStep(comm::Communicator& world, comm::CollectiveBackend* b,
                                const comm::CollectiveOp& op, bool in_place, int iters,
                                size_t buffer_bytes, uint32_t seed) {
  double time_us = kStepNaN;
  std::vector<int64_t> wrong;
  Status s = TimeAndCheck(world, b, op, in_place, iters, buffer_bytes, seed, time_us, wrong);
  if (wrong.empty()) wrong.push_back(0);  // outside the group, or failed: one rank's slot
  std::vector<std::string> counts;
  for (int64_t w : wrong) counts.push_back(std::to_string(w));
  auto all = world.AllGather(
      fmt::format("{}|{:.17g}|{}|{}", s.ok() ? 1 : 0, time_us, Join(counts, ","), s.message()));
  if (!all.ok()) return all.status();
  StepSamples out;
  for (size_t r = 0; r < all->size(); ++r) {
    auto f = Split((*all)[r], '|');
    if (f.size() < 4)
      return Status::Internal("malformed step result from rank " + std::to_string(r));
    if (f[0] != "1") {
      std::string_view msg =
          std::string_view((*all)[r]).substr(f[0].size() + f[1].size() + f[2].size() + 3);
      return Status(s.ok() ? StatusCode::kIoError : s.code(),
                    "rank " + std::to_string(r) + ": " + std::string(msg));
    }
    for (const auto& w : Split(f[2], ',')) {  // a process's local ranks share its time
      out.time_us.push_back(ParseDouble(f[1]).value_or(kStepNaN));
      out.wrong.push_back(ParseInt(w).value_or(0));
    }
  }
  return out;
}

}  // namespace ys::bench::coll
