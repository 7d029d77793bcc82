// compute.gpu: cuBLASLt BF16 GEMM (gemm.gpu's plan and inputs: gpu/cublaslt.h,
// bench/gemm/internal/gpu_gemm_data.h) on every GPU this process drives, one host thread per GPU.
// Each check times kGemmsPerCheck GEMMs into the same output with CUDA events (bench/gpu_bench.h's
// timer), copies the output back and compares it bit for bit with the first output computed on
// that GPU; the SHA-256 of that first output is the digest, equal across GPUs, ranks and nodes
// of the same model when the GEMM is deterministic.
//
// Needs a GPU: on this project's build machines it compiles and is chosen only when
// UsableGpuCount() finds one (MakeLoads), so its run-time paths are exercised on GPU nodes only.
#include <fmt/format.h>

#include <bit>
#include <cstring>

#include "bench/bitwise_compare.h"
#include "bench/gemm/internal/gpu_gemm_data.h"
#include "bench/gpu_bench.h"
#include "burnin/digest.h"
#include "burnin/load_internal.h"
#include "gpu/cublaslt.h"
#include "gpu/cuda_api.h"

namespace ys::burnin {
namespace {

constexpr int kDefaultN = 8192;
constexpr int kGemmsPerCheck = 16;
constexpr size_t kWorkspaceBytes = 32u << 20;
constexpr uint64_t kSeedA = 11;
constexpr uint64_t kSeedB = 12;
constexpr size_t kFlipElement = 17;
constexpr gpu::GemmPrecision kPrecision = gpu::GemmPrecision::kBf16;

struct GpuState {
  std::unique_ptr<gpu::CudaDevice> dev;
  std::unique_ptr<bench::GpuTimer> timer;
  gpu::CublasLtHandle handle;
  gpu::DeviceBuffer a, b, d, workspace;
  gpu::GemmPlan plan;
  std::vector<unsigned char> reference, out;
  std::string digest;
};

Status Upload(const gpu::CudaApi& api, CUdeviceptr dst, size_t bytes,
              const std::vector<unsigned char>& tile) {
  for (size_t off = 0; off < bytes; off += tile.size()) {
    YS_CU_RETURN(api, cuMemcpyHtoD(dst + off, tile.data(), std::min(tile.size(), bytes - off)));
  }
  return Status::Ok();
}

class GpuGemmLoad final : public PerGpuLoad {
 public:
  GpuGemmLoad(const LoadContext& ctx, std::vector<int> ordinals, int n)
      : PerGpuLoad(ctx, std::move(ordinals), "gemm.bf16", "TFLOPS"),
        shape_{n, n, n},
        gpus_(ordinals_.size()) {}

  std::string_view name() const override { return "compute.gpu"; }

  Status Init(const gpu::CublasLtApi& lt) {
    const auto a_tile = bench::MakeGemmInputTile(kPrecision, kSeedA);
    const auto b_tile = bench::MakeGemmInputTile(kPrecision, kSeedB);
    return InitEach([&](int i) { return InitGpu(lt, i, a_tile, b_tile); });
  }

 protected:
  std::string Digest(int worker) const override { return gpus_[worker].digest; }

  Status Iterate(int worker, bool flip, double& rate, std::string& mismatch) override {
    GpuState& g = gpus_[worker];
    YS_RETURN_IF_ERROR(g.dev->MakeCurrent());
    auto ms = g.timer->SampleMsPerCall(1, 0, kGemmsPerCheck, [&] { return Enqueue(g); });
    if (!ms.ok()) return ms.status();
    rate = gpu::Tflops(shape_.Flops(), ms->front());
    YS_RETURN_IF_ERROR(Download(g, g.out));
    if (flip) g.out[kFlipElement * 2 % g.out.size()] ^= 1;  // lowest bit of one bf16 element
    auto m = bench::FindBitMismatch(g.reference.data(), g.out.data(), g.out.size() / 2, 2);
    if (m) mismatch = bench::DescribeBitMismatch(*m, 2);
    return Status::Ok();
  }

