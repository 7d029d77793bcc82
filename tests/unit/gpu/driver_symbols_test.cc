// What each driver branch has, as the GPU code sees it: the CUDA driver table loaded from each
// branch's fake driver (the fallback symbol of the branches before R570), the branch named from
// the CUDA version, and the cuBLASLt library chosen for the driver.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpu/cublaslt.h"
#include "gpu/cuda_api.h"
#include "gpu/cuda_driver.h"
#include "gpu/dynamic_library.h"

namespace ys::gpu {
namespace driver_symbols_test {
namespace {

std::vector<std::string> FallbacksOf(const char* fake) {
  auto lib = DynamicLibrary::Open(fake);
  EXPECT_TRUE(lib.ok()) << lib.status().message();
  if (!lib.ok()) return {"(not opened)"};
  auto api = CudaApi::Load(*lib);
  EXPECT_TRUE(api.ok()) << api.status().message();
  return api.ok() ? api->fallbacks() : std::vector<std::string>{"(not loaded)"};
}

TEST(GpuDriverSymbolsTest, EveryBranchLoadsTheCudaTable) {
  const std::vector<std::string> v1 = {"cuEventElapsedTime_v2 -> cuEventElapsedTime"};
  EXPECT_EQ(FallbacksOf(YS_FAKE_CUDA_R535), v1);
  EXPECT_EQ(FallbacksOf(YS_FAKE_CUDA_R550), v1);
  EXPECT_EQ(FallbacksOf(YS_FAKE_CUDA_R570), std::vector<std::string>{});
  EXPECT_EQ(FallbacksOf(YS_FAKE_CUDA_R580), std::vector<std::string>{});
}

TEST(GpuDriverSymbolsTest, ALibraryWithoutTheSymbolsIsRefusedNamingThem) {
  auto lib = DynamicLibrary::Open("libc.so.6");
  ASSERT_TRUE(lib.ok());
  auto api = CudaApi::Load(*lib);
  ASSERT_FALSE(api.ok());
  EXPECT_EQ(api.status().code(), StatusCode::kUnsupported);
  EXPECT_EQ(api.status().message(), "libc.so.6 does not export cuInit (driver too old)");
}

TEST(GpuDriverSymbolsTest, TheBranchOfACudaVersion) {
  EXPECT_EQ(DriverBranchOf(12020), "R535");
  EXPECT_EQ(DriverBranchOf(12040), "R550");
  EXPECT_EQ(DriverBranchOf(12080), "R570");
  EXPECT_EQ(DriverBranchOf(13000), "R580");
  EXPECT_EQ(DriverBranchOf(12070), "R565");
  EXPECT_EQ(DriverBranchOf(11040), "");  // before the table
  EXPECT_EQ(DriverText(12020), "CUDA 12.2, R535");
  EXPECT_EQ(DriverText(11040), "CUDA 11.4");
}

TEST(GpuDriverSymbolsTest, CublasLt13OnlyForACuda13Driver) {
  const std::vector<std::string> only12 = {"libcublasLt.so.12"};
  const std::vector<std::string> both = {"libcublasLt.so.13", "libcublasLt.so.12"};
  EXPECT_EQ(CublasLtSonames(12020), only12);  // R535
  EXPECT_EQ(CublasLtSonames(12040), only12);  // R550
  EXPECT_EQ(CublasLtSonames(12080), only12);  // R570
  EXPECT_EQ(CublasLtSonames(12090), only12);  // R575
  EXPECT_EQ(CublasLtSonames(13000), both);    // R580
  EXPECT_EQ(CublasLtSonames(13010), both);
  EXPECT_EQ(CublasLtSonames(0), both);  // driver version unknown: the newest first
}

}  // namespace
}  // namespace driver_symbols_test
}  // namespace ys::gpu
