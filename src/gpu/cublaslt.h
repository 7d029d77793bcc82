// cuBLASLt opened at run time (libcublasLt.so.13 on a CUDA 13 driver, else .so.12: see
// CublasLtSonames; $YARDSTICK_LIBCUBLASLT overrides), and one planned matmul D = A^T * B (the
// "TN" layout, column-major, which every precision here supports and FP8 requires on Hopper) with
// the algorithm chosen by cublasLtMatmulAlgoGetHeuristic.
//
// Precisions and their cuBLASLt types (inputs A, B; output D; compute; scale):
//   bf16: CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F,           CUDA_R_32F
//   fp16: CUDA_R_16F,  CUDA_R_16F,  CUBLAS_COMPUTE_32F,           CUDA_R_32F
//   tf32: CUDA_R_32F,  CUDA_R_32F,  CUBLAS_COMPUTE_32F_FAST_TF32, CUDA_R_32F
//   fp8:  CUDA_R_8F_E4M3, CUDA_R_16BF, CUBLAS_COMPUTE_32F,        CUDA_R_32F, with per-tensor
//         A and B scale pointers (device floats) as the FP8 path requires; compute capability
//         8.9 or later.
// The table is read-only after Get(); the RAII classes are move-only and not thread-safe.
#ifndef YARDSTICK_GPU_CUBLASLT_H_
#define YARDSTICK_GPU_CUBLASLT_H_

#include <cublasLt.h>
#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "gpu/dynamic_library.h"

namespace ys::gpu {

// clang-format off
#define YS_CUBLASLT_FUNCTIONS(X)                                                                   \
  X(cublasLtCreate)                                                                                \
  X(cublasLtDestroy)                                                                               \
  X(cublasLtGetVersion)                                                                            \
  X(cublasLtGetStatusString)                                                                       \
  X(cublasLtMatmulDescCreate)                                                                      \
  X(cublasLtMatmulDescDestroy)                                                                     \
  X(cublasLtMatmulDescSetAttribute)                                                                \
  X(cublasLtMatrixLayoutCreate)                                                                    \
  X(cublasLtMatrixLayoutDestroy)                                                                   \
  X(cublasLtMatmulPreferenceCreate)                                                                \
  X(cublasLtMatmulPreferenceDestroy)                                                               \
  X(cublasLtMatmulPreferenceSetAttribute)                                                          \
  X(cublasLtMatmulAlgoGetHeuristic)                                                                \
  X(cublasLtMatmul)
// clang-format on

#define YS_CUBLASLT_DECLARE_(name) decltype(&::name) name = nullptr;

struct CublasLtApi {
  YS_CUBLASLT_FUNCTIONS(YS_CUBLASLT_DECLARE_)

  // The process-wide table, from the first of CublasLtSonames(<the driver's CUDA version>) that
  // opens ($YARDSTICK_LIBCUBLASLT overrides). NotFound("cuBLASLt not found (driver for CUDA 12.2,
  // R535): <dlerror of each name tried>"), or naming libcublasLt.so.13 when only that is there
  // and the driver is too old for it; Unsupported naming a missing symbol.
  static Result<const CublasLtApi*> Get();
  // Opens a given library file (tests; Get() uses it).
  static Result<CublasLtApi> Open(const std::string& file);

  const std::string& library() const { return library_name_; }
  // OK, or Io("<what>: CUBLAS_STATUS_... (<text>)").
  Status Check(cublasStatus_t rc, const char* what) const;

