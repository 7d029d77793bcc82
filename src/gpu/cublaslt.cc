#include "gpu/cublaslt.h"

#include <cstdlib>
#include <mutex>
#include <vector>

#include "gpu/cuda_driver.h"

namespace ys::gpu {
namespace {

#define YS_LT_STR_(x) #x

constexpr const char* kSoname13 = "libcublasLt.so.13";
constexpr const char* kSoname12 = "libcublasLt.so.12";

struct TypeSet {
  cudaDataType_t in, out, scale;
  cublasComputeType_t compute;
};

TypeSet TypesOf(GemmPrecision p) {
  switch (p) {
    case GemmPrecision::kBf16:
      return {CUDA_R_16BF, CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F};
    case GemmPrecision::kFp16:
      return {CUDA_R_16F, CUDA_R_16F, CUDA_R_32F, CUBLAS_COMPUTE_32F};
    case GemmPrecision::kTf32:
      return {CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32};
    case GemmPrecision::kFp8E4m3:
      return {CUDA_R_8F_E4M3, CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F};
  }
  return {CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F};
}

}  // namespace

const char* GemmPrecisionName(GemmPrecision p) {
  switch (p) {
    case GemmPrecision::kBf16:
      return "bf16";
    case GemmPrecision::kFp16:
      return "fp16";
    case GemmPrecision::kTf32:
      return "tf32";
    case GemmPrecision::kFp8E4m3:
      return "fp8";
  }
  return "?";
}

size_t GemmInputBytes(GemmPrecision p) {
  switch (p) {
    case GemmPrecision::kBf16:
    case GemmPrecision::kFp16:
      return 2;
    case GemmPrecision::kTf32:
      return 4;
    case GemmPrecision::kFp8E4m3:
      return 1;
  }
  return 0;
}

size_t GemmOutputBytes(GemmPrecision p) { return p == GemmPrecision::kTf32 ? 4 : 2; }

int GemmMinComputeCapability(GemmPrecision p) {
  // Tensor-core BF16/TF32 arrived with Ampere (8.0); FP8 with Ada and Hopper (8.9, 9.0).
  return p == GemmPrecision::kFp8E4m3 ? 89 : 80;
}

Result<CublasLtApi> CublasLtApi::Open(const std::string& file) {
  auto lib = DynamicLibrary::Open(file);
  if (!lib.ok()) return lib.status();
  CublasLtApi api;
  api.library_name_ = file;
  api.library_ = std::make_shared<DynamicLibrary>(std::move(*lib));
#define YS_CUBLASLT_LOAD_(fn)                                       \
  api.fn = api.library_->Function<decltype(&::fn)>(YS_LT_STR_(fn)); \
  if (api.fn == nullptr) return Status::Unsupported(file + " does not export " YS_LT_STR_(fn));
  YS_CUBLASLT_FUNCTIONS(YS_CUBLASLT_LOAD_)
#undef YS_CUBLASLT_LOAD_
  return api;
}

std::vector<std::string> CublasLtSonames(int driver_version) {
  if (driver_version > 0 && driver_version < kCublasLt13MinDriver) return {kSoname12};
  return {kSoname13, kSoname12};
}

namespace {

// Opens the first of `names` that opens and exports the table. A library that opens but is not
// usable (a missing entry point) ends the search with that error. `by_driver`: the names are
// CublasLtSonames(driver_version), not the operator's choice.
Result<CublasLtApi> OpenFirst(const std::vector<std::string>& names, int driver_version,
                              bool by_driver) {
  std::string why;
  for (const std::string& n : names) {
    auto opened = CublasLtApi::Open(n);
    if (opened.ok() || opened.status().code() != StatusCode::kNotFound) return opened;
    why += (why.empty() ? "" : "; ") + opened.status().message();
  }
  std::string driver =
      driver_version > 0 ? " (driver for " + DriverText(driver_version) + ")" : std::string();
  // The CUDA 13 library is there but this driver cannot run it: say so, rather than "not found".
  if (by_driver && driver_version > 0 && driver_version < kCublasLt13MinDriver &&
      DynamicLibrary::Open(kSoname13).ok()) {
    return Status::NotFound(std::string(kSoname13) +
                            " needs a driver for CUDA 13.0 (R580) or later" + driver + ", and " +
                            kSoname12 + " is not installed: " + why);
  }
  return Status::NotFound("cuBLASLt not found" + driver + ": " + why);
}

}  // namespace

Result<const CublasLtApi*> CublasLtApi::Get() {
  static std::once_flag once;
  static Result<const CublasLtApi*> result = Status::Internal("unset");
  static CublasLtApi api;
  std::call_once(once, [] {
    auto version = CudaDriverVersion(CudaDriverLibraryName());
    int driver_version = version.ok() ? *version : 0;
    const char* override_name = std::getenv("YARDSTICK_LIBCUBLASLT");
    const bool by_driver = override_name == nullptr || *override_name == '\0';
    std::vector<std::string> names =
        by_driver ? CublasLtSonames(driver_version) : std::vector<std::string>{override_name};
    auto opened = OpenFirst(names, driver_version, by_driver);
    if (!opened.ok()) {
      result = opened.status();
      return;
    }
    api = std::move(*opened);
    result = static_cast<const CublasLtApi*>(&api);
  });
  return result;
}

Status CublasLtApi::Check(cublasStatus_t rc, const char* what) const {
  if (rc == CUBLAS_STATUS_SUCCESS) return Status::Ok();
  std::string message =
      std::string(what) + ": cublasStatus " + std::to_string(static_cast<int>(rc));
  if (cublasLtGetStatusString != nullptr) {
    if (const char* text = cublasLtGetStatusString(rc); text != nullptr)
      message += " (" + std::string(text) + ")";
  }
  return Status::Io(message);
}

#define YS_LT_RETURN(api, call) YS_RETURN_IF_ERROR((api).Check((api).call, #call))

Result<CublasLtHandle> CublasLtHandle::Create(const CublasLtApi& api) {
  CublasLtHandle h;
  h.api_ = &api;
  YS_LT_RETURN(api, cublasLtCreate(&h.handle_));
  return h;
}

CublasLtHandle& CublasLtHandle::operator=(CublasLtHandle&& o) noexcept {
  std::swap(api_, o.api_);
  std::swap(handle_, o.handle_);
  return *this;
}

CublasLtHandle::~CublasLtHandle() {
  if (handle_ != nullptr) api_->cublasLtDestroy(handle_);
}

Result<GemmPlan> GemmPlan::Create(const CublasLtHandle& handle, GemmPrecision precision,
                                  GemmShape shape, size_t workspace_bytes, uint64_t scale_a,
                                  uint64_t scale_b) {
  const CublasLtApi& api = handle.api();
  if (shape.m <= 0 || shape.n <= 0 || shape.k <= 0)
    return Status::Invalid("GEMM shape must be positive");
  if (precision == GemmPrecision::kFp8E4m3 && (scale_a == 0 || scale_b == 0)) {
    return Status::Invalid("FP8 GEMM needs the A and B scale pointers");
  }
  TypeSet t = TypesOf(precision);
  GemmPlan plan;
  plan.api_ = &api;
  plan.handle_ = handle.get();
  plan.workspace_bytes_ = workspace_bytes;
  YS_LT_RETURN(api, cublasLtMatmulDescCreate(&plan.op_, t.compute, t.scale));
  const int32_t trans_a = CUBLAS_OP_T, trans_b = CUBLAS_OP_N;
  YS_LT_RETURN(api, cublasLtMatmulDescSetAttribute(plan.op_, CUBLASLT_MATMUL_DESC_TRANSA, &trans_a,
                                                   sizeof(trans_a)));
  YS_LT_RETURN(api, cublasLtMatmulDescSetAttribute(plan.op_, CUBLASLT_MATMUL_DESC_TRANSB, &trans_b,
                                                   sizeof(trans_b)));
  if (precision == GemmPrecision::kFp8E4m3) {
    // The attribute value is the device pointer itself (const float*).
    const void* pa = reinterpret_cast<const void*>(scale_a);
    const void* pb = reinterpret_cast<const void*>(scale_b);
    YS_LT_RETURN(api, cublasLtMatmulDescSetAttribute(plan.op_, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER,
                                                     &pa, sizeof(pa)));
    YS_LT_RETURN(api, cublasLtMatmulDescSetAttribute(plan.op_, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER,
                                                     &pb, sizeof(pb)));
  }
  // A is stored k x m (op T), B k x n (op N), D m x n; column-major.
  YS_LT_RETURN(api, cublasLtMatrixLayoutCreate(&plan.a_, t.in, static_cast<uint64_t>(shape.k),
                                               static_cast<uint64_t>(shape.m), shape.k));
  YS_LT_RETURN(api, cublasLtMatrixLayoutCreate(&plan.b_, t.in, static_cast<uint64_t>(shape.k),
                                               static_cast<uint64_t>(shape.n), shape.k));
  YS_LT_RETURN(api, cublasLtMatrixLayoutCreate(&plan.d_, t.out, static_cast<uint64_t>(shape.m),
                                               static_cast<uint64_t>(shape.n), shape.m));
  cublasLtMatmulPreference_t pref = nullptr;
  YS_LT_RETURN(api, cublasLtMatmulPreferenceCreate(&pref));
  cublasLtMatmulHeuristicResult_t found{};
  int returned = 0;
  uint64_t ws = workspace_bytes;
  cublasStatus_t rc = api.cublasLtMatmulPreferenceSetAttribute(
      pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws));
  if (rc == CUBLAS_STATUS_SUCCESS) {
    // C and D share the layout (beta is 0, C is D).
    rc = api.cublasLtMatmulAlgoGetHeuristic(handle.get(), plan.op_, plan.a_, plan.b_, plan.d_,
                                            plan.d_, pref, 1, &found, &returned);
  }
  api.cublasLtMatmulPreferenceDestroy(pref);
  YS_RETURN_IF_ERROR(api.Check(rc, "cublasLtMatmulAlgoGetHeuristic"));
  if (returned == 0 || found.state != CUBLAS_STATUS_SUCCESS) {
    return Status::NotFound(std::string("cuBLASLt offers no algorithm for ") +
                            GemmPrecisionName(precision) + " " + std::to_string(shape.m) + "x" +
                            std::to_string(shape.n) + "x" + std::to_string(shape.k));
  }
  plan.algo_ = found.algo;
  plan.waves_ = found.wavesCount;
  return plan;
}

