// The format room (core/format_registry.h, src/formats/): every real sample of
// tests/fixtures/real/ is claimed by its own format and no other; a file no format claims is
// refused with the closest format and what it lacked; a fragment of a dcgmi diag table is read as
// far as it goes and says what is absent (tests/fixtures/real/dcgmi/SOURCES.md: the verdicts).
#include "core/format_registry.h"

#include <gtest/gtest.h>

#include <any>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include "core/run_document.h"
#include "core/verdict.h"
#include "gpu/gpu_snapshot.h"
#include "host/host.h"
#include "host/kernel_log.h"
#include "validate/workload_run.h"

namespace ys {
namespace {

std::string Real(const std::string& rel) { return std::string(YS_FIXTURES_DIR) + "/real/" + rel; }

std::string Write(const std::string& name, const std::string& text) {
  std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

Result<ChosenFormat> Choose(const std::string& path) {
  auto head = ReadFormatHead(path);
  if (!head.ok()) return head.status();
  return ChooseFormat(path, *head);
}

std::string Evidence(const CheckResult& c, const std::string& key) {
  for (const auto& [k, v] : c.evidence) {
    if (k == key) return v;
  }
  return "";
}

TEST(FormatRegistryTest, EveryFormatDeclaresItselfOnceWithAnExample) {
  const auto formats = FormatRegistry::Global().List();
  std::set<std::string> names;
  for (const RegisteredFormat* f : formats) {
    EXPECT_TRUE(names.insert(std::string(f->info.name)).second) << f->info.name;
    EXPECT_FALSE(f->info.summary.empty()) << f->info.name;
    EXPECT_FALSE(f->info.example.empty()) << f->info.name;
    EXPECT_TRUE(f->file.starts_with("src/formats/")) << f->info.name << ": " << f->file;
  }
  for (const char* name : {"megatron",          "nemo2",
                           "torchtitan",        "inference-json",
                           "nccl-tests",        "dcgmi-diag",
                           "dcgmi-diag-json",   "nvidia-smi-nvlink",
                           "nvidia-smi-q",      "nvidia-smi-q-xml",
                           "nvml-state",        "kernel-log",
                           "nvidia-bug-report", "nvidia-smi-topo",
                           "serving-console",   "aiperf-json",
                           "aiperf-csv",        "genai-perf-json",
                           "genai-perf-csv",    "genai-perf-console",
                           "trtllm-bench",      "mlperf-loadgen"}) {
    EXPECT_TRUE(names.count(name)) << name << " is not registered";
  }
}

// Each real sample is claimed, whole, by the format of its folder, and its own example line is
// claimed by its format (an example that its sniffer refuses would teach the wrong thing).
TEST(FormatRegistryTest, RealSamplesAreClaimedByTheirFormat) {
  const std::map<std::string, std::set<std::string>> by_folder = {
      {"dcgmi", {"dcgmi-diag"}},
      {"kernel-log", {"kernel-log"}},
      {"nccl-tests", {"nccl-tests"}},
      {"nvidia-smi", {"nvidia-smi-q", "nvidia-smi-q-xml"}},
      {"nvlink", {"nvidia-smi-nvlink"}},
      {"topo", {"nvidia-smi-topo"}},
      {"serving/aiperf", {"aiperf-json", "aiperf-csv"}},
      {"serving/genai-perf", {"genai-perf-json", "genai-perf-csv", "genai-perf-console"}},
      {"serving/vllm", {"inference-json", "serving-console"}},
      {"serving/sglang", {"inference-json", "serving-console"}},
      {"serving/trtllm-bench", {"trtllm-bench"}},
      {"serving/mlperf", {"mlperf-loadgen"}},
  };
  int files = 0;
  for (const auto& [folder, expected] : by_folder) {
    for (const auto& e : std::filesystem::directory_iterator(Real(folder))) {
      const std::string name = e.path().filename().string();
      if (name == "SOURCES.md" || !e.is_regular_file()) continue;
      auto chosen = Choose(e.path().string());
      ASSERT_TRUE(chosen.ok()) << name << ": " << chosen.status().message();
      EXPECT_TRUE(expected.count(std::string(chosen->format->info.name)))
          << folder << "/" << name << " read as " << chosen->format->info.name;
      // A grep of a kernel log (NVRM lines without their time stamps) is a fragment: read, and
      // said to lack the stamps.
      const bool grep = chosen->format->info.name == "kernel-log" &&
                        chosen->sniff.confidence == FormatSniff::kFragment;
      if (grep) EXPECT_NE(chosen->sniff.missing.find("time stamp"), std::string::npos) << name;
      if (name.find("fragment") == std::string::npos && !grep) {
        EXPECT_EQ(chosen->sniff.confidence, FormatSniff::kWhole) << name;
      }
      ++files;
    }
  }
  EXPECT_GE(files, 55);
}

TEST(FormatRegistryTest, AFileNoFormatClaimsGetsTheClosestAndTheList) {
  auto shopping = Choose(Write("shopping.txt", "eggs\nmilk, 2 l\nbread\n| apples | 6 |\n"));
  ASSERT_FALSE(shopping.ok());
  EXPECT_EQ(shopping.status().code(), StatusCode::kInvalidInput);
  const std::string& m = shopping.status().message();
  EXPECT_NE(m.find("shopping.txt: not a format yardstick reads"), std::string::npos) << m;
  EXPECT_NE(m.find("dcgmi-diag, dcgmi-diag-json"), std::string::npos) << m;
  EXPECT_EQ(m.find("training iterations"), std::string::npos) << m;
  // A near miss names the closest format and what it lacked.
  auto links = Choose(Write("links.txt", "Link 0: 26.562 GB/s\nLink 1: 26.562 GB/s\n"));
  ASSERT_FALSE(links.ok());
  EXPECT_NE(links.status().message().find(
                "the closest: nvidia-smi-nvlink (missing the 'GPU N: NAME (UUID: ...)' line"),
            std::string::npos)
      << links.status().message();
  // --format names a format, or is refused with the names.
  auto forced = ChooseFormat("x", "eggs", std::nullopt, "dcgm-diag");
  ASSERT_FALSE(forced.ok());
  EXPECT_NE(forced.status().message().find("did you mean 'dcgmi-diag'"), std::string::npos)
      << forced.status().message();
  auto other = ChooseFormat("x", "eggs", FormatProduct::kGpuState, "dcgmi-diag");
  EXPECT_FALSE(other.ok());
}

RunDocument ReadRun(const std::string& path) {
  auto chosen = Choose(path);
  EXPECT_TRUE(chosen.ok()) << chosen.status().message();
  if (!chosen.ok()) return {};
  auto read = chosen->format->read(FormatRequest{.path = path});
  EXPECT_TRUE(read.ok()) << read.status().message();
  if (!read.ok()) return {};
  const RunDocument* doc = std::any_cast<RunDocument>(&*read);
  EXPECT_NE(doc, nullptr);
  return doc ? *doc : RunDocument{};
}

// A dcgmi diag table without its header rows, pasted from a ticket with a sentence above and the
// author's "[...]": read as a fragment; its failure stands, on the GPUs its warnings name.
TEST(FormatRegistryTest, AHeaderlessDcgmiFragmentIsReadAsFarAsItGoes) {
  const std::string path = Real("dcgmi/h100_8gpu_r3_fragment_no_header.txt");
  auto chosen = Choose(path);
  ASSERT_TRUE(chosen.ok()) << chosen.status().message();
  EXPECT_EQ(chosen->format->info.name, "dcgmi-diag");
  EXPECT_EQ(chosen->sniff.confidence, FormatSniff::kFragment);
  EXPECT_EQ(chosen->sniff.missing, "the '| Diagnostic | Result |' header");
  RunDocument doc = ReadRun(path);
  ASSERT_EQ(doc.checks.size(), 1u);
  const CheckResult& c = doc.checks[0];
  EXPECT_EQ(c.outcome, Outcome::kFail);
  std::set<std::string> gpus;
  for (const Finding& f : c.findings) gpus.insert(f.entity);
  EXPECT_EQ(gpus, (std::set<std::string>{"gpu0", "gpu1", "gpu7"}));
  EXPECT_NE(Evidence(c, "missing").find("the Metadata section"), std::string::npos);
  EXPECT_NE(Evidence(c, "missing").find("the category separators"), std::string::npos);
  EXPECT_EQ(Evidence(c, "elided_lines"), "1");
  EXPECT_NE(c.summary.find("a fragment of dcgmi diag"), std::string::npos) << c.summary;
  EXPECT_EQ(JudgeRun(doc).state, VerdictState::kFail);
}

// A fragment whose rows all pass cannot stand for the tests it does not show: INCONCLUSIVE.
TEST(FormatRegistryTest, APassingDcgmiFragmentIsInconclusive) {
  RunDocument doc = ReadRun(Real("dcgmi/rtx_pro_6000_r3_deployment_fragment.txt"));
  ASSERT_EQ(doc.checks.size(), 1u);
  const CheckResult& c = doc.checks[0];
  EXPECT_EQ(c.outcome, Outcome::kError);
  EXPECT_NE(c.summary.find("9 pass"), std::string::npos) << c.summary;
  EXPECT_NE(c.summary.find("cannot stand for the whole diagnostic"), std::string::npos);
  EXPECT_EQ(Evidence(c, "missing").find("category separators"), std::string::npos);
  EXPECT_EQ(JudgeRun(doc).state, VerdictState::kInconclusive);
  // The whole table it was cut from is no fragment.
  RunDocument whole = ReadRun(Real("dcgmi/rtx_pro_6000_blackwell_r3_skips.txt"));
  ASSERT_EQ(whole.checks.size(), 1u);
  EXPECT_EQ(Evidence(whole.checks[0], "missing"), "");
}

// A tool's output already in memory (a section of a bug report) is read as its file would be;
// the request's path only names it, and is never opened.
TEST(FormatRegistryTest, TextInMemoryIsReadAsItsFileWouldBe) {
  const std::string path = Real("nvlink/v100_nvlink_s_two_inactive.txt");
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(text.empty());
  const RegisteredFormat* nvlink = FormatRegistry::Global().Find("nvidia-smi-nvlink");
  ASSERT_NE(nvlink, nullptr);
  const std::string source = "/nonexistent/report.log [nvidia-smi nvlink]";
  auto read = nvlink->read(FormatRequest{.path = source, .text = text, .forced = true});
  ASSERT_TRUE(read.ok()) << read.status().message();
  const RunDocument* doc = std::any_cast<RunDocument>(&*read);
  ASSERT_NE(doc, nullptr);
  RunDocument from_file = ReadRun(path);
  ASSERT_EQ(doc->checks.size(), 1u);
  ASSERT_EQ(from_file.checks.size(), 1u);
  EXPECT_EQ(doc->checks[0].outcome, from_file.checks[0].outcome);
  ASSERT_EQ(doc->checks[0].findings.size(), from_file.checks[0].findings.size());
  EXPECT_EQ(doc->checks[0].findings.at(0).code, "YS-GPU-045");
  EXPECT_NE(doc->checks[0].summary.find(source), std::string::npos) << doc->checks[0].summary;
  // Malformed text: the error names the source and the line.
  auto bad = nvlink->read(FormatRequest{
      .path = source, .text = std::string_view("GPU 0: V100 (UUID: GPU-1)\n  Link 0: ?\n")});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find(source + ":2:"), std::string::npos)
      << bad.status().message();
  // No text: the path is read, and a missing file is said to be one.
  auto missing = nvlink->read(FormatRequest{.path = "/nonexistent/nvlink.txt"});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound) << missing.status().message();
}

// The GPU-state readers (preflight --nvml-state) are chosen among the GPU-state formats alone.
TEST(FormatRegistryTest, GpuStateIsReadThroughTheRoom) {
  auto s = ReadFormatAs<gpu::GpuSnapshot>(Real("nvidia-smi/l4-r550.txt"), FormatProduct::kGpuState);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->devices.size(), 1u);
  auto wrong = ReadFormatAs<gpu::GpuSnapshot>(Real("dcgmi/h100_8gpu_r3_cuinit_fail.txt"),
                                              FormatProduct::kGpuState);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("GPU state (nvidia-smi-q"), std::string::npos)
      << wrong.status().message();
}

