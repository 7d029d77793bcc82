// The GPU benchmark units without a GPU: their arithmetic, data checks, PTX (assembled by ptxas
// when the toolkit is installed), the cuBLASLt symbol table, and their skip reasons. The tests
// named *Gpu*Live* need a GPU and check shapes and ranges only (ctest label "gpu").
#include "bench/gpu_bench.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include "bench/benchmark.h"
#include "bench/gemm/internal/gpu_gemm_data.h"
#include "bench/runner.h"
#include "comm/communicator.h"
#include "gpu/cublaslt.h"
#include "gpu/cuda_api.h"
#include "gpu/ptx_kernels.h"

namespace ys::bench {
namespace {

using gpu::GemmPrecision;

const char* kGpuUnits[] = {"gemm.gpu", "mem.gpu",  "copy.h2d",
                           "copy.d2h", "copy.d2d", "host.launch_latency"};

TEST(GpuBenchArithmeticTest, BandwidthIsDecimalGigabytesPerSecond) {
  EXPECT_DOUBLE_EQ(GBps(512.0 * 1024 * 1024, 1.0), 536.870912);
  EXPECT_DOUBLE_EQ(GBps(1e9, 1000.0), 1.0);
  EXPECT_EQ(GBps(1e9, 0), 0);
}

TEST(GpuBenchArithmeticTest, GemmFlopsBytesAndTflops) {
  gpu::GemmShape s{8192, 8192, 8192};
  EXPECT_DOUBLE_EQ(s.Flops(), 2.0 * 8192 * 8192 * 8192);
  EXPECT_NEAR(gpu::Tflops(s.Flops(), 1.0), 1099.511627776, 1e-9);  // 2 * 2^39 flops in 1 ms
  gpu::GemmShape up{8192, 28672, 8192};
  EXPECT_EQ(up.BytesA(GemmPrecision::kBf16), size_t{8192} * 8192 * 2);
  EXPECT_EQ(up.BytesB(GemmPrecision::kFp8E4m3), size_t{8192} * 28672);
  EXPECT_EQ(up.BytesD(GemmPrecision::kFp8E4m3), size_t{8192} * 28672 * 2);  // FP8 writes BF16
  EXPECT_EQ(up.BytesD(GemmPrecision::kTf32), size_t{8192} * 28672 * 4);
  EXPECT_EQ(gpu::GemmMinComputeCapability(GemmPrecision::kFp8E4m3), 89);
  EXPECT_STREQ(gpu::GemmPrecisionName(GemmPrecision::kTf32), "tf32");
}

TEST(GpuBenchArithmeticTest, PeakParamsStatePercentAndSource) {
  std::map<std::string, std::string> params;
  auto pct =
      AddPeakParams(params, 2400, Peak{4800, "specs/h200.toml [memory] hbm_tb_per_s"}, "unused");
  ASSERT_TRUE(pct);
  EXPECT_DOUBLE_EQ(*pct, 50);
  EXPECT_EQ(params["peak"], "4800");
  EXPECT_EQ(params["pct_of_peak"], "50.0");
  EXPECT_EQ(params["peak_source"], "specs/h200.toml [memory] hbm_tb_per_s");
  std::map<std::string, std::string> none;
  EXPECT_FALSE(AddPeakParams(none, 1, std::nullopt, "no device spec for \"NVIDIA L4\""));
  EXPECT_EQ(none["peak"], "unknown");
  EXPECT_EQ(none["peak_note"], "no device spec for \"NVIDIA L4\"");
  EXPECT_EQ(none.count("pct_of_peak"), 0u);
  EXPECT_EQ(FormatPercent(std::nullopt), "-");
}

TEST(GpuBenchDataCheckTest, PatternMismatchesAreCountedPerWord) {
  std::vector<unsigned char> buf(1001);
  FillPattern(buf.data(), buf.size(), 7);
  EXPECT_EQ(CountPatternMismatches(buf.data(), buf.size(), 7), 0u);
  EXPECT_GT(CountPatternMismatches(buf.data(), buf.size(), 8),
            100u);  // another seed: another pattern
  buf[17] ^= 0x01;
  buf[1000] ^= 0x80;  // the trailing partial word
  EXPECT_EQ(CountPatternMismatches(buf.data(), buf.size(), 7), 2u);
  Finding f = CopyDataFinding("gpu0", "device-local ce copy", 2, 1001);
  EXPECT_EQ(f.code, "YS-BENCH-021");
  EXPECT_EQ(f.severity, Severity::kFail);
}

TEST(GpuBenchDataCheckTest, CopySizesAreMultiplesOfSixteen) {
  host::Host h = host::Host::Live();
  comm::SingleProcessCommunicator comm;
  BenchOptions o;
  BenchContext full(h, comm, o);
  EXPECT_EQ(CopySizes(full, 512ull << 20, 64ull << 20), std::vector<uint64_t>{512ull << 20});
  o.profile = Profile::kQuick;
  BenchContext quick(h, comm, o);
  EXPECT_EQ(CopySizes(quick, 512ull << 20, 64ull << 20), std::vector<uint64_t>{64ull << 20});
  o.sizes = *SizeSweep::Parse("1000:4000:x2");
  BenchContext swept(h, comm, o);
  EXPECT_EQ(CopySizes(swept, 1, 1), (std::vector<uint64_t>{992, 2000, 4000}));
}

TEST(GpuGemmDataTest, DecodersFollowTheFormats) {
  EXPECT_EQ(DecodeBf16(0x3f80), 1.0);
  EXPECT_EQ(DecodeBf16(0xc000), -2.0);
  EXPECT_EQ(DecodeFp16(0x3c00), 1.0);
  EXPECT_EQ(DecodeFp16(0x0001), std::ldexp(1.0, -24));
  EXPECT_EQ(DecodeFp16(0x7bff), 65504.0);
  EXPECT_TRUE(std::isinf(DecodeFp16(0x7c00)));
  EXPECT_EQ(DecodeE4m3(0x38), 1.0);
  EXPECT_EQ(DecodeE4m3(0x7e), 448.0);
  EXPECT_EQ(DecodeE4m3(0xfe), -448.0);
  EXPECT_EQ(DecodeE4m3(0x01), std::ldexp(1.0, -9));
  EXPECT_TRUE(std::isnan(DecodeE4m3(0x7f)));
}

TEST(GpuGemmDataTest, InputTilesAreFiniteNormalAndSeeded) {
  for (GemmPrecision p : gpu::kAllGemmPrecisions) {
    auto tile = MakeGemmInputTile(p, 42);
    ASSERT_EQ(tile.size(), kGemmTileElements * gpu::GemmInputBytes(p));
    for (size_t i = 0; i < kGemmTileElements; i += 997) {
      double v = std::fabs(DecodeGemmInput(p, tile.data() + i * gpu::GemmInputBytes(p)));
      EXPECT_TRUE(v >= 0.125 && v < 1.0)
          << gpu::GemmPrecisionName(p) << " element " << i << " = " << v;
    }
    EXPECT_EQ(tile, MakeGemmInputTile(p, 42));
    EXPECT_NE(tile, MakeGemmInputTile(p, 43));
  }
}

// D computed on the CPU the way the GPU should: double sums rounded to FP32 (TF32) or to BF16
// (BF16 and FP8, whose GEMMs write BF16) to nearest even.
std::vector<unsigned char> CpuGemm(GemmPrecision p, const gpu::GemmShape& s,
                                   const std::vector<unsigned char>& a,
                                   const std::vector<unsigned char>& b, bool transpose_mistake) {
  const size_t in = gpu::GemmInputBytes(p), out = gpu::GemmOutputBytes(p);
  const size_t ae = a.size() / in, be = b.size() / in;
  std::vector<unsigned char> d(static_cast<size_t>(s.m * s.n) * out);
  for (int64_t j = 0; j < s.n; ++j) {
    for (int64_t i = 0; i < s.m; ++i) {
      double sum = 0;
      for (int64_t k = 0; k < s.k; ++k) {
        size_t ai = transpose_mistake ? static_cast<size_t>(k * s.m + i) % ae
                                      : static_cast<size_t>(i * s.k + k) % ae;
        sum += DecodeGemmInput(p, a.data() + ai * in) *
               DecodeGemmInput(p, b.data() + static_cast<size_t>(j * s.k + k) % be * in);
      }
      float f = static_cast<float>(sum);
      unsigned char* e = d.data() + static_cast<size_t>(j * s.m + i) * out;
      if (out == 4) {
        std::memcpy(e, &f, 4);
      } else {
        uint32_t w;
        std::memcpy(&w, &f, 4);
        uint16_t hi = static_cast<uint16_t>((w + 0x7fff + ((w >> 16) & 1)) >> 16);  // nearest even
        std::memcpy(e, &hi, 2);
      }
    }
  }
  return d;
}

TEST(GpuGemmDataTest, ReferenceCheckAcceptsCorrectOutputsAndCatchesWrongOnes) {
  const gpu::GemmShape s{24, 20, 512};
  for (GemmPrecision p : {GemmPrecision::kBf16, GemmPrecision::kTf32, GemmPrecision::kFp8E4m3}) {
    auto a = MakeGemmInputTile(p, 1), b = MakeGemmInputTile(p, 2);
    a.resize(3000 * gpu::GemmInputBytes(p));  // a short tile: buffers repeat it
    auto d = CpuGemm(p, s, a, b, false);
    ReferenceCheck good = CheckAgainstReference(p, s, a, b, d, 64);
    EXPECT_EQ(good.checked, 64);
    EXPECT_EQ(good.outside, 0) << gpu::GemmPrecisionName(p) << " worst " << good.worst_ratio;
    auto corrupt = d;
    corrupt[gpu::GemmOutputBytes(p) - 1] ^=
        0x40;  // exponent bits of element (0, 0), a sampled corner
    ReferenceCheck bad = CheckAgainstReference(p, s, a, b, corrupt, 64);
    EXPECT_GE(bad.outside, 1) << gpu::GemmPrecisionName(p);
    EXPECT_EQ(bad.first_row, 0);
    EXPECT_EQ(bad.first_col, 0);
    ReferenceCheck transposed = CheckAgainstReference(p, s, a, b, CpuGemm(p, s, a, b, true), 64);
    EXPECT_GT(transposed.outside, 32)
        << gpu::GemmPrecisionName(p) << ": a layout mistake must show";
    EXPECT_EQ(CountDifferentElements(p, d, corrupt), 1u);
    EXPECT_EQ(CountDifferentElements(p, d, d), 0u);
  }
}

TEST(GpuKernelsPtxTest, PtxasAssemblesTheKernels) {
  const std::string ptxas = "/usr/local/cuda/bin/ptxas";
  if (!std::filesystem::exists(ptxas))
    GTEST_SKIP() << ptxas << " not installed: PTX not assembled here";
  std::string dir =
      std::filesystem::temp_directory_path() / ("ys-ptx-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/k.ptx") << gpu::BenchKernelsPtx();
  for (const char* arch : {"sm_80", "sm_90", "sm_100"}) {
    std::string cmd = ptxas + " -arch=" + arch + " " + dir + "/k.ptx -o " + dir + "/k.cubin 2>&1";
    FILE* p = ::popen(cmd.c_str(), "r");
    ASSERT_NE(p, nullptr);
    std::string out;
    char buf[512];
    while (std::fgets(buf, sizeof buf, p) != nullptr) out += buf;
    int status = ::pclose(p);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << arch << ":\n" << out;
  }
  std::string text = gpu::BenchKernelsPtx();
  for (const char* entry : {gpu::kCopyKernel, gpu::kSpinKernel, gpu::kEmptyKernel}) {
    EXPECT_NE(text.find(std::string(".visible .entry ") + entry + "("), std::string::npos) << entry;
  }
  std::filesystem::remove_all(dir);
}

TEST(GpuCublasLtTest, OpensTheToolkitLibraryAndResolvesEverySymbol) {
  const std::string lib = "/usr/local/cuda/lib64/libcublasLt.so.13";
  auto missing = gpu::CublasLtApi::Open("/nonexistent/libcublasLt.so.13");
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  if (!std::filesystem::exists(lib)) GTEST_SKIP() << lib << " not installed";
  auto api = gpu::CublasLtApi::Open(lib);
  ASSERT_TRUE(api.ok()) << api.status().message();
  EXPECT_GE(api->cublasLtGetVersion(), 130000u);
  EXPECT_TRUE(api->Check(CUBLAS_STATUS_SUCCESS, "x").ok());
  Status s = api->Check(CUBLAS_STATUS_NOT_SUPPORTED, "cublasLtMatmul");
  EXPECT_NE(s.message().find("cublasLtMatmul: cublasStatus 15 ("), std::string::npos)
      << s.message();
}

BenchmarkResult RunUnit(const char* id, Backend backend) {
  static host::Host h = host::Host::Live();
  static comm::SingleProcessCommunicator comm;
  static BenchOptions o;
  o.backend = backend;
  o.profile = Profile::kQuick;
  o.data_dir = YS_SOURCE_DIR;
  BenchContext ctx(h, comm, o);
  return RunBenchmark(ctx, id);
}

TEST(GpuUnitsTest, SkipWithTheCpuBackend) {
  for (const char* id : kGpuUnits) {
    BenchmarkResult r = RunUnit(id, Backend::kCpu);
    EXPECT_EQ(r.outcome, Outcome::kSkip) << id;
    EXPECT_EQ(r.summary, "--backend cpu") << id;
  }
}

TEST(GpuUnitsTest, SkipWithTheDriverNotFoundReason) {
  if (gpu::CudaApi::Get().ok())
    GTEST_SKIP() << "a CUDA driver is present (the integration test forces its absence)";
  for (const char* id : kGpuUnits) {
    BenchmarkResult r = RunUnit(id, Backend::kAuto);
    EXPECT_EQ(r.outcome, Outcome::kSkip) << id;
    EXPECT_EQ(r.summary.rfind("CUDA driver not found: ", 0), 0u) << id << ": " << r.summary;
    EXPECT_TRUE(r.measurements.empty()) << id;
  }
}

// --- needs a GPU: shapes and ranges, never speed -------------------------------------------

double Param(const Measurement& m, const char* key) { return std::stod(m.params.at(key)); }

void ExpectSane(const BenchmarkResult& r, const char* id) {
  ASSERT_NE(r.outcome, Outcome::kError) << id << ": " << r.summary;
  ASSERT_NE(r.outcome, Outcome::kSkip) << id << ": " << r.summary;
  EXPECT_TRUE(r.findings.empty()) << id << ": " << r.findings.front().message;
  ASSERT_FALSE(r.measurements.empty()) << id;
  for (const Measurement& m : r.measurements) {
    EXPECT_GT(m.value, 0) << m.name;
    EXPECT_TRUE(std::isfinite(m.value)) << m.name;
    EXPECT_GE(m.stats.n, 1) << m.name;
    if (m.params.count("pct_of_peak")) {
      EXPECT_GT(Param(m, "pct_of_peak"), 0) << m.name;
      EXPECT_LE(Param(m, "pct_of_peak"), 100.0)
          << m.name << ": above the physical peak means wrong arithmetic";
    }
  }
}

class GpuBenchLiveTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto api = gpu::CudaApi::Get(); !api.ok()) GTEST_SKIP() << api.status().message();
  }
};

