// Profiles, the CPU workers of a rank, and which loads a profile runs here (load.h).
#include "burnin/load.h"

#include <mutex>

#include "burnin/load_internal.h"
#include "comm/collectives.h"
#include "gpu/cuda_api.h"
#include "host/busy_core_clock.h"

namespace ys::burnin {

const char* ProfileName(Profile p) {
  switch (p) {
    case Profile::kCompute:
      return "compute";
    case Profile::kMemory:
      return "memory";
    case Profile::kNetwork:
      return "network";
    case Profile::kMixed:
      return "mixed";
  }
  return "?";
}

Result<Profile> ParseProfile(std::string_view text) {
  for (Profile p : {Profile::kCompute, Profile::kMemory, Profile::kNetwork, Profile::kMixed}) {
    if (text == ProfileName(p)) return p;
  }
  return Status::Invalid("--profile \"" + std::string(text) +
                         "\": expected compute, memory, network or mixed");
}

Result<int> UsableGpuCount() {
  static std::once_flag once;
  static Result<int> answer = Status::Internal("not asked");
  std::call_once(once, [] {
    auto api = gpu::CudaApi::Get();
    if (!api.ok()) {
      answer = api.status();
      return;
    }
    int count = 0;
    Status s = (*api)->Check((*api)->cuDeviceGetCount(&count), "cuDeviceGetCount");
    if (!s.ok()) {
      answer = s;
    } else if (count <= 0) {
      answer = Status::NotFound("the CUDA driver shows no GPU");
    } else {
      answer = count;
    }
  });
  return answer;
}

std::vector<int> GpuOrdinals(const LoadContext& ctx, int gpu_count) {
  if (gpu_count <= 0) return {};
  if (ctx.launch.launched()) return {ctx.launch.local_rank % gpu_count};
  std::vector<int> out;
  for (int i = 0; i < gpu_count; ++i) out.push_back(i);
  return out;
}

namespace {

// Whether this rank drives GPUs: --backend gpu, or auto with a usable GPU.
bool DrivesGpus(const LoadContext& ctx) {
  if (ctx.device == Device::kCpu) return false;
  if (ctx.device == Device::kGpu) return true;
  return UsableGpuCount().ok();
}

Status AppendLoad(Result<std::unique_ptr<Load>> load, std::vector<std::unique_ptr<Load>>& out) {
  if (!load.ok()) return load.status();
  out.push_back(std::move(*load));
  return Status::Ok();
}

}  // namespace

std::vector<int> CpuWorkers(const LoadContext& ctx) {
  if (DrivesGpus(ctx)) return {};
  if (ctx.launch.launched() && ctx.launch.local_rank != 0) return {};
  auto allowed = host::AllowedCpusOfThisProcess();
  if (!allowed.ok()) return {};
  return std::vector<int>(allowed->ids().begin(), allowed->ids().end());
}

Result<std::vector<std::unique_ptr<Load>>> MakeLoads(Profile profile, const LoadContext& ctx) {
  if (ctx.comm == nullptr) return Status::Internal("MakeLoads: no communicator");
  const int ranks = ctx.comm->size();
  // Every rank takes the same decision: GPUs only when every rank has one.
  auto gpus = UsableGpuCount();
  double every_rank = 1;
  if (ctx.device != Device::kCpu) {
    auto min = ctx.comm->AllReduceMin(gpus.ok() ? 1.0 : 0.0);
    if (!min.ok()) return min.status();
    every_rank = *min;
  }
  if (ctx.device == Device::kGpu && every_rank < 1) {
    std::string why = gpus.ok() ? "another rank of the job has none" : gpus.status().message();
    return Status::Invalid("--backend gpu: no usable GPU: " + why);
  }
  const bool use_gpu = ctx.device != Device::kCpu && every_rank >= 1;
  const bool network = profile == Profile::kNetwork || profile == Profile::kMixed;
  // The all_reduce's ranks: the job's, or every local GPU where one process drives them all.
  const int collective_ranks =
      use_gpu && comm::ChooseGpuLayout(ctx.launch, ranks, *gpus) == comm::GpuLayout::kOneProcess
          ? *gpus
          : ranks;
  if (profile == Profile::kNetwork && collective_ranks < 2) {
    return Status::Invalid(std::string("--profile network: ") + comm::kNothingToExchange);
  }
  std::vector<std::unique_ptr<Load>> loads;
  std::vector<int> ordinals = use_gpu ? GpuOrdinals(ctx, *gpus) : std::vector<int>{};
  std::vector<int> cpus = use_gpu ? std::vector<int>{} : CpuWorkers(ctx);
  if (profile == Profile::kCompute || profile == Profile::kMixed) {
    if (use_gpu) {
      YS_RETURN_IF_ERROR(AppendLoad(MakeGpuGemmLoad(ctx, ordinals), loads));
    } else if (!cpus.empty()) {
      YS_RETURN_IF_ERROR(AppendLoad(MakeCpuGemmLoad(ctx, cpus), loads));
    }
  }
  if (profile == Profile::kMemory || profile == Profile::kMixed) {
    if (use_gpu) {
      YS_RETURN_IF_ERROR(AppendLoad(MakeGpuMemoryLoad(ctx, ordinals), loads));
    } else if (!cpus.empty()) {
      YS_RETURN_IF_ERROR(AppendLoad(MakeCpuStreamLoad(ctx, cpus), loads));
    }
  }
  if (network && collective_ranks >= 2) {
    YS_RETURN_IF_ERROR(AppendLoad(MakeNetworkLoad(ctx, use_gpu), loads));
  }
  return loads;
}

}  // namespace ys::burnin
