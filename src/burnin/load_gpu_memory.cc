// memory.gpu: device-to-device copy of a deterministic pattern on every GPU this process drives,
// with mem.gpu's SM copy kernel (ys_copy16) timed by bench/gpu_bench.h's event timer, and the
// destination checked word for word against the pattern after every timed batch (mem.gpu's
// FillDevicePattern / CheckDevicePattern). Rate: GB/s = bytes copied / time (nvbandwidth's
// convention; HBM moves twice that). The digest is the SHA-256 of the pattern.
//
// Needs a GPU: compiled everywhere, chosen by MakeLoads only when UsableGpuCount() finds one.
#include <fmt/format.h>

#include "bench/gpu_bench.h"
#include "burnin/digest.h"
#include "burnin/load_internal.h"
#include "gpu/cuda_api.h"

namespace ys::burnin {
namespace {

constexpr uint64_t kDefaultBytes = 256ULL << 20;
constexpr uint64_t kSeed = 0x6275726e696eull;  // "burnin"
constexpr int kCopiesPerCheck = 16;
constexpr size_t kFlipWord = 17;  // the 8-byte word a planted fault changes

struct GpuState {
  std::unique_ptr<gpu::CudaDevice> dev;
  std::unique_ptr<bench::GpuTimer> timer;
  gpu::DeviceBuffer src, dst;
  gpu::PinnedHostBuffer staging;
};

class GpuMemoryLoad final : public PerGpuLoad {
 public:
  GpuMemoryLoad(const LoadContext& ctx, std::vector<int> ordinals, uint64_t bytes)
      : PerGpuLoad(ctx, std::move(ordinals), "copy", "GB/s"),
        bytes_(bytes),
        gpus_(ordinals_.size()) {}

  std::string_view name() const override { return "memory.gpu"; }

  Status Init() {
    std::vector<unsigned char> pattern(bytes_);
    bench::FillPattern(pattern.data(), bytes_, kSeed);
    auto digest = Sha256Hex(pattern.data(), pattern.size());
    if (!digest.ok()) return digest.status();
    digest_ = *digest;
    flip_byte_ = pattern[(kFlipWord * 8) % bytes_] ^ 1;
    return InitEach([&](int i) { return InitGpu(i); });
  }

 protected:
  std::string Digest(int) const override { return digest_; }

  Status Iterate(int worker, bool flip, double& rate, std::string& mismatch) override {
    GpuState& g = gpus_[worker];
    YS_RETURN_IF_ERROR(g.dev->MakeCurrent());
    const gpu::CudaApi& api = g.dev->api();
    CUdeviceptr s = g.src.get(), d = g.dst.get();
    YS_CU_RETURN(api, cuMemsetD8Async(d, 0, bytes_, g.timer->get()));
    auto ms = g.timer->SampleMsPerCall(1, 0, kCopiesPerCheck,
                                       [&] { return g.timer->EnqueueSmCopy(d, s, bytes_); });
    if (!ms.ok()) return ms.status();
    rate = bench::GBps(static_cast<double>(bytes_), ms->front());
    if (flip) {
      YS_CU_RETURN(api,
                   cuMemsetD8Async(d + (kFlipWord * 8) % bytes_, flip_byte_, 1, g.timer->get()));
    }
    YS_RETURN_IF_ERROR(g.timer->stream().Synchronize());
    auto wrong = bench::CheckDevicePattern(api, d, bytes_, kSeed, g.staging);
    if (!wrong.ok()) return wrong.status();
    if (*wrong > 0) {
      mismatch = fmt::format("{} of {} 8-byte words differ from the copied pattern", *wrong,
                             (bytes_ + 7) / 8);
    }
    return Status::Ok();
  }

 private:
  Status InitGpu(int i) {
    GpuState& g = gpus_[i];
    auto dev = gpu::CudaDevice::Open(ordinals_[i]);
    if (!dev.ok()) return dev.status();
    g.dev = std::make_unique<gpu::CudaDevice>(std::move(*dev));
    YS_RETURN_IF_ERROR(g.dev->MakeCurrent());
    const gpu::CudaApi& api = g.dev->api();
    auto timer = bench::GpuTimer::Create(*g.dev);
    if (!timer.ok()) return timer.status();
    g.timer = std::make_unique<bench::GpuTimer>(std::move(*timer));
    auto src = gpu::DeviceBuffer::Allocate(api, bytes_);
    if (!src.ok()) return src.status();
    g.src = std::move(*src);
    auto dst = gpu::DeviceBuffer::Allocate(api, bytes_);
    if (!dst.ok()) return dst.status();
    g.dst = std::move(*dst);
    auto staging = gpu::PinnedHostBuffer::Allocate(api, bytes_);
    if (!staging.ok()) return staging.status();
    g.staging = std::move(*staging);
    return bench::FillDevicePattern(api, g.src.get(), bytes_, kSeed, g.staging);
  }

  const uint64_t bytes_;
  std::vector<GpuState> gpus_;
  std::string digest_;
  unsigned char flip_byte_ = 0;
};

}  // namespace

Result<std::unique_ptr<Load>> MakeGpuMemoryLoad(const LoadContext& ctx,
                                                const std::vector<int>& gpus) {
  if (gpus.empty()) return Status::Invalid("memory.gpu: no GPU to load");
  // The SM copy moves 16-byte elements.
  uint64_t bytes = (ctx.stream_bytes > 0 ? ctx.stream_bytes : kDefaultBytes) / 16 * 16;
  if (bytes == 0) return Status::Invalid("memory.gpu: a copy of fewer than 16 bytes");
  auto load = std::make_unique<GpuMemoryLoad>(ctx, gpus, bytes);
  YS_RETURN_IF_ERROR(load->Init());
  return std::unique_ptr<Load>(std::move(load));
}

}  // namespace ys::burnin