// --kernel-log through the room: a real log is read; text no kernel-log form claims is refused
// (any text parses as a log without events, which would read as a clean one); an empty file is a
// log with no lines yet.
TEST(FormatRegistryTest, ASavedKernelLogIsReadThroughTheRoomAndAnythingElseRefused) {
  host::Host live = host::Host::Live();
  auto real = host::ReadKernelLog(live, Real("kernel-log/gpud-xid119-gsp-timeout.dmesg-T.txt"));
  ASSERT_TRUE(real.ok()) << real.status().message();
  EXPECT_FALSE(real->empty());
  auto list = host::ReadKernelLog(live, Write("shopping.txt", "eggs\nflour\nmilk\n"));
  ASSERT_FALSE(list.ok());
  EXPECT_EQ(list.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(list.status().message().find("not a format yardstick reads"), std::string::npos)
      << list.status().message();
  EXPECT_NE(list.status().message().find("kernel-log"), std::string::npos);
  EXPECT_EQ(list.status().message().find("--format NAME"), std::string::npos)
      << "preflight has no --format: " << list.status().message();
  auto empty = host::ReadKernelLog(live, Write("empty.kmsg", ""));
  ASSERT_TRUE(empty.ok()) << empty.status().message();
  EXPECT_TRUE(empty->empty());
}

}  // namespace
}  // namespace ys
