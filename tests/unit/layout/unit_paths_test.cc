// The id gives the path: every registered unit `<area>.<name>` lives in
// src/<kind>/<area>/<name>.cc, where a dot or dash inside the name becomes an underscore, or a
// dot a folder (cpu.cstates.kernel_limit in src/checks/cpu/cstates/kernel_limit.cc). The file
// must name the id (or, for proxies, whose registration names the model, the name) as a string,
// so that the test holds whatever the registration line looks like.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "checks/unit_aliases.h"
#include "core/registry.h"

namespace ys {
namespace {

namespace fs = std::filesystem;

std::string Underscored(std::string s) {
  for (char& c : s) {
    if (c == '.' || c == '-') c = '_';
  }
  return s;
}

// The files the id may live in, relative to the source tree.
std::vector<std::string> Candidates(const std::string& kind_dir, std::string_view id) {
  std::string s(id);
  size_t dot = s.find('.');
  std::string area = s.substr(0, dot);
  std::string name = dot == std::string::npos ? s : s.substr(dot + 1);
  std::string base = "src/" + kind_dir + "/" + area + "/";
  std::vector<std::string> out = {base + Underscored(name) + ".cc"};
  // Each dot a folder, the last part the file.
  std::string nested = name;
  size_t last = nested.rfind('.');
  if (last != std::string::npos) {
    std::string folders = nested.substr(0, last);
    for (char& c : folders) {
      if (c == '.') c = '/';
    }
    out.push_back(base + Underscored(folders) + "/" + Underscored(nested.substr(last + 1)) + ".cc");
  }
  return out;
}

std::string ReadSource(const std::string& rel) {
  std::ifstream in(fs::path(YS_SOURCE_DIR) / rel);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Empty when the id's file exists and names it; else what is wrong.
std::string CheckPath(const std::string& kind_dir, std::string_view id) {
  std::vector<std::string> files = Candidates(kind_dir, id);
  std::string name(id.substr(id.find('.') + 1));
  for (const std::string& f : files) {
    if (!fs::exists(fs::path(YS_SOURCE_DIR) / f)) continue;
    std::string text = ReadSource(f);
    if (text.find("\"" + std::string(id) + "\"") != std::string::npos) return "";
    if (text.find("\"" + name + "\"") != std::string::npos) return "";
    return f + " does not name \"" + std::string(id) + "\"";
  }
  std::string tried;
  for (const std::string& f : files) tried += (tried.empty() ? "" : " or ") + f;
  return "no " + tried;
}

// The folder of a unit's kind. Proxy workloads (training and serving) register as benchmarks; they
// are workloads and live with them.
std::string KindDir(const RegisteredUnit& u) {
  switch (u.kind) {
    case UnitKind::kCheck:
      return "checks";
    case UnitKind::kRule:
      return "diagnose/rules";
    case UnitKind::kBenchmark:
      return u.info.id.starts_with("proxy.") || u.info.id.starts_with("serving.") ? "workloads"
                                                                                  : "bench";
    case UnitKind::kCommand:
      return "cli";
  }
  return "";
}

TEST(UnitPaths, EveryUnitLivesWhereItsIdSays) {
  size_t units = 0, rules = 0;
  for (const RegisteredUnit* u : UnitRegistry::Global().ListAll()) {
    if (u->info.id.starts_with("zz_test.")) continue;  // units that tests register for themselves
    if (u->kind == UnitKind::kCommand) continue;       // EveryCommandHasItsFile
    ++(u->kind == UnitKind::kRule ? rules : units);
    EXPECT_EQ(CheckPath(KindDir(*u), u->info.id), "") << UnitKindName(u->kind) << " " << u->info.id;
  }
  EXPECT_GT(units, 40u);
  EXPECT_GT(rules, 10u);
}

// A subcommand `yardstick NAME` lives in src/cli/cmd_NAME.cc.
TEST(UnitPaths, EveryCommandHasItsFile) {
  size_t n = 0;
  for (const RegisteredUnit* u : UnitRegistry::Global().List(UnitKind::kCommand)) {
    ++n;
    std::string file = "src/cli/cmd_" + Underscored(std::string(u->info.id)) + ".cc";
    EXPECT_TRUE(fs::exists(fs::path(YS_SOURCE_DIR) / file)) << file;
    EXPECT_NE(ReadSource(file).find("\"" + std::string(u->info.id) + "\""), std::string::npos)
        << file << " does not name \"" << u->info.id << "\"";
  }
  EXPECT_GT(n, 15u);
}

TEST(UnitPaths, CandidatesFollowTheRule) {
  EXPECT_EQ(Candidates("checks", "cpu.cstates.kernel_limit"),
            (std::vector<std::string>{"src/checks/cpu/cstates_kernel_limit.cc",
                                      "src/checks/cpu/cstates/kernel_limit.cc"}));
  EXPECT_EQ(Candidates("workloads", "proxy.llama3.1_8b"),
            (std::vector<std::string>{"src/workloads/proxy/llama3_1_8b.cc",
                                      "src/workloads/proxy/llama3/1_8b.cc"}));
  EXPECT_EQ(Candidates("bench", "mem.gpu"), (std::vector<std::string>{"src/bench/mem/gpu.cc"}));
  EXPECT_NE(CheckPath("checks", "cpu.no_such_unit"), "");
}

// Tests mirror the checks they test: tests/unit/checks/<dir>/<name>[_<aspect>]_test.cc tests
// src/checks/<dir>/<name>.cc (or .h), or the units of the folder src/checks/<dir>/<name>/
// (tests/unit/checks/cpu/cstates_test.cc tests src/checks/cpu/cstates/*.cc). Tests of every check
// on every fixture host are the only ones that mirror no source.
const char* const kCrossCuttingCheckTests[] = {
    "fixture_matrix_test.cc",  // every check on every fixture host tree
    "unit_params_test.cc",     // parameters declared by units, set by site files
};

// Empty when the test file at `rel` (relative to tests/unit/checks) mirrors a source; else why not.
std::string MirrorOf(const fs::path& rel) {
  for (const char* c : kCrossCuttingCheckTests) {
    if (rel == c) return "";
  }
  std::string stem = rel.filename().string();
  stem = stem.substr(0, stem.size() - std::string("_test.cc").size());
  fs::path dir = fs::path(YS_SOURCE_DIR) / "src/checks" / rel.parent_path();
  // The name, or a prefix of it ending before an underscore (the rest names the aspect tested).
  for (size_t end = stem.size(); end > 0;) {
    std::string name = stem.substr(0, end);
    if (fs::exists(dir / (name + ".cc")) || fs::exists(dir / (name + ".h")) ||
        fs::is_directory(dir / name)) {
      return "";
    }
    size_t underscore = stem.rfind('_', end - 1);
    if (underscore == std::string::npos) break;
    end = underscore;
  }
  return "tests/unit/checks/" + rel.string() + " mirrors no src/checks/" +
         rel.parent_path().string() + (rel.has_parent_path() ? "/" : "") + stem +
         "{.cc,.h,/} (nor a prefix of it)";
}

TEST(UnitPaths, CheckTestsMirrorTheirSources) {
  fs::path root = fs::path(YS_SOURCE_DIR) / "tests/unit/checks";
  size_t n = 0;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    std::string file = e.path().filename().string();
    if (!e.is_regular_file() || !file.ends_with("_test.cc")) continue;
    ++n;
    EXPECT_EQ(MirrorOf(fs::relative(e.path(), root)), "");
  }
  EXPECT_GT(n, 30u);
}

TEST(UnitPaths, MirrorRuleRejectsALaggingTest) {
  EXPECT_EQ(MirrorOf("cpu/isolation_test.cc"), "");
  EXPECT_EQ(MirrorOf("cpu/cstates_test.cc"), "");               // the folder's units
  EXPECT_EQ(MirrorOf("gpu/xid_real_test.cc"), "");              // gpu/xid.cc, an aspect
  EXPECT_EQ(MirrorOf("gpu_fixture_matrix_test.cc"), "");        // the gpu folder's units
  EXPECT_NE(MirrorOf("isolation/core_isolation_test.cc"), "");  // the unit moved to cpu/
  EXPECT_NE(MirrorOf("gpu/gpu_clocks_test.cc"), "");
}

// Every check has a test at its mirrored path: src/checks/<path>.cc is tested by
// tests/unit/checks/<path>_test.cc, or by the test of a folder above it.
TEST(UnitPaths, EveryCheckHasAMirroredTest) {
  size_t n = 0;
  for (const RegisteredUnit* u : UnitRegistry::Global().List(UnitKind::kCheck)) {
    if (u->info.id.starts_with("zz_test.")) continue;
    for (const std::string& f : Candidates("checks", u->info.id)) {
      if (!fs::exists(fs::path(YS_SOURCE_DIR) / f)) continue;
      ++n;
      fs::path p = fs::path(f).lexically_relative("src/checks").replace_extension();
      bool found = false;
      for (; !p.empty() && !found; p = p.parent_path()) {
        found =
            fs::exists(fs::path(YS_SOURCE_DIR) / "tests/unit/checks" / (p.string() + "_test.cc"));
      }
      EXPECT_TRUE(found)
          << u->info.id << " (" << f << ") has no tests/unit/checks/"
          << fs::path(f).lexically_relative("src/checks").replace_extension().string()
          << "_test.cc nor a test of a folder above it";
    }
  }
  EXPECT_GT(n, 40u);
}

// A retired id must not be registered again, and each id that replaced it must be.
TEST(UnitPaths, AliasesNameRegisteredUnits) {
  for (const checks::UnitAlias& a : checks::UnitAliases()) {
    EXPECT_EQ(UnitRegistry::Global().Find(UnitKind::kCheck, a.old_id), nullptr) << a.old_id;
    EXPECT_FALSE(a.ids.empty()) << a.old_id;
    for (std::string_view id : a.ids) {
      const RegisteredUnit* u = UnitRegistry::Global().Find(UnitKind::kCheck, id);
      ASSERT_NE(u, nullptr) << a.old_id << " -> " << id;
      EXPECT_EQ(u->kind, UnitKind::kCheck) << id;
    }
  }
}

}  // namespace
}  // namespace ys
