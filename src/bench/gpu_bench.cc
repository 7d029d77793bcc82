#include "bench/gpu_bench.h"

#include <fmt/format.h>
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstring>

#include "gpu/ptx_kernels.h"

namespace ys::bench {
namespace {

// How long the gate holds a stream at most: far above any enqueue, short enough that a lost
// release does not hang a run.
constexpr uint64_t kGateTimeoutNs = 10'000'000'000ull;

uint64_t NextWord(uint64_t& state) {  // xorshift64*: cheap, full-period, seedable
  state ^= state >> 12;
  state ^= state << 25;
  state ^= state >> 27;
  return state * 0x2545F4914F6CDD1Dull;
}

uint64_t SeedState(uint64_t seed) { return seed == 0 ? 0x9E3779B97F4A7C15ull : seed; }

}  // namespace

Result<std::vector<int>> GpusToMeasure(const BenchContext& ctx, bool one_per_local_rank) {
  auto api = gpu::CudaApi::Get();
  if (!api.ok()) return api.status();
  int count = 0;
  YS_CU_RETURN(**api, cuDeviceGetCount(&count));
  if (count <= 0) return Status::NotFound("no CUDA device visible");
  const comm::LaunchInfo& l = ctx.launch();
  if (one_per_local_rank && l.launched() && l.local_size > 1) {
    if (l.local_rank >= count) {
      return Status::NotFound(
          fmt::format("local rank {} has no GPU of its own ({} visible)", l.local_rank, count));
    }
    return std::vector<int>{l.local_rank};
  }
  std::vector<int> all(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) all[static_cast<size_t>(i)] = i;
  return all;
}

SpecLookup LookupSpec(const BenchContext& ctx, const std::string& gpu_name) {
  if (ctx.options().data_dir.empty())
    return {std::nullopt, "no data directory (--data) to read specs/ from"};
  auto spec = FindDeviceSpec(ctx.options().data_dir, gpu_name);
  if (!spec.ok()) return {std::nullopt, spec.status().message()};
  return {std::move(*spec), ""};
}

std::optional<double> AddPeakParams(std::map<std::string, std::string>& params, double value,
                                    const std::optional<Peak>& peak,
                                    const std::string& why_unknown) {
  if (!peak || peak->value <= 0) {
    params["peak"] = "unknown";
    params["peak_note"] = why_unknown;
    return std::nullopt;
  }
  double pct = 100.0 * value / peak->value;
  params["peak"] = fmt::format("{:g}", peak->value);
  params["peak_source"] = peak->source;
  params["pct_of_peak"] = fmt::format("{:.1f}", pct);
  return pct;
}

std::string FormatPercent(const std::optional<double>& pct) {
  return pct ? fmt::format("{:.1f}", *pct) : "-";
}

Status BindThisThread(const CpuSet& cpus) {
  if (cpus.empty()) return Status::Invalid("no CPU to bind to");
  size_t ncpu = static_cast<size_t>(*cpus.ids().rbegin()) + 1;
  cpu_set_t* set = CPU_ALLOC(ncpu);
  if (set == nullptr) return Status::Internal("CPU_ALLOC failed");
  size_t bytes = CPU_ALLOC_SIZE(ncpu);
  CPU_ZERO_S(bytes, set);
  for (int c : cpus.ids()) CPU_SET_S(static_cast<size_t>(c), bytes, set);
  int rc = pthread_setaffinity_np(pthread_self(), bytes, set);
  CPU_FREE(set);
  if (rc != 0)
    return Status::Unsupported("cannot bind a thread to CPUs " + cpus.ToString() + ": " +
                               std::strerror(rc));
  return Status::Ok();
}

int GpuNumaNode(const BenchContext& ctx, const gpu::CudaDevice& device) {
  char bus_id[64] = {};
  if (device.api().cuDeviceGetPCIBusId(bus_id, sizeof(bus_id) - 1, device.device()) != CUDA_SUCCESS)
    return -1;
  std::string bdf(bus_id);
  std::transform(bdf.begin(), bdf.end(), bdf.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  const auto& topo = ctx.topology();
  if (!topo.ok()) return -1;
  const host::PciDevice* pci = topo->FindPci(bdf);
  return pci == nullptr ? -1 : pci->numa_node;
}

LaunchShape FullWave(const gpu::CudaDevice& device) {
  LaunchShape s;
  int sms = device.Attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  int threads = device.Attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
  int per_sm = std::max(1, threads / static_cast<int>(s.block));
  s.grid = static_cast<unsigned>(std::max(1, sms) * per_sm);
  return s;
}

Result<GpuTimer> GpuTimer::Create(const gpu::CudaDevice& device) {
  const gpu::CudaApi& api = device.api();
  YS_RETURN_IF_ERROR(device.MakeCurrent());
  GpuTimer t;
  t.device_ = &device;
  auto stream = gpu::CudaStream::Create(api);
  if (!stream.ok()) return stream.status();
  t.stream_ = std::move(*stream);
  for (gpu::CudaEvent* e : {&t.start_, &t.end_}) {
    auto made = gpu::CudaEvent::Create(api);
    if (!made.ok()) return made.status();
    *e = std::move(*made);
  }
  auto module = gpu::CudaModule::LoadPtx(api, gpu::BenchKernelsPtx());
  if (!module.ok()) return module.status();
  t.module_ = std::move(*module);
  for (auto [name, fn] :
       {std::pair{gpu::kCopyKernel, &t.copy_}, std::pair{gpu::kSpinKernel, &t.spin_},
        std::pair{gpu::kEmptyKernel, &t.empty_}}) {
    auto f = t.module_.Function(name);
    if (!f.ok()) return f.status();
    *fn = *f;
  }
  auto gate = gpu::PinnedHostBuffer::Allocate(api, 64,
                                              CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP);
  if (!gate.ok()) return gate.status();
  t.gate_ = std::move(*gate);
  std::memset(t.gate_.get(), 0, t.gate_.bytes());
  YS_CU_RETURN(api, cuMemHostGetDevicePointer(&t.gate_device_, t.gate_.get(), 0));
  t.wave_ = FullWave(device);
  // Run the gate once, released, so that its code is loaded (CUDA loads modules lazily) before
  // it ever holds a stream.
  *static_cast<uint32_t*>(t.gate_.get()) = 1;
  uint64_t no_wait = 0;
  void* args[] = {&t.gate_device_, &no_wait};
  YS_CU_RETURN(api, cuLaunchKernel(t.spin_, 1, 1, 1, 1, 1, 1, 0, t.stream_.get(), args, nullptr));
  YS_RETURN_IF_ERROR(t.stream_.Synchronize());
  return t;
}

Status GpuTimer::EnqueueSmCopy(CUdeviceptr dst, CUdeviceptr src, size_t bytes) const {
  if (bytes % 16 != 0)
    return Status::Invalid(fmt::format("SM copy of {} bytes: not a multiple of 16", bytes));
  uint64_t count = bytes / 16;
  void* args[] = {&dst, &src, &count};
  const gpu::CudaApi& api = device_->api();
  return api.Check(api.cuLaunchKernel(copy_, wave_.grid, 1, 1, wave_.block, 1, 1, 0, stream_.get(),
                                      args, nullptr),
                   "cuLaunchKernel(ys_copy16)");
}

Result<double> GpuTimer::OneSampleMs(int warmup, int iters,
                                     const std::function<Status()>& enqueue) {
  const gpu::CudaApi& api = device_->api();
  auto* flag = static_cast<uint32_t*>(gate_.get());
  std::atomic_ref<uint32_t>(*flag).store(0, std::memory_order_release);
  uint64_t timeout = kGateTimeoutNs;
  void* args[] = {&gate_device_, &timeout};
  YS_RETURN_IF_ERROR(
      api.Check(api.cuLaunchKernel(spin_, 1, 1, 1, 1, 1, 1, 0, stream_.get(), args, nullptr),
                "cuLaunchKernel(ys_spin_wait)"));
  auto held_since = std::chrono::steady_clock::now();
  Status queued = Status::Ok();
  for (int i = 0; i < warmup && queued.ok(); ++i) queued = enqueue();
  if (queued.ok()) queued = start_.Record(stream_);
  for (int i = 0; i < iters && queued.ok(); ++i) queued = enqueue();
  if (queued.ok()) queued = end_.Record(stream_);
  double held_ns =
      std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - held_since)
          .count();
  std::atomic_ref<uint32_t>(*flag).store(1, std::memory_order_release);  // release the stream
  if (!queued.ok()) {
    (void)stream_.Synchronize();  // drain what was queued before reporting
    return queued;
  }
  auto ms = gpu::CudaEvent::ElapsedMs(start_, end_);
  if (!ms.ok()) return ms.status();
  if (held_ns >= static_cast<double>(kGateTimeoutNs)) {
    return Status::Internal(
        "enqueueing took longer than the timing gate holds the stream; the sample is void");
  }
  return static_cast<double>(*ms);
}

Result<std::vector<double>> GpuTimer::SampleMsPerCall(int samples, int warmup, int iters,
                                                      const std::function<Status()>& enqueue) {
  if (iters < 1 || iters > kMaxGatedCalls || warmup < 0 || warmup > kMaxGatedCalls || samples < 1) {
    return Status::Invalid(
        fmt::format("timed calls per sample must be 1..{} (got {}), warm-up 0..{} (got {})",
                    kMaxGatedCalls, iters, kMaxGatedCalls, warmup));
  }
  YS_RETURN_IF_ERROR(device_->MakeCurrent());
  // One call ungated first: CUDA (and cuBLASLt) load kernels lazily at their first launch, and a
  // load that waits for the context while the gate holds the stream would stall until the gate
  // times out.
  YS_RETURN_IF_ERROR(enqueue());
  YS_RETURN_IF_ERROR(stream_.Synchronize());
  std::vector<double> out;
  for (int s = 0; s < samples; ++s) {
    auto ms = OneSampleMs(warmup, iters, enqueue);
    if (!ms.ok()) return ms.status();
    out.push_back(*ms / iters);
  }
  return out;
}

void FillPattern(void* host, size_t bytes, uint64_t seed) {
  uint64_t state = SeedState(seed);
  auto* p = static_cast<unsigned char*>(host);
  size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    uint64_t w = NextWord(state);
    std::memcpy(p + i, &w, 8);
  }
  if (i < bytes) {
    uint64_t w = NextWord(state);
    std::memcpy(p + i, &w, bytes - i);
  }
}

