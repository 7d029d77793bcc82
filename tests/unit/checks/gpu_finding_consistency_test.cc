// Every finding of every gpu.* check agrees with the numbers it prints: on every recorded NVML
// state (tests/fixtures/nvml/) and real nvidia-smi dump (tests/fixtures/real/nvidia-smi/), and on
// two variants of each in which every GPU has every fault clock-event reason set, once with the
// SM clock at its maximum and once below it. A message that says a clock is held down or reduced
// shows a current clock below the maximum; one that says it is not reduced shows it at the
// maximum; a link said to run narrower or slower shows the smaller number first; no finding
// counts zero errors or replays.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>

#include "checks/runner.h"
#include "gpu/smi_dump.h"
#include "testing/check_test_util.h"
#include "testing/gpu_test_util.h"

namespace ys {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kFaultReasons = gpu::kClocksEventHwSlowdown |
                                   gpu::kClocksEventHwThermalSlowdown |
                                   gpu::kClocksEventHwPowerBrakeSlowdown |
                                   gpu::kClocksEventSwThermalSlowdown | gpu::kClocksEventSwPowerCap;

// Each pair (a, b) of numbers matched by `re` (two groups) in `msg`.
std::vector<std::pair<long, long>> Pairs(const std::string& msg, const std::regex& re) {
  std::vector<std::pair<long, long>> out;
  for (auto it = std::sregex_iterator(msg.begin(), msg.end(), re); it != std::sregex_iterator();
       ++it) {
    out.emplace_back(std::stol((*it)[1].str()), std::stol((*it)[2].str()));
  }
  return out;
}

// Why `msg` contradicts its own numbers; empty when it does not.
std::string Contradiction(const std::string& msg) {
  static const std::regex kClock(R"((\d+)/(\d+) MHz)");
  static const std::regex kWidth(R"(x(\d+), the GPU and slot support x(\d+))");
  static const std::regex kGen(R"(Gen(\d+) under load, the maximum is Gen(\d+))");
  static const std::regex kZeroCount(R"((^|[^\d.])0 (\w+ ){0,2}(errors|replays)\b)");
  const bool not_reduced = msg.find("not reduced") != std::string::npos;
  const bool reduced = !not_reduced && (msg.find("held down") != std::string::npos ||
                                        msg.find("reduced") != std::string::npos);
  for (const auto& [cur, max] : Pairs(msg, kClock)) {
    if (reduced && cur >= max)
      return "says the clock is reduced at " + std::to_string(cur) + "/" + std::to_string(max) +
             " MHz";
    if (not_reduced && cur < max)
      return "says the clock is not reduced at " + std::to_string(cur) + "/" + std::to_string(max) +
             " MHz";
  }
  for (const std::regex* re : {&kWidth, &kGen}) {
    for (const auto& [cur, max] : Pairs(msg, *re)) {
      if (cur >= max)
        return "says the link is below its maximum, with " + std::to_string(cur) + " of " +
               std::to_string(max);
    }
  }
  if (std::regex_search(msg, kZeroCount)) return "counts zero as a fault";
  return {};
}

TEST(GpuFindingConsistencyTest, TheRulesCatchContradictions) {
  EXPECT_NE(Contradiction("clocks held down by HW slowdown (1980/1980 MHz SM)"), "");
  EXPECT_EQ(Contradiction("clocks held down by HW slowdown (1125/1980 MHz SM)"), "");
  EXPECT_NE(Contradiction("HW slowdown reason bit set, clock not reduced (900/1980 MHz SM)"), "");
  EXPECT_EQ(Contradiction("HW slowdown reason bit set, clock not reduced (1980/1980 MHz SM)"), "");
  EXPECT_NE(Contradiction("PCIe link runs at x16, the GPU and slot support x16"), "");
  EXPECT_NE(Contradiction("0 NVLink replay errors (link 3: 0)"), "");
  EXPECT_EQ(Contradiction("12 NVLink replay errors (link 3: 12)"), "");
}

struct Source {
  std::string name;
  gpu::GpuSnapshot snapshot;
  bool real;  // a real dump: replayed on an empty host tree
};

std::vector<Source> Sources() {
  std::vector<Source> out;
  const std::string fixtures = YS_FIXTURES_DIR;
  for (const char* dir : {"/nvml", "/real/nvidia-smi"}) {
    for (const auto& e : fs::directory_iterator(fixtures + dir)) {
      std::string ext = e.path().extension().string();
      if (ext != ".json" && ext != ".txt" && ext != ".xml") continue;
      auto s = gpu::LoadGpuStateFile(e.path().string());
      if (!s.ok()) continue;  // a burn-in timeline, a kernel log: not a GPU state
      out.push_back({e.path().filename().string(), std::move(*s), dir[1] == 'r'});
    }
  }
  return out;
}

// Every GPU with every fault reason set; the SM clock at its maximum, or below it.
gpu::GpuSnapshot WithFaultReasons(gpu::GpuSnapshot s, bool at_max) {
  for (auto& d : s.devices) {
    uint32_t max = d.max_sm_clock_mhz.has() ? *d.max_sm_clock_mhz : 1980;
    d.max_sm_clock_mhz = gpu::Field<uint32_t>::Of(max);
    d.sm_clock_mhz = gpu::Field<uint32_t>::Of(at_max ? max : max / 2);
    d.clocks_event_reasons = gpu::Field<uint64_t>::Of(kFaultReasons);
  }
  return s;
}

TEST(GpuFindingConsistencyTest, EveryFindingAgreesWithItsNumbers) {
  std::vector<Source> sources = Sources();
  ASSERT_GE(sources.size(), 12u) << "the recorded states and real dumps";
  testing::TempHost empty;
  host::Host empty_host = empty.Host();
  auto fixture_host = host::Host::AtRoot(testing::FixturePath("healthy-8gpu"));
  ASSERT_TRUE(fixture_host.ok());
  int findings = 0, not_reduced = 0, held_down = 0;
  for (const Source& src : sources) {
    for (int variant = 0; variant < 3; ++variant) {
      gpu::GpuSnapshot s =
          variant == 0 ? src.snapshot : WithFaultReasons(src.snapshot, variant == 1);
      checks::SiteExpectations expect;
      checks::CheckContext ctx(src.real ? empty_host : *fixture_host, expect);
      ctx.set_gpu(std::move(s));
      ctx.set_kernel_log_path(testing::NvmlFixturePath("xid-kmsg.txt"));
      checks::RunOptions options;
      options.filters = {"gpu.*"};
      for (const CheckResult& r : checks::RunChecks(ctx, options)) {
        for (const Finding& f : r.findings) {
          ++findings;
          not_reduced += f.message.find("not reduced") != std::string::npos;
          held_down += f.message.find("held down") != std::string::npos;
          EXPECT_EQ(Contradiction(f.message), "") << src.name << " variant " << variant << ": "
                                                  << f.code << " " << f.entity << ": " << f.message;
        }
      }
    }
  }
  // The variants reach both kinds of clock message.
  EXPECT_GT(findings, 0);
  EXPECT_GT(not_reduced, 0);
  EXPECT_GT(held_down, 0);
}

}  // namespace
}  // namespace ys
