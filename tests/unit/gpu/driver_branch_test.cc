// The GPU paths against the fake libraries of one driver branch (tests/fake_gpus/branches.cmake,
// symbols from tests/fake_gpus/branch_symbols.txt): ctest runs these suites once per branch
// (unit.driver_branch.r535 ... r580) with YS_FAKE_BRANCH naming the branch and
// YARDSTICK_LIBCUDA, YARDSTICK_LIBNCCL and YS_FAKE_NVML naming its fakes; anywhere else they skip
// (the libraries are chosen once per process). Each branch shows which symbol every fallback
// took, and which GPU units run and which skip, with the reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "bench/benchmark.h"
#include "bench/runner.h"
#include "comm/communicator.h"
#include "gpu/cublaslt.h"
#include "gpu/cuda_api.h"
#include "gpu/cuda_driver.h"
#include "gpu/dynamic_library.h"
#include "gpu/nvml_reader.h"
#include "host/host.h"

namespace ys::gpu {
namespace driver_branch_test {
namespace {

// 535 for YS_FAKE_BRANCH=R535; 0 when the suite is not run against a branch's fakes.
int Branch() {
  const char* b = std::getenv("YS_FAKE_BRANCH");
  return b != nullptr && b[0] == 'R' ? std::atoi(b + 1) : 0;
}

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

#define YS_NEED_BRANCH() \
  if (Branch() == 0) GTEST_SKIP() << "runs as ctest unit.driver_branch.<branch> (its fakes)"

// The CUDA version each branch's driver reports, written out (CUDA release notes).
int ExpectedCudaVersion() {
  switch (Branch()) {
    case 535:
      return 12020;
    case 550:
      return 12040;
    case 570:
      return 12080;
    default:
      return 13000;
  }
}

std::vector<std::string> Split(const std::string& csv) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= csv.size() && !csv.empty()) {
    size_t comma = csv.find(',', start);
    if (comma == std::string::npos) comma = csv.size();
    out.push_back(csv.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

int Count(const std::vector<std::string>& log, const std::string& call) {
  return static_cast<int>(std::count(log.begin(), log.end(), call));
}

bool Exports(const std::string& library, const char* symbol) {
  auto lib = DynamicLibrary::Open(library);
  return lib.ok() && lib->Symbol(symbol) != nullptr;
}

TEST(FakeBranchSymbols, EachFakeExportsWhatItsBranchHas) {
  YS_NEED_BRANCH();
  const std::string cuda = Env("YARDSTICK_LIBCUDA"), nvml = Env("YS_FAKE_NVML"),
                    nccl = Env("YARDSTICK_LIBNCCL");
  EXPECT_TRUE(Exports(cuda, "cuEventElapsedTime"));
  EXPECT_EQ(Exports(cuda, "cuEventElapsedTime_v2"), Branch() >= 570);
  EXPECT_TRUE(Exports(cuda, "cuMemAlloc_v2"));
  EXPECT_FALSE(Exports(cuda, "cuMemAlloc"));  // the CUDA 3.1 name: never exported by a fake
  EXPECT_TRUE(Exports(nvml, "nvmlDeviceGetCurrentClocksEventReasons"));
  EXPECT_EQ(Exports(nvml, "nvmlDeviceGetGpuFabricInfoV"), Branch() >= 550);
  EXPECT_EQ(Exports(nvml, "nvmlDeviceGetTemperatureV"), Branch() >= 570);
  EXPECT_EQ(Exports(nccl, "ncclAlltoAll"), Branch() >= 580);
  EXPECT_TRUE(Exports(nccl, "ncclSend"));
}

TEST(FakeBranchCuda, TheDriverTableLoadsOnEveryBranch) {
  YS_NEED_BRANCH();
  auto version = CudaDriverVersion(CudaDriverLibraryName());
  ASSERT_TRUE(version.ok()) << version.status().message();
  EXPECT_EQ(*version, ExpectedCudaVersion());
  EXPECT_EQ(DriverBranchOf(*version), "R" + std::to_string(Branch()));

  auto api = CudaApi::Get();
  ASSERT_TRUE(api.ok()) << api.status().message();
  std::vector<std::string> expected;
  if (Branch() < 570) expected.push_back("cuEventElapsedTime_v2 -> cuEventElapsedTime");
  EXPECT_EQ((*api)->fallbacks(), expected);
  std::cout << "[ R" << Branch() << " ] CUDA " << CudaVersionText(*version)
            << ", fallbacks: " << (expected.empty() ? "none" : expected[0]) << "\n";

  // Event timing, the call that the fallback is for.
  auto device = CudaDevice::Open(0);
  ASSERT_TRUE(device.ok()) << device.status().message();
  auto stream = CudaStream::Create(**api);
  auto start = CudaEvent::Create(**api), end = CudaEvent::Create(**api);
  ASSERT_TRUE(stream.ok() && start.ok() && end.ok());
  ASSERT_TRUE(start->Record(*stream).ok());
  ASSERT_TRUE(end->Record(*stream).ok());
  auto ms = CudaEvent::ElapsedMs(*start, *end);
  ASSERT_TRUE(ms.ok()) << ms.status().message();
  EXPECT_GE(*ms, 0.0f);
}

TEST(FakeBranchCublasLt, TheLibraryIsTheOneTheDriverCanRun) {
  YS_NEED_BRANCH();
  auto version = CudaDriverVersion(CudaDriverLibraryName());
  ASSERT_TRUE(version.ok());
  std::vector<std::string> expected = {"libcublasLt.so.12"};
  if (Branch() >= 580) expected.insert(expected.begin(), "libcublasLt.so.13");
  EXPECT_EQ(CublasLtSonames(*version), expected);
}

TEST(FakeBranchNvml, TheSnapshotTakesEachBranchsCalls) {
  YS_NEED_BRANCH();
  // Held open for the whole test, so that the fake's call log outlives the reader's handle.
  auto held = DynamicLibrary::Open(Env("YS_FAKE_NVML"));
  ASSERT_TRUE(held.ok()) << held.status().message();
  auto calls = held->Function<const char* (*)()>("fake_nvml_calls");
  ASSERT_NE(calls, nullptr);

  auto s = ReadLiveGpuSnapshot(Env("YS_FAKE_NVML"));
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->driver_version->substr(0, 4), std::to_string(Branch()) + ".");
  EXPECT_EQ(*s->cuda_driver_version, ExpectedCudaVersion());
  ASSERT_EQ(s->devices.size(), 1u);
  const GpuDevice& d = s->devices[0];
  EXPECT_EQ(*d.temperature_c, 42u);
  EXPECT_EQ(*d.clocks_event_reasons, 0x1u);
  ASSERT_TRUE(d.fabric.has()) << d.fabric.error;
  EXPECT_EQ(d.fabric->state, "completed");
  EXPECT_EQ(d.fabric->clique_id, 7u);

  const std::vector<std::string> log = Split(calls());
  std::cout << "[ R" << Branch() << " ] NVML calls: " << calls() << "\n";
  // Temperature: the V call from R570 on, else the plain one (deprecated from R570).
  EXPECT_EQ(Count(log, "nvmlDeviceGetTemperatureV"), Branch() >= 570 ? 1 : 0) << calls();
  EXPECT_EQ(Count(log, "nvmlDeviceGetTemperature"), Branch() >= 570 ? 0 : 1) << calls();
  // Clock event reasons: the name of R535 on; never the deprecated "throttle" one.
  EXPECT_EQ(Count(log, "nvmlDeviceGetCurrentClocksEventReasons"), 1) << calls();
  EXPECT_EQ(Count(log, "nvmlDeviceGetCurrentClocksThrottleReasons"), 0) << calls();
  // Fabric: the unversioned call on R535 (no V call); the V call with v3 refused, then v2, on
  // R550 and R570; v3 on R580.
  EXPECT_EQ(Count(log, "nvmlDeviceGetGpuFabricInfo"), Branch() == 535 ? 1 : 0) << calls();
  EXPECT_EQ(Count(log, "nvmlDeviceGetGpuFabricInfoV(v3)"), Branch() == 535 ? 0 : 1) << calls();
  EXPECT_EQ(Count(log, "nvmlDeviceGetGpuFabricInfoV(v2)"),
            Branch() == 550 || Branch() == 570 ? 1 : 0)
      << calls();
}

TEST(FakeBranchNvml, NvLinkThroughputIsTheSumOverEveryLink) {
  YS_NEED_BRANCH();
  auto lib = nvml::Library::Open(Env("YS_FAKE_NVML"));
  ASSERT_TRUE(lib.ok()) << lib.status().message();
  auto raw = DynamicLibrary::Open(Env("YS_FAKE_NVML"));
  ASSERT_TRUE(raw.ok());
  auto session = nvml::Session::Start(lib->api());
  ASSERT_TRUE(session.ok());
  auto t = ReadGpuTelemetry(lib->api(), nvml::ResolveTelemetryApi(*raw));
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->devices.size(), 1u);
  const DeviceTelemetry& d = t->devices[0];
  // The fake's 18 links carried 1000, 2000, ... 18000 KiB: link 0 alone would read 1000.
  EXPECT_EQ(*d.nvlink_data_tx_kib, 171000u);
  EXPECT_EQ(*d.nvlink_data_rx_kib, 171000u);
  EXPECT_EQ(*d.memory_total_bytes, 80ull << 30);
  EXPECT_EQ(*d.memory_temperature_c, 51u);
}

// Every GPU benchmark unit once, small, with the outcome of each printed. On every branch each one
// gets past the driver table (none is refused as "too old"): the collectives run (alltoall by
// ncclAlltoAll from NCCL 2.28, R580's; by grouped send/recv before); the units that load a kernel
// stop at cuModuleLoadData, which no fake driver does; gemm.gpu needs a cuBLASLt this driver can
// run, and where there is none the reason names the branch.
TEST(FakeBranchUnits, WhichGpuUnitsRunAndWhichSkip) {
  YS_NEED_BRANCH();
  host::Host host = host::Host::Live();
  comm::SingleProcessCommunicator control;
  bench::BenchOptions options;
  options.sizes = *bench::SizeSweep::Parse("64K");
  options.iters = 2;
  options.warmup = 1;
  bench::BenchContext ctx(host, control, options);
  const std::string branch = "R" + std::to_string(Branch());
  for (const std::string id : {"copy.h2d", "copy.d2h", "copy.d2d", "mem.gpu", "gemm.gpu",
                               "host.launch_latency", "coll.all_reduce", "coll.alltoall"}) {
    BenchmarkResult r = bench::RunBenchmark(ctx, id);
    std::cout << "[ " << branch << " ] " << id << ": " << OutcomeName(r.outcome) << ": "
              << r.summary << "\n";
    const std::string what = id + ": " + r.summary;
    EXPECT_EQ(r.summary.find("too old"), std::string::npos) << what;
    if (id.rfind("coll.", 0) == 0) {
      EXPECT_EQ(r.outcome, Outcome::kPass) << what;
    } else if (id == "gemm.gpu" && r.outcome == Outcome::kSkip) {
      EXPECT_NE(r.summary.find(Branch() < 580 ? branch : "cuBLASLt"), std::string::npos) << what;
    } else if (id != "gemm.gpu") {
      EXPECT_EQ(r.outcome, Outcome::kError) << what;
      EXPECT_NE(r.summary.find("cuModuleLoadData"), std::string::npos) << what;
    }
  }
}

}  // namespace
}  // namespace driver_branch_test
}  // namespace ys::gpu