GemmPlan& GemmPlan::operator=(GemmPlan&& o) noexcept {
  std::swap(api_, o.api_);
  std::swap(handle_, o.handle_);
  std::swap(op_, o.op_);
  std::swap(a_, o.a_);
  std::swap(b_, o.b_);
  std::swap(d_, o.d_);
  std::swap(algo_, o.algo_);
  std::swap(workspace_bytes_, o.workspace_bytes_);
  std::swap(waves_, o.waves_);
  return *this;
}

GemmPlan::~GemmPlan() {
  if (api_ == nullptr) return;
  const CublasLtApi& api = *api_;
  if (d_ != nullptr) api.cublasLtMatrixLayoutDestroy(d_);
  if (b_ != nullptr) api.cublasLtMatrixLayoutDestroy(b_);
  if (a_ != nullptr) api.cublasLtMatrixLayoutDestroy(a_);
  if (op_ != nullptr) api.cublasLtMatmulDescDestroy(op_);
}

Status GemmPlan::Enqueue(uint64_t a, uint64_t b, uint64_t d, uint64_t workspace,
                         CUstream stream) const {
  const CublasLtApi& api = *api_;
  const float alpha = 1.0f, beta = 0.0f;  // host pointers: the descriptor's default pointer mode
  void* dp = reinterpret_cast<void*>(d);
  return api.Check(
      api.cublasLtMatmul(handle_, op_, &alpha, reinterpret_cast<const void*>(a), a_,
                         reinterpret_cast<const void*>(b), b_, &beta, dp, d_, dp, d_, &algo_,
                         reinterpret_cast<void*>(workspace), workspace_bytes_, stream),
      "cublasLtMatmul");
}

}  // namespace ys::gpu