uint64_t CountPatternMismatches(const void* host, size_t bytes, uint64_t seed) {
  uint64_t state = SeedState(seed);
  const auto* p = static_cast<const unsigned char*>(host);
  uint64_t wrong = 0;
  size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    uint64_t w = NextWord(state), got;
    std::memcpy(&got, p + i, 8);
    wrong += got != w;
  }
  if (i < bytes) {
    uint64_t w = NextWord(state);
    wrong += std::memcmp(p + i, &w, bytes - i) != 0;
  }
  return wrong;
}

Status FillDevicePattern(const gpu::CudaApi& api, CUdeviceptr dst, size_t bytes, uint64_t seed,
                         const gpu::PinnedHostBuffer& staging) {
  if (staging.bytes() < bytes) return Status::Internal("staging buffer smaller than the copy");
  FillPattern(staging.get(), bytes, seed);
  YS_CU_RETURN(api, cuMemcpyHtoD(dst, staging.get(), bytes));
  return Status::Ok();
}

Result<uint64_t> CheckDevicePattern(const gpu::CudaApi& api, CUdeviceptr src, size_t bytes,
                                    uint64_t seed, const gpu::PinnedHostBuffer& staging) {
  if (staging.bytes() < bytes) return Status::Internal("staging buffer smaller than the copy");
  std::memset(staging.get(), 0, bytes);
  YS_CU_RETURN(api, cuMemcpyDtoH(staging.get(), src, bytes));
  return CountPatternMismatches(staging.get(), bytes, seed);
}

