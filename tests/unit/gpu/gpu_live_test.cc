// The live path: dlopen of the NVIDIA libraries, which this machine may or may not have, and the
// guarantee that the binary never needs one at link time.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "checks/check.h"
#include "checks/preflight.h"
#include "core/text.h"
#include "gpu/cuda_driver.h"
#include "gpu/dynamic_library.h"
#include "gpu/gpu_snapshot_json.h"
#include "gpu/gpu_source.h"
#include "gpu/nvml_reader.h"
#include "testing/check_test_util.h"

namespace ys::gpu {
namespace {

using ys::testing::TempHost;

// stdout and stderr of a shell command, and its exit status.
std::pair<int, std::string> RunShell(const std::string& command) {
  std::string out;
  FILE* p = ::popen((command + " 2>&1").c_str(), "r");
  if (p == nullptr) return {-1, ""};
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int status = ::pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

bool HaveNvml() { return DynamicLibrary::Open(nvml::kLibraryName).ok(); }

TEST(GpuLinkTimeTest, TheBinaryNeedsNoNvidiaLibrary) {
  auto [rc, out] = RunShell("readelf -d '" YS_BINARY "'");
  ASSERT_EQ(rc, 0) << out;
  std::vector<std::string> needed;
  for (std::string_view line : Split(out, '\n')) {
    if (line.find("(NEEDED)") == std::string_view::npos) continue;
    auto open = line.find('['), close = line.find(']');
    ASSERT_NE(open, std::string_view::npos) << line;
    needed.emplace_back(line.substr(open + 1, close - open - 1));
  }
  ASSERT_FALSE(needed.empty()) << "readelf printed no NEEDED entry:\n" << out;
  for (const std::string& lib : needed) {
    for (const char* nvidia : {"libnvidia-ml", "libcuda.", "libcudart", "libcublas", "libcublasLt",
                               "libnccl", "libnvrtc", "libcupti"}) {
      EXPECT_FALSE(StartsWith(lib, nvidia)) << YS_BINARY << " needs " << lib << " at link time";
    }
  }
}

TEST(GpuDynamicLibraryTest, OpensLooksUpAndCloses) {
  auto libc = DynamicLibrary::Open("libc.so.6");
  ASSERT_TRUE(libc.ok()) << libc.status().message();
  EXPECT_NE(libc->Symbol("getpid"), nullptr);
  EXPECT_EQ(libc->Symbol("nvmlInit_v2"), nullptr);  // absent: nullptr, not a failure
  auto getpid_fn = libc->Function<int (*)()>("getpid");
  ASSERT_NE(getpid_fn, nullptr);
  EXPECT_EQ(getpid_fn(), ::getpid());
  DynamicLibrary moved = std::move(libc).value();
  EXPECT_NE(moved.Symbol("getpid"), nullptr);
  EXPECT_EQ(moved.name(), "libc.so.6");

  auto absent = DynamicLibrary::Open("libys-absent.so.1");
  ASSERT_FALSE(absent.ok());
  EXPECT_EQ(absent.status().code(), StatusCode::kNotFound);
  EXPECT_NE(absent.status().message().find("libys-absent.so.1"), std::string::npos);
}

TEST(GpuLiveTest, AbsentNvmlIsNotFoundWithDlerror) {
  auto r = ReadLiveGpuSnapshot("libnvidia-ml-absent.so.1");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(r.status().message().rfind("NVML not found: libnvidia-ml-absent.so.1: cannot open", 0),
            0u)
      << r.status().message();
}

// On this machine (no driver) the real library name gives "NVML not found"; on a GPU node the
// same call reads the GPUs. Either way it returns, cleanly.
TEST(GpuLiveTest, TheRealLibraryAnswersOrIsNotFound) {
  auto r = ReadLiveGpuSnapshot();
  if (!HaveNvml()) {
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().message().rfind("NVML not found: libnvidia-ml.so.1", 0), 0u)
        << r.status().message();
    return;
  }
  if (r.ok()) {
    EXPECT_EQ(r->source, "nvml");
    EXPECT_FALSE(r->captured_at.empty());
    for (const auto& d : r->devices) EXPECT_FALSE(d.pci_bus_id.empty()) << d.index;
    auto back = ParseGpuSnapshot(GpuSnapshotToJsonText(*r), "live");
    EXPECT_TRUE(back.ok()) << back.status().message();
  } else {
    EXPECT_FALSE(r.status().message().empty());  // e.g. NVML_ERROR_DRIVER_NOT_LOADED
  }
}

TEST(GpuLiveTest, CudaDriverVersion) {
  auto absent = CudaDriverVersion("libcuda-absent.so.1");
  ASSERT_FALSE(absent.ok());
  EXPECT_EQ(absent.status().message().rfind("CUDA driver not found: libcuda-absent.so.1", 0), 0u);
  auto no_symbol = CudaDriverVersion("libc.so.6");
  EXPECT_EQ(no_symbol.status().code(), StatusCode::kUnsupported);
  auto real = CudaDriverVersion();
  if (!DynamicLibrary::Open(kCudaDriverLibrary).ok()) {
    EXPECT_EQ(real.status().code(), StatusCode::kNotFound);
  } else if (real.ok()) {
    EXPECT_GE(*real, 10000);
  }
  EXPECT_EQ(CudaVersionText(12040), "12.4");
  EXPECT_EQ(CudaVersionText(11080), "11.8");
  EXPECT_EQ(CudaVersionText(13000), "13.0");
}

TEST(GpuLiveTest, AFakeNvmlThroughDlopen) {
  auto lib = nvml::Library::Open(YS_FAKE_NVML_LIBRARY);
  ASSERT_TRUE(lib.ok()) << lib.status().message();
  EXPECT_NE(lib->api().nvmlDeviceGetName, nullptr);
  EXPECT_EQ(lib->api().nvmlDeviceGetRemappedRows, nullptr);

  auto r = ReadLiveGpuSnapshot(YS_FAKE_NVML_LIBRARY);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->source, "nvml");
  EXPECT_EQ(*r->driver_version, "999.99.99");
  ASSERT_EQ(r->devices.size(), 1u);
  const GpuDevice& d = r->devices[0];
  EXPECT_EQ(d.name, "Fake GPU");
  EXPECT_EQ(d.pci_bus_id, "00000000:3B:00.0");
  EXPECT_EQ(d.pci_device_id, 0x233510deu);
  EXPECT_EQ(*d.temperature_c, 42u);
  EXPECT_EQ(d.power_usage_mw.error, "not supported");
  EXPECT_EQ(d.remapped_rows_pending.error,
            "not supported: this NVML has no nvmlDeviceGetRemappedRows");
  EXPECT_TRUE(d.fabric.not_supported());
  EXPECT_TRUE(d.nvlinks.empty());
  // The session was shut down: nvmlInit_v2 and nvmlShutdown balance.
  auto open_sessions = DynamicLibrary::Open(YS_FAKE_NVML_LIBRARY);
  ASSERT_TRUE(open_sessions.ok());
  auto count = open_sessions->Function<int (*)()>("fake_nvml_open_sessions");
  ASSERT_NE(count, nullptr);
  EXPECT_EQ(count(), 0);
}

TEST(GpuLiveTest, ALibraryWithoutInitIsNotAnNvml) {
  auto r = nvml::Library::Open("libc.so.6");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(r.status().message().find("does not export nvmlInit_v2"), std::string::npos);
}

// ---- Where the GPU state comes from ----

constexpr const char* kOneGpu = R"({"source": "nvml", "driver_version": {"value": "550.54.15"},
  "devices": [{"index": 0, "uuid": "GPU-1", "name": "NVIDIA H100 80GB HBM3",
               "pci_bus_id": "00000000:1B:00.0"}]})";

