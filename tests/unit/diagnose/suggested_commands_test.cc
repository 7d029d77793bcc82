// Every command line yardstick suggests for nvidia-smi, dcgmi or ibstat is one that tool takes:
// each fix of every check on every recorded host tree and NVML state, each fleet action and the
// workload rules' fixes are searched for those tools, and each command found is parsed against a
// table of the tool's options (nvidia-smi(1), `dcgmi diag --help`, ibstat(8)). nvidia-smi's -i
// takes an index, a PCI bus id or a UUID, never a label such as "gpu1".
#include <gtest/gtest.h>

#include <cctype>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "checks/runner.h"
#include "diagnose/rules/rule_test_util.h"
#include "fleet/actions.h"
#include "testing/check_test_util.h"
#include "testing/gpu_test_util.h"

namespace ys {
namespace {

// What an option's argument must be.
enum class Arg { kNone, kGpuId, kDisplay, kBool, kNumber, kDiagLevel, kAny };

struct Syntax {
  std::map<std::string, Arg> options;
  std::set<std::string> subcommands;  // the first word may be one of these
  int positionals = 0;                // words after the options (ibstat's CA and port)
};

// The options of each tool (and subcommand) that yardstick may suggest.
const std::map<std::string, Syntax>& Tools() {
  static const std::map<std::string, Syntax> kTools = {
      {"nvidia-smi",
       {{{"-L", Arg::kNone},
         {"-q", Arg::kNone},
         {"-r", Arg::kNone},
         {"-x", Arg::kNone},
         {"-i", Arg::kGpuId},
         {"-d", Arg::kDisplay},
         {"-pm", Arg::kBool},
         {"-e", Arg::kBool},
         {"-mig", Arg::kBool},
         {"-pl", Arg::kNumber},
         {"-l", Arg::kNumber}},
        {"nvlink", "topo", "mig"}}},
      {"nvidia-smi nvlink",
       {{{"-s", Arg::kNone},
         {"--status", Arg::kNone},
         {"-e", Arg::kNone},
         {"--errorcounters", Arg::kNone},
         {"-c", Arg::kNone},
         {"-i", Arg::kGpuId}}}},
      {"nvidia-smi topo", {{{"-m", Arg::kNone}}}},
      {"nvidia-smi mig",
       {{{"-dci", Arg::kNone},
         {"-dgi", Arg::kNone},
         {"-lgi", Arg::kNone},
         {"-lci", Arg::kNone},
         {"-i", Arg::kGpuId}}}},
      {"dcgmi", {{}, {"diag", "config", "health", "discovery"}}},
      {"dcgmi diag", {{{"-r", Arg::kDiagLevel}, {"-i", Arg::kGpuId}}}},
      {"dcgmi config", {{{"--get", Arg::kNone}}}},
      {"dcgmi discovery", {{{"-l", Arg::kNone}}}},
      {"ibstat",
       {{{"-d", Arg::kNone}, {"-l", Arg::kNone}, {"-s", Arg::kNone}, {"-p", Arg::kNone}}, {}, 2}},
  };
  return kTools;
}

bool AllOf(const std::string& s, int (*pred)(int), const std::string& also = "") {
  if (s.empty()) return false;
  for (char c : s) {
    if (pred(static_cast<unsigned char>(c)) == 0 && also.find(c) == std::string::npos) return false;
  }
  return true;
}

// Why `value` is not a valid argument of kind `arg`, or "".
std::string BadArg(Arg arg, const std::string& value) {
  static const std::set<std::string> kDisplay = {"MEMORY",
                                                 "UTILIZATION",
                                                 "ECC",
                                                 "TEMPERATURE",
                                                 "POWER",
                                                 "CLOCK",
                                                 "COMPUTE",
                                                 "PIDS",
                                                 "PERFORMANCE",
                                                 "SUPPORTED_CLOCKS",
                                                 "PAGE_RETIREMENT",
                                                 "ACCOUNTING",
                                                 "ENCODER_STATS",
                                                 "SUPPORTED_GPU_TARGET_TEMP",
                                                 "VOLTAGE",
                                                 "FBC_STATS",
                                                 "ROW_REMAPPER",
                                                 "RESET_STATUS",
                                                 "GSP_FIRMWARE_VERSION"};
  bool placeholder = value.size() > 2 && value.front() == '<' && value.back() == '>';
  switch (arg) {
    case Arg::kNone:
    case Arg::kAny:
      return "";
    case Arg::kGpuId: {
      bool index = AllOf(value, isdigit, ",");
      bool uuid = (value.rfind("GPU-", 0) == 0 || value.rfind("MIG-", 0) == 0) &&
                  AllOf(value.substr(4), isxdigit, "-");
      bool bus = AllOf(value, isxdigit, ":.") && value.find(':') != std::string::npos;
      return index || uuid || bus || placeholder
                 ? ""
                 : "'" + value + "' is not a GPU index, PCI bus id or UUID";
    }
    case Arg::kDisplay: {
      std::stringstream ss(value);
      std::string part;
      while (std::getline(ss, part, ',')) {
        if (kDisplay.count(part) == 0) return "-d " + part + " is not a display type";
      }
      return "";
    }
    case Arg::kBool:
      return value == "0" || value == "1" ? "" : "'" + value + "' is not 0 or 1";
    case Arg::kNumber:
      return AllOf(value, isdigit, ".") ? "" : "'" + value + "' is not a number";
    case Arg::kDiagLevel:
      return value.size() == 1 && value[0] >= '1' && value[0] <= '4'
                 ? ""
                 : "dcgmi diag -r " + value + " is not a run level 1-4";
  }
  return "";
}

// One token of prose: the word, and whether punctuation after it ends the command.
struct Word {
  std::string text;
  bool last = false;
};

std::vector<Word> Words(const std::string& text) {
  std::vector<Word> out;
  std::stringstream ss(text);
  std::string w;
  while (ss >> w) {
    bool last = false;
    while (!w.empty() && std::string(";,)`'\".").find(w.back()) != std::string::npos) {
      w.pop_back();
      last = true;
    }
    while (!w.empty() && std::string("(`'\"").find(w.front()) != std::string::npos)
      w.erase(w.begin());
    out.push_back({w, last});
  }
  return out;
}

// Parses the command that starts at words[at] (the tool's name); "" when it is valid. The
// command ends at the first word that is neither an option, an option's argument, a subcommand
// nor a positional, or at punctuation.
std::string CheckAt(const std::vector<Word>& words, size_t at) {
  std::string tool = words[at].text;
  const Syntax* syntax = &Tools().at(tool);
  int positionals = 0;
  for (size_t i = at + 1; i < words.size() && !words[i - 1].last; ++i) {
    const std::string& w = words[i].text;
    if (i == at + 1 && syntax->subcommands.count(w) != 0) {
      tool += " " + w;
      syntax = &Tools().at(tool);
      continue;
    }
    if (w.size() > 1 && w[0] == '-') {
      auto opt = syntax->options.find(w);
      if (opt == syntax->options.end()) return tool + ": unknown option " + w;
      if (opt->second == Arg::kNone) continue;
      if (words[i].last || i + 1 >= words.size()) return tool + " " + w + ": no argument";
      if (std::string why = BadArg(opt->second, words[i + 1].text); !why.empty())
        return tool + " " + w + ": " + why;
      ++i;
      continue;
    }
    if (positionals < syntax->positionals) {
      ++positionals;
      continue;
    }
    break;
  }
  return "";
}

// Every nvidia-smi, dcgmi and ibstat command in `text`, each checked: "" when all are valid.
std::string CheckCommands(const std::string& text, int* found) {
  std::vector<Word> words = Words(text);
  std::string bad;
  for (size_t i = 0; i < words.size(); ++i) {
    if (Tools().count(words[i].text) == 0) continue;
    ++*found;
    if (std::string why = CheckAt(words, i); !why.empty()) bad += why + "\n";
  }
  return bad;
}

TEST(SuggestedCommandsTest, TheCheckerCatchesWhatTheToolsRefuse) {
  int n = 0;
  EXPECT_EQ(CheckCommands("run nvidia-smi -q -d ECC,ROW_REMAPPER -i 3 and look", &n), "");
  EXPECT_EQ(CheckCommands("(nvidia-smi -i 0000:1b:00.0 -pm 1 until the next reboot)", &n), "");
  EXPECT_EQ(CheckCommands("`ibstat mlx5_0 1`, dcgmi diag -r 3 -i 2; nvidia-smi nvlink -s -i 1", &n),
            "");
  EXPECT_NE(CheckCommands("nvidia-smi -q -i gpu1", &n), "");
  EXPECT_NE(CheckCommands("nvidia-smi -q -d PCIE -i 3", &n), "");
  EXPECT_NE(CheckCommands("nvidia-smi nvlink --state -i 3", &n), "");
  EXPECT_NE(CheckCommands("dcgmi diag -r 9", &n), "");
  EXPECT_EQ(n, 9);
}

// Every fix the checks give on the recorded trees and NVML states.
std::vector<std::string> CheckFixes() {
  std::vector<std::string> fixes;
  auto collect = [&fixes](const checks::CheckContext& ctx) {
    for (const CheckResult& r : checks::RunChecks(ctx, {})) {
      for (const Finding& f : r.findings) fixes.push_back(r.unit_id + ": " + f.fix);
    }
  };
  for (const char* tree : {"healthy-8gpu", "h100-misconfigured", "grace-vm-smmu",
                           "container-topo-missing", "downtrained-link", "this-machine"}) {
    auto host = host::Host::AtRoot(testing::FixturePath(tree));
    if (!host.ok()) continue;
    checks::SiteExpectations expect;
    checks::CheckContext ctx(*host, expect);
    collect(ctx);
  }
  for (const char* state : {"h200x8-throttle-remap", "nvlink-down", "xid"}) {
    auto host = host::Host::AtRoot(testing::FixturePath("healthy-8gpu"));
    if (!host.ok()) continue;
    checks::SiteExpectations expect;
    expect.devices.gpus = 4;  // gpu.count's fix too
    checks::CheckContext ctx(*host, expect);
    ctx.set_nvml_state_path(testing::NvmlFixturePath(std::string(state) + ".json"));
    ctx.set_kernel_log_path(testing::NvmlFixturePath(
        std::string(state) == "xid" ? "xid-kmsg.txt" : "healthy-kmsg.txt"));
    collect(ctx);
  }
  return fixes;
}

std::vector<std::string> FleetAndRuleFixes() {
  std::vector<std::string> fixes;
  using fleet::FigureKind;
  for (int k = 0; k <= static_cast<int>(FigureKind::kOther); ++k) {
    for (const char* e : {"node", "gpu1", "GPU-8f2a61c4-0b7e-4f0a-9d3c-1a2b3c4d5e6f", "mlx5_0"}) {
      fixes.push_back(fleet::ActionFor(static_cast<FigureKind>(k), e));
    }
  }
  RunDocument doc = testing::DocWithFindings({});
  std::vector<double> ramp;
  for (int i = 0; i < 60; ++i) ramp.push_back(1.0 + 0.12 * i / 59);
  for (const char* source : {"nvml", "none: NVML not found"}) {
    doc.host.gpu_source = source;
    auto in = testing::InputFor(doc);
    in.workloads.push_back(testing::WorkloadWithSteps("proxy.llama3.1_8b", ramp));
    in.workloads.push_back(
        testing::WorkloadWithSteps("proxy.stalls", testing::Steps(100, 1.0, 0.08, 10)));
    for (const char* rule : {"workload.drift", "workload.periodic_stalls"}) {
      for (const Diagnosis& d : testing::EvaluateRule(rule, in)) fixes.push_back(d.fix);
    }
  }
  RunDocument throttled = testing::DocWithFindings(
      {testing::MakeTestFinding("YS-GPU-013", "gpu1", "clocks held down: SW thermal slowdown")});
  auto in = testing::InputFor(throttled);
  in.workloads.push_back(testing::WorkloadWithSteps("proxy.llama3.1_8b", ramp));
  for (const Diagnosis& d : testing::EvaluateRule("gpu.throttling", in)) fixes.push_back(d.fix);
  return fixes;
}

TEST(SuggestedCommandsTest, EverySuggestedCommandIsValidForItsTool) {
  int found = 0;
  std::string bad;
  std::vector<std::string> fixes = CheckFixes();
  for (const std::string& f : FleetAndRuleFixes()) fixes.push_back(f);
  for (const std::string& fix : fixes) {
    if (std::string why = CheckCommands(fix, &found); !why.empty())
      bad += why + "  in: " + fix + "\n";
  }
  EXPECT_EQ(bad, "");
  EXPECT_GE(found, 20) << "the fixes searched hold too few commands to mean anything";
}

TEST(SuggestedCommandsTest, NvidiaSmiTakesAnIndexBusIdOrUuid) {
  EXPECT_EQ(fleet::NvidiaSmiTarget("gpu1"), " -i 1");
  EXPECT_EQ(fleet::NvidiaSmiTarget("0000:1b:00.0"), " -i 0000:1b:00.0");
  EXPECT_EQ(fleet::NvidiaSmiTarget("GPU-8f2a61c4-0b7e"), " -i GPU-8f2a61c4-0b7e");
  EXPECT_EQ(fleet::NvidiaSmiTarget("node"), "");
  EXPECT_EQ(fleet::NvidiaSmiTarget("gpu"), "");
  EXPECT_EQ(fleet::ActionFor(fleet::FigureKind::kGemm, "gpu1").find("-i gpu1"), std::string::npos);
}

}  // namespace
}  // namespace ys