 private:
  std::string library_name_;
  std::shared_ptr<DynamicLibrary> library_;
};

#undef YS_CUBLASLT_DECLARE_

// The oldest driver (cuDriverGetVersion) that runs libcublasLt.so.13: CUDA 13.0, branch R580
// (cuBLAS 13 is built for the CUDA 13 runtime, which minor-version compatibility lets run only on
// a CUDA 13 driver). libcublasLt.so.12 runs on any driver for CUDA 12.x (R525 and later).
inline constexpr int kCublasLt13MinDriver = 13000;

// The sonames CublasLtApi::Get() tries, in order, for a driver supporting CUDA `driver_version`
// (0: unknown): libcublasLt.so.13 then .so.12 for a CUDA 13 driver or an unknown one;
// libcublasLt.so.12 alone for an older driver (R535 to R575), where .so.13 would open but fail.
std::vector<std::string> CublasLtSonames(int driver_version);

enum class GemmPrecision { kBf16, kFp16, kTf32, kFp8E4m3 };
inline constexpr GemmPrecision kAllGemmPrecisions[] = {
    GemmPrecision::kBf16, GemmPrecision::kFp16, GemmPrecision::kTf32, GemmPrecision::kFp8E4m3};
// "bf16", "fp16", "tf32", "fp8" (the specs' [peak_dense_tflops] keys).
const char* GemmPrecisionName(GemmPrecision p);
// Bytes per element of A and B, and of D.
size_t GemmInputBytes(GemmPrecision p);
size_t GemmOutputBytes(GemmPrecision p);
// Compute capability (major*10+minor) the precision needs on the tensor cores.
int GemmMinComputeCapability(GemmPrecision p);

struct GemmShape {
  int64_t m = 0, n = 0, k = 0;
  // 2*m*n*k: one multiply and one add per term (the convention of every TFLOPS figure).
  double Flops() const {
    return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  }
  size_t BytesA(GemmPrecision p) const { return static_cast<size_t>(k * m) * GemmInputBytes(p); }
  size_t BytesB(GemmPrecision p) const { return static_cast<size_t>(k * n) * GemmInputBytes(p); }
  size_t BytesD(GemmPrecision p) const { return static_cast<size_t>(m * n) * GemmOutputBytes(p); }
};

// TFLOPS of `flops` done in `ms` milliseconds.
inline double Tflops(double flops, double ms) { return ms > 0 ? flops / (ms * 1e-3) / 1e12 : 0; }

// A cuBLASLt handle (cublasLtCreate) for the current CUDA context.
class CublasLtHandle {
 public:
  static Result<CublasLtHandle> Create(const CublasLtApi& api);
  CublasLtHandle() = default;
  CublasLtHandle(CublasLtHandle&& o) noexcept { *this = std::move(o); }
  CublasLtHandle& operator=(CublasLtHandle&& o) noexcept;
  ~CublasLtHandle();
  cublasLtHandle_t get() const { return handle_; }
  const CublasLtApi& api() const { return *api_; }

 private:
  const CublasLtApi* api_ = nullptr;
  cublasLtHandle_t handle_ = nullptr;
};

// D(m x n) = alpha * A(k x m)^T * B(k x n), column-major with leading dimensions k, k, m; beta 0.
// Holds its descriptors and the chosen algorithm; Enqueue() may be called any number of times.
class GemmPlan {
 public:
  // NotFound when the heuristic offers no algorithm for this shape and precision.
  // `scale_a`, `scale_b`: device pointers to one float each (FP8 only; ignored otherwise).
  static Result<GemmPlan> Create(const CublasLtHandle& handle, GemmPrecision precision,
                                 GemmShape shape, size_t workspace_bytes, uint64_t scale_a = 0,
                                 uint64_t scale_b = 0);
  GemmPlan() = default;
  GemmPlan(GemmPlan&& o) noexcept { *this = std::move(o); }
  GemmPlan& operator=(GemmPlan&& o) noexcept;
  ~GemmPlan();

  Status Enqueue(uint64_t a, uint64_t b, uint64_t d, uint64_t workspace, CUstream stream) const;
  // wavesCount of the chosen algorithm (a device-utilisation hint from the heuristic).
  float waves() const { return waves_; }
  size_t workspace_bytes() const { return workspace_bytes_; }

 private:
  const CublasLtApi* api_ = nullptr;  // borrowed; the handle must outlive the plan
  cublasLtHandle_t handle_ = nullptr;
  cublasLtMatmulDesc_t op_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr, b_ = nullptr, d_ = nullptr;
  cublasLtMatmulAlgo_t algo_{};
  size_t workspace_bytes_ = 0;
  float waves_ = 0;
};

}  // namespace ys::gpu

#endif  // YARDSTICK_GPU_CUBLASLT_H_