TEST(GpuSourceTest, RecordedTreeWithoutStateSaysSo) {
  TempHost t;
  t.Write("/proc/cpuinfo", "");
  auto r = LoadGpuSnapshotFor(t.Host(), "");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_NE(r.status().message().find(t.root() + "/.yardstick/nvml.json is absent"),
            std::string::npos)
      << r.status().message();
}

TEST(GpuSourceTest, RecordedTreeWithStateAndTheFileOverride) {
  TempHost t;
  t.Write(kRecordedNvmlPath, kOneGpu);
  auto r = LoadGpuSnapshotFor(t.Host(), "");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->source, "recorded: " + t.root() + "/.yardstick/nvml.json");
  EXPECT_EQ(r->devices.size(), 1u);

  t.Write("/elsewhere.json", R"({"devices": []})");
  auto file = LoadGpuSnapshotFor(t.Host(), t.root() + "/elsewhere.json");
  ASSERT_TRUE(file.ok()) << file.status().message();
  EXPECT_TRUE(file->devices.empty());

  t.Write(kRecordedNvmlPath, "{");
  EXPECT_EQ(LoadGpuSnapshotFor(t.Host(), "").status().code(), StatusCode::kInvalidInput);
}

TEST(GpuSourceTest, LiveHostAsksNvml) {
  auto r = LoadGpuSnapshotFor(host::Host::Live(), "", "libnvidia-ml-absent.so.1");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().rfind("NVML not found: ", 0), 0u);
  auto fake = LoadGpuSnapshotFor(host::Host::Live(), "", YS_FAKE_NVML_LIBRARY);
  ASSERT_TRUE(fake.ok()) << fake.status().message();
  EXPECT_EQ(fake->source, "nvml");
}

