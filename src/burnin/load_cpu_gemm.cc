// compute.cpu: OpenBLAS sgemm on one pinned worker per CPU, every output compared bit for bit
// with the first sgemm output this process computed (so across repeats, cycles and cores).
//
// OpenBLAS runs single-threaded per call (openblas_set_num_threads(1) while the load lives, as
// gemm.cpu.determinism does) so that each worker's sgemm runs whole on its own core; the pthread
// build of OpenBLAS allows concurrent calls from several threads then. Inputs are the
// determinism unit's (bench/deterministic_data.h, seeds 11 and 12), copied into each worker's own
// first-touched buffers so that every core reads its local memory.
#include <cblas.h>
#include <fmt/format.h>

#include <bit>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>

#include "bench/bitwise_compare.h"
#include "bench/deterministic_data.h"
#include "bench/gemm/internal/openblas_util.h"
#include "burnin/digest.h"
#include "burnin/load_internal.h"

namespace ys::burnin {
namespace {

constexpr int kDefaultN = 512;
constexpr uint64_t kSeedA = 11;
constexpr uint64_t kSeedB = 12;
// The output element a planted fault flips (its lowest mantissa bit), modulo the output size.
constexpr size_t kFlipElement = 17;

// The reference: the first output of an n x n sgemm computed in this process, and its digest.
struct Reference {
  std::vector<float> c;
  std::string digest;
};

std::mutex& ReferenceMutex() {
  static std::mutex mu;
  return mu;
}
std::map<int, std::shared_ptr<const Reference>>& References() {
  static std::map<int, std::shared_ptr<const Reference>> refs;
  return refs;
}

void Sgemm(int n, const float* a, const float* b, float* c) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
}

struct Worker {
  std::vector<float> a, b, c;
};

class CpuGemmLoad final : public PinnedCpuLoad {
 public:
  CpuGemmLoad(const LoadContext& ctx, std::unique_ptr<WorkerPool> pool, int n)
      : PinnedCpuLoad(ctx, std::move(pool), "sgemm", "GFLOPS"),
        n_(n),
        one_thread_(1),
        workers_(pool_->size()) {}

  std::string_view name() const override { return "compute.cpu"; }

  // Allocates and fills each worker's buffers on its own thread (first touch), and computes the
  // reference on the first worker when this process has none for n yet.
  Status Init() {
    const size_t elems = static_cast<size_t>(n_) * n_;
    std::vector<float> a(elems), b(elems);
    bench::FillDeterministic(std::span<float>(a), kSeedA);
    bench::FillDeterministic(std::span<float>(b), kSeedB);
    std::vector<Status> init = pool_->Run([&](int i) {
      Worker& w = workers_[i];
      w.a = a;
      w.b = b;
      w.c.assign(elems, 0.0f);
    });
    for (const Status& s : init) YS_RETURN_IF_ERROR(s);
    std::lock_guard lock(ReferenceMutex());
    auto& ref = References()[n_];
    if (!ref) {
      auto r = std::make_shared<Reference>();
      r->c.assign(elems, 0.0f);
      std::vector<Status> first = pool_->Run([&](int i) {
        if (i == 0) Sgemm(n_, workers_[0].a.data(), workers_[0].b.data(), r->c.data());
      });
      YS_RETURN_IF_ERROR(first[0]);
      auto digest = Sha256Hex(r->c.data(), r->c.size() * sizeof(float));
      if (!digest.ok()) return digest.status();
      r->digest = *digest;
      ref = std::move(r);
    }
    reference_ = ref;
    digest_ = reference_->digest;
    return Status::Ok();
  }

 protected:
  Status Iterate(int worker, bool flip, double& rate, std::string& mismatch) override {
    Worker& w = workers_[worker];
    auto t0 = std::chrono::steady_clock::now();
    Sgemm(n_, w.a.data(), w.b.data(), w.c.data());
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    rate = s > 0 ? 2.0 * n_ * static_cast<double>(n_) * n_ / s / 1e9 : 0;
    if (flip) {
      float& x = w.c[kFlipElement % w.c.size()];
      x = std::bit_cast<float>(std::bit_cast<uint32_t>(x) ^ 1u);
    }
    auto m = bench::FindBitMismatch(reference_->c, w.c);
    if (m) mismatch = bench::DescribeBitMismatch(*m, sizeof(float));
    return Status::Ok();
  }

 private:
  const int n_;
  bench::ScopedOpenBlasThreads one_thread_;
  std::vector<Worker> workers_;
  std::shared_ptr<const Reference> reference_;
};

}  // namespace

Result<std::unique_ptr<Load>> MakeCpuGemmLoad(const LoadContext& ctx,
                                              const std::vector<int>& cpus) {
  int n = ctx.gemm_n > 0 ? ctx.gemm_n : kDefaultN;
  if (n > 8192)
    return Status::Invalid("compute.cpu: sgemm dimension " + std::to_string(n) + " is above 8192");
  auto pool = WorkerPool::Start(cpus);
  if (!pool.ok()) return pool.status();
  auto load = std::make_unique<CpuGemmLoad>(ctx, std::move(*pool), n);
  YS_RETURN_IF_ERROR(load->Init());
  return std::unique_ptr<Load>(std::move(load));
}

}  // namespace ys::burnin
