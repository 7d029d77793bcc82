#include "bench/mem/internal/stream_kernels.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <memory>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "host/thread_affinity.h"

namespace ys::bench {
namespace {

// stream.c's epsilon for 8-byte elements.
constexpr double kEpsilon = 1e-13;
// Large arrays aligned to 2 MiB so that transparent huge pages can back them whole.
constexpr uint64_t kArrayAlignment = 2ULL << 20;

struct FreeDeleter {
  void operator()(double* p) const { std::free(p); }
};
using Array = std::unique_ptr<double[], FreeDeleter>;

// The pages stay untouched (malloc of this size maps fresh zero pages lazily): the first write,
// by the thread that owns the share, decides the NUMA node.
Result<Array> AllocateUntouched(uint64_t elements) {
  uint64_t bytes =
      (elements * sizeof(double) + kArrayAlignment - 1) / kArrayAlignment * kArrayAlignment;
  void* p = std::aligned_alloc(kArrayAlignment, bytes);
  if (p == nullptr) {
    return Status::Io("cannot allocate a STREAM array of " + std::to_string(bytes) + " bytes");
  }
  return Array(static_cast<double*>(p));
}

// The barrier that starts and ends each timed kernel. It spins, as an OpenMP runtime's threads do
// between parallel regions (libgomp spins about 300,000 times before it sleeps), and sleeps only
// after kSpins: std::barrier sleeps in the kernel almost at once, and its futex wake-ups cost
// 20-35 us per kernel on an idle 2-core VM, and a whole scheduler slice (milliseconds) on a
// loaded one, where the sleeping thread hands its core to another process and waits to get it
// back -- a cost stream.c's timed region does not have.
class SpinBarrier {
 public:
  explicit SpinBarrier(int threads) : threads_(threads) {}

  void ArriveAndWait() {
    const uint32_t generation = generation_.load();
    if (arrived_.fetch_add(1) + 1 == threads_) {
      arrived_.store(0);
      generation_.fetch_add(1);
      if (sleepers_.load() > 0) generation_.notify_all();
      return;
    }
    for (long spins = 0; generation_.load(std::memory_order_acquire) == generation; ++spins) {
      if (spins < kSpins) {
        Pause();
        continue;
      }
      // Counted before the wait and seen by the last arrival after its increment (both seq_cst):
      // either this thread sees the new generation or the last arrival sees a sleeper.
      sleepers_.fetch_add(1);
      generation_.wait(generation);
      sleepers_.fetch_sub(1);
    }
  }