TEST(GpuSourceTest, CheckContextLoadsOnceAndAcceptsAnInjectedSnapshot) {
  TempHost t;
  t.Write(kRecordedNvmlPath, kOneGpu);
  host::Host h = t.Host();
  checks::SiteExpectations expect;
  checks::CheckContext ctx(h, expect);
  EXPECT_FALSE(ctx.gpu_loaded());
  const auto& first = ctx.gpu();
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_TRUE(ctx.gpu_loaded());
  t.Write(kRecordedNvmlPath, R"({"devices": []})");  // cached: not read again
  EXPECT_EQ(&ctx.gpu(), &first);
  EXPECT_EQ(ctx.gpu()->devices.size(), 1u);

  checks::CheckContext injected(h, expect);
  injected.set_gpu(Status::NotFound("NVML not found: test"));
  EXPECT_EQ(injected.gpu().status().message(), "NVML not found: test");

  checks::CheckContext from_file(h, expect);
  t.Write("/other.json", kOneGpu);
  from_file.set_nvml_state_path(t.root() + "/other.json");
  ASSERT_TRUE(from_file.gpu().ok());
  EXPECT_EQ(from_file.gpu()->source, "recorded: " + t.root() + "/other.json");
}

TEST(GpuSourceTest, PreflightRefusesABadStateFileAndWarnsAboutAGoodOne) {
  TempHost t;
  t.Write("/bad.json", R"({"devices": [{"index": "zero"}]})");
  t.Write("/good.json", kOneGpu);
  checks::PreflightOptions o;
  o.root = ys::testing::FixturePath("healthy-8gpu");
  o.filters = {"mem.*"};
  o.nvml_state = t.root() + "/bad.json";
  auto bad = checks::RunPreflight(o);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(
      bad.status().message().find("--nvml-state: " + t.root() + "/bad.json: devices[0].index"),
      std::string::npos)
      << bad.status().message();
  o.nvml_state = t.root() + "/absent.json";
  EXPECT_FALSE(checks::RunPreflight(o).ok());

  o.nvml_state = t.root() + "/good.json";
  auto good = checks::RunPreflight(o);
  ASSERT_TRUE(good.ok()) << good.status().message();
  bool warned = false;
  for (const auto& w : good->warnings) warned |= w.find("recorded NVML file") != std::string::npos;
  EXPECT_TRUE(warned);
  // The snapshot was handed to the checks: the run names it.
  EXPECT_EQ(good->host.gpu_source, "recorded: " + t.root() + "/good.json");
  EXPECT_EQ(good->host.gpu_driver, "550.54.15");
}

}  // namespace
}  // namespace ys::gpu
