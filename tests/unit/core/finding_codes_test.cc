// The finding codes are declared where they are born (core/finding_codes.h): by the unit that
// raises them, in its registration, or by a producer that is not a unit (YS_FINDING_CODES). These
// tests hold the declarations to the sources: every code a source file names is declared by the
// unit (or producer) of that file, or for a helper without a registration (an area's internal/
// code) by a unit of its area; a rule or another reader of findings names only declared codes;
// and a code declared by several units means the same to each.
#include "core/finding_codes.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "core/registry.h"

namespace ys {
namespace finding_codes_test {
namespace {

namespace fs = std::filesystem;

// The source without its // comments (a comment may quote a code it does not raise).
std::string WithoutComments(const std::string& text) {
  std::string out;
  bool in_string = false, in_comment = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_comment) {
      if (c == '\n') {
        in_comment = false;
        out += c;
      }
      continue;
    }
    if (in_string) {
      if (c == '\\' && i + 1 < text.size()) {
        out += c;
        out += text[++i];
        continue;
      }
      if (c == '"' || c == '\n') in_string = false;
    } else if (c == '"' && (i == 0 || text[i - 1] != '\'')) {
      in_string = true;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      in_comment = true;
      continue;
    }
    out += c;
  }
  return out;
}

// The code literals ("YS-GPU-010") of a source file.
std::set<std::string> CodeLiterals(const fs::path& file) {
  std::ifstream in(file);
  std::string text = WithoutComments(std::string(std::istreambuf_iterator<char>(in), {}));
  static const std::regex kLiteral("\"(YS-[A-Z]+-[0-9]+)\"");
  std::set<std::string> out;
  for (std::sregex_iterator it(text.begin(), text.end(), kLiteral), end; it != end; ++it) {
    out.insert((*it)[1].str());
  }
  return out;
}

// Files that read findings to match codes rather than raise them: the diagnosis rules and the
// Slurm health check's drain list.
bool ReadsFindings(const std::string& rel) {
  return rel.rfind("src/diagnose/rules/", 0) == 0 || rel.rfind("src/slurm/", 0) == 0;
}

// A helper's area: its folder, without a trailing internal/ ("src/bench/coll/internal/sweep.cc"
// -> "src/bench/coll/").
std::string AreaOf(const std::string& rel) {
  std::string dir = rel.substr(0, rel.rfind('/') + 1);
  const std::string internal = "internal/";
  if (dir.size() >= internal.size() &&
      dir.compare(dir.size() - internal.size(), internal.size(), internal) == 0) {
    dir.erase(dir.size() - internal.size());
  }
  return dir;
}

// Codes declared in `rel`, else (a file that declares none) in its area; and who declared them.
std::map<std::string, std::string> DeclaredFor(const std::string& rel,
                                               const std::vector<FindingCodeDeclaration>& all) {
  std::map<std::string, std::string> own, area;
  const std::string dir = AreaOf(rel);
  for (const FindingCodeDeclaration& d : all) {
    if (d.file == rel) own.emplace(d.info.code, d.by);
    if (d.file.substr(0, dir.size()) == dir) area.emplace(d.info.code, d.by);
  }
  return own.empty() ? area : own;
}

// Every problem with the code literals of src/: a code a file names that its unit (or area) does
// not declare, or, in a file that reads findings, that nobody declares.
std::vector<std::string> UndeclaredCodes(const fs::path& root) {
  const std::vector<FindingCodeDeclaration> all = FindingCodeDeclarations();
  std::vector<std::string> problems;
  for (const auto& entry : fs::recursive_directory_iterator(root / "src")) {
    const fs::path& p = entry.path();
    if (!entry.is_regular_file() || (p.extension() != ".cc" && p.extension() != ".h")) continue;
    const std::string rel = fs::relative(p, root).generic_string();
    const std::set<std::string> codes = CodeLiterals(p);
    if (codes.empty()) continue;
    const bool reads = ReadsFindings(rel);
    const std::map<std::string, std::string> declared = DeclaredFor(rel, all);
    for (const std::string& code : codes) {
      if (reads && LookupFindingCode(code) != nullptr) continue;
      if (!reads && declared.count(code) != 0) continue;
      problems.push_back(rel + ": " + code +
                         (reads ? " is matched but no unit or producer declares it"
                                : " is raised but not declared by the unit of this file (or, for a "
                                  "helper, of its area)"));
    }
  }
  return problems;
}

TEST(FindingCodesTest, EveryCodeASourceNamesIsDeclaredWhereItIsRaised) {
  std::vector<std::string> problems = UndeclaredCodes(fs::path(YS_SOURCE_DIR));
  for (const std::string& p : problems) ADD_FAILURE() << p;
}

TEST(FindingCodesTest, ACodeDeclaredTwiceMeansTheSame) {
  std::map<std::string_view, FindingCodeDeclaration> first;
  for (const FindingCodeDeclaration& d : FindingCodeDeclarations()) {
    auto [it, fresh] = first.emplace(d.info.code, d);
    if (fresh) continue;
    const FindingCodeDeclaration& a = it->second;
    EXPECT_EQ(a.info.title, d.info.title)
        << d.info.code << ": " << a.by << " and " << d.by << " give it different titles";
    EXPECT_EQ(a.info.severity, d.info.severity)
        << d.info.code << ": " << a.by << " and " << d.by << " give it different severities";
  }
}

TEST(FindingCodesTest, DeclarationsAreWellFormedAndLocated) {
  static const std::regex kCode("YS-[A-Z]+-[0-9]{3}");
  for (const FindingCodeDeclaration& d : FindingCodeDeclarations()) {
    EXPECT_TRUE(std::regex_match(std::string(d.info.code), kCode)) << d.info.code;
    EXPECT_FALSE(d.info.title.empty()) << d.info.code << " (" << d.by << ")";
    EXPECT_FALSE(d.by.empty()) << d.info.code;
    EXPECT_TRUE(fs::exists(fs::path(YS_SOURCE_DIR) / d.file)) << d.info.code << ": " << d.file;
  }
}

TEST(FindingCodesTest, CatalogueHoldsEachCodeOnceInOrder) {
  const auto& all = AllFindingCodes();
  ASSERT_FALSE(all.empty());
  for (size_t i = 1; i < all.size(); ++i) EXPECT_LT(all[i - 1].code, all[i].code);
  for (const FindingCodeInfo& c : all) EXPECT_EQ(LookupFindingCode(c.code), &c);
  EXPECT_EQ(LookupFindingCode("YS-NOPE-999"), nullptr);
}

TEST(FindingCodesTest, ProducersOutsideUnitsDeclareTheirCodes) {
  std::set<std::string_view> producers;
  for (const FindingCodeDeclaration& d : FindingCodeDeclarations()) producers.insert(d.by);
  for (std::string_view p : {"burnin", "fleet", "validate.dcgm_diag", "validate.nccl_tests"}) {
    EXPECT_EQ(producers.count(p), 1u) << p;
  }
}

// The scan itself: a planted raise of an undeclared code is found, and so is a rule matching a
// code nobody declares; a comment quoting a code is not a raise.
TEST(FindingCodesTest, ScanFindsAPlantedUndeclaredCode) {
  fs::path root =
      fs::temp_directory_path() / ("ys_finding_codes_test_" + std::to_string(::getpid()));
  fs::create_directories(root / "src/checks/cpu");
  fs::create_directories(root / "src/diagnose/rules/host");
  {
    std::ofstream(root / "src/checks/cpu/smt.cc")
        << "// YS-MEM-001 in a comment: \"YS-MEM-002\"\n"
        << "Finding f = MakeFinding(\"YS-CPU-020\", \"node\", m);\n"
        << "Finding g = MakeFinding(\"YS-CPU-010\", \"node\", m);\n";
    std::ofstream(root / "src/diagnose/rules/host/x.cc")
        << "auto a = FindingsWithCode(in, \"YS-CPU-020\");\n"
        << "auto b = FindingsWithCode(in, \"YS-NOPE-999\");\n";
  }
  std::vector<std::string> problems = UndeclaredCodes(root);
  fs::remove_all(root);
  ASSERT_EQ(problems.size(), 2u);
  std::sort(problems.begin(), problems.end());
  EXPECT_NE(problems[0].find("src/checks/cpu/smt.cc: YS-CPU-010 is raised"), std::string::npos)
      << problems[0];
  EXPECT_NE(problems[1].find("src/diagnose/rules/host/x.cc: YS-NOPE-999 is matched"),
            std::string::npos)
      << problems[1];
}

}  // namespace
}  // namespace finding_codes_test
}  // namespace ys