 private:
  static constexpr long kSpins = 200000;  // 1-10 ms of pause instructions (5-140 cycles each)
  static void Pause() {
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#endif
  }
  const int threads_;
  std::atomic<int> arrived_{0};
  std::atomic<int> sleepers_{0};
  std::atomic<uint32_t> generation_{0};
};

// The kernels, as stream.c writes them, over [begin, end).
void Kernel(StreamKernel k, double* __restrict a, double* __restrict b, double* __restrict c,
            uint64_t begin, uint64_t end) {
  const double s = kStreamScalar;
  switch (k) {
    case StreamKernel::kCopy:
      for (uint64_t j = begin; j < end; ++j) c[j] = a[j];
      break;
    case StreamKernel::kScale:
      for (uint64_t j = begin; j < end; ++j) b[j] = s * c[j];
      break;
    case StreamKernel::kAdd:
      for (uint64_t j = begin; j < end; ++j) c[j] = a[j] + b[j];
      break;
    case StreamKernel::kTriad:
      for (uint64_t j = begin; j < end; ++j) a[j] = b[j] + s * c[j];
      break;
  }
}

void CheckArray(const char* name, std::span<const double> x, double expected,
                std::vector<StreamMismatch>& out) {
  StreamMismatch m{.array = name, .expected = expected};
  double sum_abs_err = 0;
  for (uint64_t j = 0; j < x.size(); ++j) {
    sum_abs_err += std::fabs(x[j] - expected);
    // Written so that a NaN counts as wrong.
    if (!(std::fabs(x[j] / expected - 1.0) <= kEpsilon)) {
      if (m.wrong_elements == 0) {
        m.first_index = j;
        m.actual = x[j];
      }
      ++m.wrong_elements;
    }
  }
  m.avg_rel_error =
      x.empty() ? 0 : std::fabs(sum_abs_err / static_cast<double>(x.size()) / expected);
  if (m.wrong_elements > 0 || !(m.avg_rel_error <= kEpsilon)) out.push_back(std::move(m));
}

}  // namespace

const char* StreamKernelName(StreamKernel k) {
  switch (k) {
    case StreamKernel::kCopy:
      return "copy";
    case StreamKernel::kScale:
      return "scale";
    case StreamKernel::kAdd:
      return "add";
    case StreamKernel::kTriad:
      return "triad";
  }
  return "?";
}

int StreamArraysTouched(StreamKernel k) {
  return k == StreamKernel::kCopy || k == StreamKernel::kScale ? 2 : 3;
}

uint64_t StreamBytes(StreamKernel k, uint64_t elements) {
  return static_cast<uint64_t>(StreamArraysTouched(k)) * sizeof(double) * elements;
}

uint64_t StreamArrayBytes(uint64_t llc_bytes, int cache_multiple) {
  constexpr uint64_t kMiB = 1ULL << 20;
  return (static_cast<uint64_t>(cache_multiple) * llc_bytes + kMiB - 1) / kMiB * kMiB;
}

StreamValues ExpectedStreamValues(int iterations) {
  StreamValues v{.a = 2.0, .b = 2.0, .c = 0.0};
  for (int k = 0; k < iterations; ++k) {
    v.c = v.a;
    v.b = kStreamScalar * v.c;
    v.c = v.a + v.b;
    v.a = v.b + kStreamScalar * v.c;
  }
  return v;
}

std::vector<StreamMismatch> ValidateStream(std::span<const double> a, std::span<const double> b,
                                           std::span<const double> c, int iterations) {
  StreamValues v = ExpectedStreamValues(iterations);
  std::vector<StreamMismatch> out;
  CheckArray("a", a, v.a, out);
  CheckArray("b", b, v.b, out);
  CheckArray("c", c, v.c, out);
  return out;
}

Result<StreamRun> RunStream(const std::vector<int>& cpus, uint64_t elements, int warmup,
                            int iters) {
  if (cpus.empty()) return Status::Invalid("STREAM: no CPUs to run on");
  if (elements < cpus.size()) return Status::Invalid("STREAM: fewer elements than threads");
  if (iters < 1 || warmup < 0) return Status::Invalid("STREAM: need at least one timed iteration");
  auto a = AllocateUntouched(elements);
  if (!a.ok()) return a.status();
  auto b = AllocateUntouched(elements);
  if (!b.ok()) return b.status();
  auto c = AllocateUntouched(elements);
  if (!c.ok()) return c.status();
  double* pa = a->get();
  double* pb = b->get();
  double* pc = c->get();

  const uint64_t n_threads = cpus.size();
  SpinBarrier sync(static_cast<int>(n_threads));
  StreamRun run;
  using Clock = std::chrono::steady_clock;
  Status s = host::RunPinned(cpus, [&](int i) {
    // Thread i's share, the same for initialisation and every kernel (as OpenMP's static
    // schedule), so each thread streams the pages it placed.
    const uint64_t begin = elements * i / n_threads;
    const uint64_t end = elements * (i + 1) / n_threads;
    for (uint64_t j = begin; j < end; ++j) {
      pa[j] = 2.0;
      pb[j] = 2.0;
      pc[j] = 0.0;
    }
    for (int it = 0; it < warmup + iters; ++it) {
      for (StreamKernel k : kStreamKernels) {
        // Thread 0 reads the clock before the barrier that releases the others, so no share
        // can start before t0: read after it, a thread 0 descheduled at the barrier would time
        // only its own share and report up to n times the bandwidth (as stream.c, whose master
        // reads the clock before the parallel loop forks).
        Clock::time_point t0;
        if (i == 0) t0 = Clock::now();
        sync.ArriveAndWait();
        Kernel(k, pa, pb, pc, begin, end);
        sync.ArriveAndWait();
        if (i == 0 && it >= warmup) {
          run.seconds[static_cast<int>(k)].push_back(
              std::chrono::duration<double>(Clock::now() - t0).count());
        }
      }
    }
  });
  if (!s.ok()) return s;
  run.mismatches = ValidateStream({pa, elements}, {pb, elements}, {pc, elements}, warmup + iters);
  return run;
}

}  // namespace ys::bench