Finding CopyDataFinding(const std::string& entity, const std::string& what, uint64_t wrong_words,
                        size_t bytes) {
  Finding f;
  f.code = "YS-BENCH-021";
  f.severity = Severity::kFail;
  f.entity = entity;
  f.message = fmt::format("{}: destination differs from the source in {} of {} 8-byte words", what,
                          wrong_words, (bytes + 7) / 8);
  f.evidence = {{"copy", what},
                {"wrong_words", std::to_string(wrong_words)},
                {"bytes", std::to_string(bytes)}};
  f.fix =
      "rerun; if it repeats, run dcgmi diag -r 3 on this GPU and check ECC and XID counters "
      "(nvidia-smi -q -d ECC)";
  f.reference =
      "nvbandwidth verifies every copy against the source pattern (memcpy.cpp memcmpPattern)";
  return f;
}

std::vector<uint64_t> CopySizes(const BenchContext& ctx, uint64_t full, uint64_t quick) {
  std::vector<uint64_t> sizes = ctx.options().sizes
                                    ? ctx.options().sizes->Sizes()
                                    : std::vector<uint64_t>{ctx.quick() ? quick : full};
  std::vector<uint64_t> out;
  for (uint64_t s : sizes) {
    uint64_t rounded = s / 16 * 16;
    if (rounded > 0 && std::find(out.begin(), out.end(), rounded) == out.end())
      out.push_back(rounded);
  }
  return out;
}

}  // namespace ys::bench