 private:
  Status Enqueue(const GpuState& g) const {
    return g.plan.Enqueue(g.a.get(), g.b.get(), g.d.get(), g.workspace.get(), g.timer->get());
  }

  Status Download(const GpuState& g, std::vector<unsigned char>& out) const {
    const gpu::CudaApi& api = g.dev->api();
    YS_RETURN_IF_ERROR(g.timer->stream().Synchronize());
    out.resize(shape_.BytesD(kPrecision));
    YS_CU_RETURN(api, cuMemcpyDtoH(out.data(), g.d.get(), out.size()));
    return Status::Ok();
  }

  Status InitGpu(const gpu::CublasLtApi& lt, int i, const std::vector<unsigned char>& a_tile,
                 const std::vector<unsigned char>& b_tile) {
    GpuState& g = gpus_[i];
    auto dev = gpu::CudaDevice::Open(ordinals_[i]);
    if (!dev.ok()) return dev.status();
    g.dev = std::make_unique<gpu::CudaDevice>(std::move(*dev));
    YS_RETURN_IF_ERROR(g.dev->MakeCurrent());
    const gpu::CudaApi& api = g.dev->api();
    const int cc = g.dev->Attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) * 10 +
                   g.dev->Attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    if (cc < gpu::GemmMinComputeCapability(kPrecision)) {
      return Status::Unsupported(
          fmt::format("BF16 tensor cores need compute capability {}, {} has {}",
                      gpu::GemmMinComputeCapability(kPrecision), g.dev->name(), cc));
    }
    auto timer = bench::GpuTimer::Create(*g.dev);
    if (!timer.ok()) return timer.status();
    g.timer = std::make_unique<bench::GpuTimer>(std::move(*timer));
    auto handle = gpu::CublasLtHandle::Create(lt);
    if (!handle.ok()) return handle.status();
    g.handle = std::move(*handle);
    for (auto [buf, bytes] :
         {std::pair{&g.a, shape_.BytesA(kPrecision)}, std::pair{&g.b, shape_.BytesB(kPrecision)},
          std::pair{&g.d, shape_.BytesD(kPrecision)}, std::pair{&g.workspace, kWorkspaceBytes}}) {
      auto b = gpu::DeviceBuffer::Allocate(api, bytes);
      if (!b.ok()) return b.status();
      *buf = std::move(*b);
    }
    YS_RETURN_IF_ERROR(Upload(api, g.a.get(), shape_.BytesA(kPrecision), a_tile));
    YS_RETURN_IF_ERROR(Upload(api, g.b.get(), shape_.BytesB(kPrecision), b_tile));
    auto plan = gpu::GemmPlan::Create(g.handle, kPrecision, shape_, kWorkspaceBytes);
    if (!plan.ok()) return plan.status();
    g.plan = std::move(*plan);
    // The reference: this GPU's first output.
    YS_RETURN_IF_ERROR(Enqueue(g));
    YS_RETURN_IF_ERROR(Download(g, g.reference));
    auto digest = Sha256Hex(g.reference.data(), g.reference.size());
    if (!digest.ok()) return digest.status();
    g.digest = *digest;
    return Status::Ok();
  }

  const gpu::GemmShape shape_;
  std::vector<GpuState> gpus_;
};

}  // namespace

Result<std::unique_ptr<Load>> MakeGpuGemmLoad(const LoadContext& ctx,
                                              const std::vector<int>& gpus) {
  if (gpus.empty()) return Status::Invalid("compute.gpu: no GPU to load");
  auto lt = gpu::CublasLtApi::Get();
  if (!lt.ok()) return lt.status();
  int n = ctx.gemm_n > 0 ? ctx.gemm_n : kDefaultN;
  auto load = std::make_unique<GpuGemmLoad>(ctx, gpus, n);
  YS_RETURN_IF_ERROR(load->Init(**lt));
  return std::unique_ptr<Load>(std::move(load));
}

}  // namespace ys::burnin
