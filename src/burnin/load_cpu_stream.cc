// memory.cpu: STREAM triad (a = b + s*c) on one pinned worker per CPU over its own arrays, sized
// past its share of the last-level cache, every element of the output checked bit for bit.
//
// The values make every result exact in double: b = 2, c = 0.5 and s alternating between 3 and 5
// from one triad to the next, so a holds 3.5 or 4.5 (a triad that silently did not write leaves
// the other value and is caught). The rate counts STREAM's 24 bytes per element (read b and c,
// write a; write-allocate not counted) over the triad's time only; the check is not timed.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "bench/bitwise_compare.h"
#include "burnin/digest.h"
#include "burnin/load_internal.h"
#include "host/cpu_cache.h"

namespace ys::burnin {
namespace {

constexpr uint64_t kMinArrayBytes = 32ULL << 20;
constexpr uint64_t kAlignment = 2ULL << 20;  // transparent huge pages can back the arrays whole
constexpr double kB = 2.0;
constexpr double kC = 0.5;
constexpr double kScalars[2] = {3.0, 5.0};
constexpr size_t kFlipElement = 17;  // the element a planted fault flips (modulo the array)

double Expected(int parity) { return kB + kScalars[parity] * kC; }

struct FreeDeleter {
  void operator()(double* p) const { std::free(p); }
};
using Array = std::unique_ptr<double[], FreeDeleter>;

Array AllocateArray(uint64_t elements) {
  uint64_t bytes = (elements * sizeof(double) + kAlignment - 1) / kAlignment * kAlignment;
  return Array(static_cast<double*>(std::aligned_alloc(kAlignment, bytes)));
}

// Bytes per array per worker: max(4 x the largest per-CPU share of the last-level cache among
// `cpus`, 32 MiB), whole MiB. Without cache information, 32 MiB.
uint64_t ArrayBytes(const host::Host* host, const std::vector<int>& cpus) {
  uint64_t share = 0;
  if (host != nullptr) {
    auto caches = host::LoadCpuCaches(*host);
    if (caches.ok()) {
      for (int cpu : cpus) {
        int top = 0;
        for (const auto& c : *caches) {
          if (c.type != "Instruction" && c.shared_cpus.Contains(cpu)) top = std::max(top, c.level);
        }
        for (const auto& c : *caches) {
          if (c.level == top && c.type != "Instruction" && c.shared_cpus.Contains(cpu) &&
              !c.shared_cpus.empty()) {
            share = std::max(share, c.size_bytes / c.shared_cpus.size());
          }
        }
      }
    }
  }
  constexpr uint64_t kMiB = 1ULL << 20;
  return std::max(kMinArrayBytes, (4 * share + kMiB - 1) / kMiB * kMiB);
}

struct Worker {
  Array a, b, c;
  int parity = 0;  // which scalar the next triad uses
};

class CpuStreamLoad final : public PinnedCpuLoad {
 public:
  CpuStreamLoad(const LoadContext& ctx, std::unique_ptr<WorkerPool> pool, uint64_t elements)
      : PinnedCpuLoad(ctx, std::move(pool), "triad", "GB/s"),
        elements_(elements),
        workers_(pool_->size()) {}

  std::string_view name() const override { return "memory.cpu"; }

  // Each worker allocates and first-touches its arrays on its own CPU.
  Status Init() {
    std::vector<Status> init = pool_->Run([&](int i) {
      Worker& w = workers_[i];
      w.a = AllocateArray(elements_);
      w.b = AllocateArray(elements_);
      w.c = AllocateArray(elements_);
      if (!w.a || !w.b || !w.c) {
        throw std::bad_alloc();
      }
      for (uint64_t j = 0; j < elements_; ++j) {
        w.a[j] = 0.0;
        w.b[j] = kB;
        w.c[j] = kC;
      }
    });
    for (size_t i = 0; i < init.size(); ++i) {
      if (!init[i].ok()) {
        return Status::Io(fmt::format("memory.cpu: cannot allocate 3 arrays of {} bytes on cpu{}",
                                      elements_ * sizeof(double), pool_->cpus()[i]));
      }
    }
    // The digest of the first triad's correct output: every element 3.5.
    const double first = Expected(0);
    auto digest = Sha256HexRepeated(&first, sizeof(first), elements_);
    if (!digest.ok()) return digest.status();
    digest_ = *digest;
    return Status::Ok();
  }

 protected:
  Status Iterate(int worker, bool flip, double& rate, std::string& mismatch) override {
    Worker& w = workers_[worker];
    const int parity = w.parity;
    w.parity ^= 1;
    const double s = kScalars[parity];
    double* __restrict a = w.a.get();
    const double* __restrict b = w.b.get();
    const double* __restrict c = w.c.get();
    auto t0 = std::chrono::steady_clock::now();
    for (uint64_t j = 0; j < elements_; ++j) a[j] = b[j] + s * c[j];
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    rate = secs > 0 ? 24.0 * static_cast<double>(elements_) / secs / 1e9 : 0;
    if (flip) {
      double& x = a[kFlipElement % elements_];
      x = std::bit_cast<double>(std::bit_cast<uint64_t>(x) ^ 1u);
    }
    const uint64_t want = std::bit_cast<uint64_t>(Expected(parity));
    bench::BitMismatch m;
    for (uint64_t j = 0; j < elements_; ++j) {
      uint64_t got = std::bit_cast<uint64_t>(a[j]);
      if (got != want) {
        if (m.differing_elements == 0) {
          m.first_index = j;
          m.expected_bits = want;
          m.actual_bits = got;
        }
        ++m.differing_elements;
      }
    }
    if (m.differing_elements > 0) mismatch = bench::DescribeBitMismatch(m, sizeof(double));
    return Status::Ok();
  }

 private:
  const uint64_t elements_;
  std::vector<Worker> workers_;
};

}  // namespace

Result<std::unique_ptr<Load>> MakeCpuStreamLoad(const LoadContext& ctx,
                                                const std::vector<int>& cpus) {
  uint64_t bytes = ctx.stream_bytes > 0 ? ctx.stream_bytes : ArrayBytes(ctx.host, cpus);
  uint64_t elements = bytes / sizeof(double);
  if (elements == 0) return Status::Invalid("memory.cpu: arrays of fewer than 8 bytes");
  auto pool = WorkerPool::Start(cpus);
  if (!pool.ok()) return pool.status();
  auto load = std::make_unique<CpuStreamLoad>(ctx, std::move(*pool), elements);
  YS_RETURN_IF_ERROR(load->Init());
  return std::unique_ptr<Load>(std::move(load));
}

}  // namespace ys::burnin