TEST_F(GpuBenchLiveTest, MemoryCopiesAreBelowTheHbmPeak) {
  BenchmarkResult r = RunUnit("mem.gpu", Backend::kGpu);
  ExpectSane(r, "mem.gpu");
  for (const Measurement& m : r.measurements) EXPECT_EQ(m.unit, "GB/s");
}

TEST_F(GpuBenchLiveTest, HostCopiesCoverEveryMethod) {
  for (const char* id : {"copy.h2d", "copy.d2h"}) {
    BenchmarkResult r = RunUnit(id, Backend::kGpu);
    ExpectSane(r, id);
    std::set<std::string> methods;
    for (const Measurement& m : r.measurements) methods.insert(m.params.at("method"));
    EXPECT_EQ(methods, (std::set<std::string>{"ce", "sm"})) << id;
  }
}

TEST_F(GpuBenchLiveTest, GemmRunsEveryPrecisionTheGpuHas) {
  BenchmarkResult r = RunUnit("gemm.gpu", Backend::kGpu);
  ExpectSane(r, "gemm.gpu");
  std::set<std::string> dtypes;
  for (const Measurement& m : r.measurements) dtypes.insert(m.params.at("dtype"));
  EXPECT_TRUE(dtypes.count("bf16") && dtypes.count("fp16") && dtypes.count("tf32"));
}

TEST_F(GpuBenchLiveTest, LaunchLatencyIsMicroseconds) {
  BenchmarkResult r = RunUnit("host.launch_latency", Backend::kGpu);
  ExpectSane(r, "host.launch_latency");
  for (const Measurement& m : r.measurements)
    EXPECT_LT(m.value, 1e6) << m.name << ": a launch is not a second";
}

}  // namespace
}  // namespace ys::bench
