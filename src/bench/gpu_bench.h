// What the GPU benchmark units share (gemm.gpu, mem.gpu, copy.*, host.launch_latency): whether
// a GPU unit may run here and why not, which GPUs this process measures, the device spec of each
// and the % of peak, and one timer that times N repetitions of enqueued work with CUDA events
// and returns per-call samples whose median the units report.
//
// Timing (nvbandwidth's method, docs/gpu-diagnostics.md §copy-timing): the stream is
// held by a spin kernel while the warm-up and the timed calls are enqueued, so the host's enqueue
// cost is not timed; events bracket the timed calls; the gate is released; the elapsed time
// between the events is one sample. Several samples; the median is the figure.
//
// Not thread-safe: one GpuTimer per thread and device.
#ifndef YARDSTICK_BENCH_GPU_BENCH_H_
#define YARDSTICK_BENCH_GPU_BENCH_H_

#include <cuda.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bench/benchmark.h"
#include "bench/device_specs.h"
#include "core/cpu_set.h"
#include "gpu/cuda_api.h"

namespace ys::bench {

// The GPUs this process measures. With `one_per_local_rank` and a launcher that started several
// ranks on this node, the GPU of this local rank (NotFound when there is none); otherwise every
// visible GPU, in ordinal order.
Result<std::vector<int>> GpusToMeasure(const BenchContext& ctx, bool one_per_local_rank);

// The spec of a GPU model from <data>/specs, or why there is none (for the unit's summary).
struct SpecLookup {
  std::optional<DeviceSpec> spec;
  std::string why_not;  // empty when found
};
SpecLookup LookupSpec(const BenchContext& ctx, const std::string& gpu_name);

// Sets params "peak", "peak_source", "pct_of_peak" when `peak` is known, else "peak" = "unknown"
// and "peak_note" = why. Returns the percentage, if any.
std::optional<double> AddPeakParams(std::map<std::string, std::string>& params, double value,
                                    const std::optional<Peak>& peak,
                                    const std::string& why_unknown);

// "42.1" or "-" for the tables.
std::string FormatPercent(const std::optional<double>& pct);

// GB/s (decimal, as nvbandwidth and NVIDIA print them) of `bytes` moved once in `ms`.
inline double GBps(double bytes, double ms) { return ms > 0 ? bytes / (ms * 1e-3) / 1e9 : 0; }

// Binds the calling thread to `cpus` (placement of pinned host memory by first touch).
Status BindThisThread(const CpuSet& cpus);

// The NUMA node of a GPU, from the topology's PCI devices (-1 when unknown).
int GpuNumaNode(const BenchContext& ctx, const gpu::CudaDevice& device);

// The driver's name for "gpu<ordinal>" entities and params.
inline std::string GpuEntity(int ordinal) { return "gpu" + std::to_string(ordinal); }

// A grid that fills the device: one full wave of 512-thread blocks.
struct LaunchShape {
  unsigned grid = 1, block = 512;
};
LaunchShape FullWave(const gpu::CudaDevice& device);

class GpuTimer {
 public:
  // Creates the stream, the events and the gate on `device` (which must stay alive and current
  // while the timer is used), and loads the bench kernels.
  static Result<GpuTimer> Create(const gpu::CudaDevice& device);

  const gpu::CudaStream& stream() const { return stream_; }
  CUstream get() const { return stream_.get(); }
  const gpu::CudaDevice& device() const { return *device_; }
  // Entry points of gpu/ptx_kernels.h in this device's context.
  CUfunction copy_kernel() const { return copy_; }
  CUfunction empty_kernel() const { return empty_; }

  // Launches ys_copy16 on the timer's stream: `bytes` (a multiple of 16) from src to dst.
  Status EnqueueSmCopy(CUdeviceptr dst, CUdeviceptr src, size_t bytes) const;

  // Milliseconds per call of `enqueue`, one entry per sample: one call to load what it launches,
  // then per sample `warmup` untimed calls, then
  // `iters` calls between two events, behind the gate. `iters` is at most kMaxGatedCalls so that
  // the stream's launch queue cannot fill while the gate holds it.
  static constexpr int kMaxGatedCalls = 512;
  Result<std::vector<double>> SampleMsPerCall(int samples, int warmup, int iters,
                                              const std::function<Status()>& enqueue);

 private:
  GpuTimer() = default;
  Result<double> OneSampleMs(int warmup, int iters, const std::function<Status()>& enqueue);

  const gpu::CudaDevice* device_ = nullptr;
  gpu::CudaStream stream_;
  gpu::CudaEvent start_, end_;
  gpu::CudaModule module_;
  CUfunction copy_ = nullptr, spin_ = nullptr, empty_ = nullptr;
  gpu::PinnedHostBuffer gate_;  // one u32, mapped into the device
  CUdeviceptr gate_device_ = 0;
  LaunchShape wave_;
};

// The data check of every copy: the source is filled with a pseudo-random pattern (8-byte words
// from a seed), and after the timed copies the destination must hold it exactly.
void FillPattern(void* host, size_t bytes, uint64_t seed);
// 8-byte words of `host` that differ from the pattern of `seed` (a trailing partial word counts).
uint64_t CountPatternMismatches(const void* host, size_t bytes, uint64_t seed);
// Fills device memory with the pattern through `staging` (pinned, at least `bytes`).
Status FillDevicePattern(const gpu::CudaApi& api, CUdeviceptr dst, size_t bytes, uint64_t seed,
                         const gpu::PinnedHostBuffer& staging);
// Copies device memory back through `staging` and counts words differing from the pattern.
Result<uint64_t> CheckDevicePattern(const gpu::CudaApi& api, CUdeviceptr src, size_t bytes,
                                    uint64_t seed, const gpu::PinnedHostBuffer& staging);

// The Finding for a copy whose destination did not hold the source's bytes; every unit that calls
// it declares its code.
inline constexpr FindingCodeInfo kCopyDataMismatch{
    "YS-BENCH-021", Severity::kFail, "GPU copy delivered bytes that differ from the source"};
Finding CopyDataFinding(const std::string& entity, const std::string& what, uint64_t wrong_words,
                        size_t bytes);

// Sizes for a copy unit: --sizes when given, else `full` (or `quick` in the quick profile),
// each rounded down to a multiple of 16 bytes (the SM copy moves 16-byte elements).
std::vector<uint64_t> CopySizes(const BenchContext& ctx, uint64_t full, uint64_t quick);

// One way a copy benchmark moves its bytes, enqueued on the timer's stream: "ce" (a copy engine,
// the driver's memcpy) or "sm" (a copy kernel on the SMs).
struct CopyMethod {
  const char* name;
  std::function<Status()> enqueue;
};

}  // namespace ys::bench

#endif  // YARDSTICK_BENCH_GPU_BENCH_H_
