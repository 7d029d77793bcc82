#include <gtest/gtest.h>

#include "bench/cpu_peak.h"
#include "bench/gemm/internal/openblas_util.h"
#include "comm/communicator.h"
#include "testing/bench_test_util.h"

namespace ys::bench {
namespace {

constexpr const char* kZen5 =
    "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel\t\t: 2\n"
    "model name\t: AMD EPYC\nflags\t\t: fpu sse sse2 avx fma avx2 avx512f avx512dq avx512bw "
    "avx512vl\n\n"
    "processor\t: 1\nvendor_id\t: AuthenticAMD\ncpu family\t: 26\nflags\t\t: fpu sse sse2 avx fma "
    "avx2 avx512f\n";
constexpr const char* kZen4 =
    "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nflags\t\t: sse2 avx fma avx2 "
    "avx512f avx512bw\n";
constexpr const char* kSapphireRapids =
    "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 143\n"
    "flags\t\t: sse2 avx fma avx2 avx512f avx512_bf16 amx_tile\n";
constexpr const char* kHaswell =
    "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nflags\t\t: sse sse2 avx fma "
    "avx2\n";
constexpr const char* kSandyBridge =
    "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nflags\t\t: sse sse2 avx\n";
constexpr const char* kGrace =
    "processor\t: 0\nBogoMIPS\t: 2000.00\nFeatures\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 "
    "atomics "
    "fphp asimdhp cpuid asimdrdm jscvt fcma lrcpc dcpop sha3 sm3 sm4 asimddp sha512 sve asimdfhm "
    "sve2\n"
    "CPU implementer\t: 0x41\nCPU part\t: 0xd4f\n";
constexpr const char* kNeoverseN1 =
    "processor\t: 0\nFeatures\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics\nCPU part\t: "
    "0xd0c\n";

TEST(CpuPeakTest, FlopsPerCycleFromCpuinfoFlags) {
  struct Case {
    const char* text;
    const char* isa;
    int fp64, fp32;
  };
  for (const Case& c : {Case{kZen5, "avx512f", 32, 64}, Case{kSapphireRapids, "avx512f", 32, 64},
                        Case{kZen4, "avx512f (256-bit datapath)", 16, 32},
                        Case{kHaswell, "avx2+fma", 16, 32}, Case{kSandyBridge, "avx", 8, 16},
                        Case{kGrace, "sve", 16, 32}, Case{kNeoverseN1, "asimd", 8, 16}}) {
    auto isa = DetectVectorIsaFromCpuinfo(c.text);
    ASSERT_TRUE(isa.ok()) << c.isa << ": " << isa.status().message();
    EXPECT_EQ(isa->isa, c.isa);
    EXPECT_EQ(isa->fp64_flops_per_cycle, c.fp64) << c.isa;
    EXPECT_EQ(isa->fp32_flops_per_cycle, c.fp32) << c.isa;
    EXPECT_FALSE(isa->assumption.empty());
  }
}

TEST(CpuPeakTest, UnknownIsaIsAnErrorNotAGuess) {
  auto none = DetectVectorIsaFromCpuinfo("processor\t: 0\nvendor_id\t: X\n");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("flags"), std::string::npos);
  EXPECT_FALSE(DetectVectorIsaFromCpuinfo("processor\t: 0\nflags\t\t: fpu mmx\n").ok());
  EXPECT_FALSE(DetectVectorIsaFromCpuinfo("processor\t: 0\nFeatures\t: fp evtstrm\n").ok());
  EXPECT_FALSE(DetectVectorIsaFromCpuinfo("").ok());
}

TEST(CpuPeakTest, PeakIsCoresTimesClockTimesFlopsPerCycle) {
  auto isa = DetectVectorIsaFromCpuinfo(kZen5);
  ASSERT_TRUE(isa.ok());
  CpuPeak fp32 = ComputeCpuPeak(*isa, /*fp64=*/false, 2, 3700);
  EXPECT_DOUBLE_EQ(fp32.gflops, 2 * 3.7 * 64);
  EXPECT_EQ(fp32.flops_per_cycle, 64);
  EXPECT_EQ(fp32.formula, "2 cores x 3.700 GHz x 64 flops/cycle (avx512f fp32) = 473.6 GFLOPS");
  CpuPeak fp64 = ComputeCpuPeak(*isa, /*fp64=*/true, 64, 2000);
  EXPECT_DOUBLE_EQ(fp64.gflops, 64 * 2.0 * 32);
}

TEST(CpuGemmTest, FlopsAndShapes) {
  EXPECT_DOUBLE_EQ(GemmFlops({"square", 2, 3, 4}), 48.0);
  EXPECT_DOUBLE_EQ(GemmFlops({"square", 4096, 4096, 4096}), 2.0 * 4096.0 * 4096.0 * 4096.0);
  auto t = TransformerShapes(512, 1024);
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0].name, "qkv");
  EXPECT_EQ(t[0].n, 3072);
  EXPECT_EQ(t[0].k, 1024);
  EXPECT_EQ(t[1].n, 4096);
  EXPECT_EQ(t[2].n, 1024);
  EXPECT_EQ(t[2].k, 4096);
  EXPECT_EQ(t[2].m, 512);
}

TEST(CpuGemmTest, SizesSelectSquareShapes) {
  host::Host host = host::Host::Live();
  comm::SingleProcessCommunicator comm;
  BenchOptions o;
  o.sizes = *SizeSweep::Parse("64:256:x2");
  BenchContext ctx(host, comm, o);
  auto shapes = CpuGemmShapes(ctx);
  ASSERT_TRUE(shapes.ok());
  ASSERT_EQ(shapes->size(), 3u);
  EXPECT_EQ((*shapes)[2].m, 256);
  EXPECT_EQ((*shapes)[2].name, "square");
  o.sizes = *SizeSweep::Parse("64K");
  auto too_big = CpuGemmShapes(ctx);
  ASSERT_FALSE(too_big.ok());
  EXPECT_NE(too_big.status().message().find("65536"), std::string::npos);
  o.sizes.reset();
  o.profile = Profile::kQuick;
  auto quick = CpuGemmShapes(ctx);
  ASSERT_TRUE(quick.ok());
  EXPECT_EQ(quick->size(), 5u);  // 2 squares + 3 transformer shapes
}

TEST(CpuGemmTest, LiveUnitMeasuresBothRoutinesWithPeak) {
  BenchOptions o;
  o.sizes = *SizeSweep::Parse("32:64:x2");
  o.warmup = 0;
  o.iters = 2;
  BenchmarkResult r = testing::RunLiveBenchmark("gemm.cpu", o);
  ASSERT_EQ(r.outcome, Outcome::kPass) << r.summary;
  int sgemm = 0, dgemm = 0;
  for (const auto& m : r.measurements) {
    EXPECT_EQ(m.unit, "GFLOPS");
    EXPECT_EQ(m.samples.size(), 2u);
    (m.name == "gemm.cpu.sgemm" ? sgemm : dgemm)++;
    if (m.params.at("m") == "32") {
      EXPECT_EQ(m.params.at("flops"), "65536");  // 2 x 32^3
    }
    if (m.params.count("peak")) {
      EXPECT_EQ(m.params.at("peak_source"), "computed: cores x GHz x flops/cycle");
      EXPECT_TRUE(m.params.count("pct_of_peak"));
      EXPECT_NE(m.params.at("peak_formula").find("flops/cycle"), std::string::npos);
    }
  }
  EXPECT_EQ(sgemm, 2);
  EXPECT_EQ(dgemm, 2);
  bool has_core = false;
  for (const auto& [k, v] : r.evidence) has_core |= k == "blas_core" && !v.empty();
  EXPECT_TRUE(has_core);
  ASSERT_EQ(r.tables.size(), 1u);
  EXPECT_EQ(r.tables[0].rows.size(), 4u);
}

}  // namespace
}  // namespace ys::bench
