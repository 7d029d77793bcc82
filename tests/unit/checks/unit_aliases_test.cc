#include "checks/unit_aliases.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/finding_codes.h"

namespace ys::checks {
namespace {

CheckResult Pass(std::string summary) {
  CheckResult r;
  r.summary = std::move(summary);
  r.Note("k", "v");
  r.Finalize();
  return r;
}

CheckResult WithFinding(const char* code) {
  CheckResult r;
  r.Add(MakeFinding(code, "node", "message"));
  r.Note("k", "v");
  r.Finalize();
  return r;
}

TEST(UnitAliases, ExpandFiltersAddsTheReplacements) {
  auto f = ExpandAliasFilters({"cpu.cstates"});
  EXPECT_EQ(f.front(), "cpu.cstates");
  EXPECT_NE(std::find(f.begin(), f.end(), "cpu.cstates.kernel_limit"), f.end());
  EXPECT_EQ(std::count_if(f.begin(), f.end(),
                          [](const std::string& s) { return s.rfind("cpu.frequency", 0) == 0; }),
            0);
  // A glob that matches an old id takes its replacements too; other globs stay as they are.
  auto g = ExpandAliasFilters({"virt.*", "gpu.*"});
  EXPECT_NE(std::find(g.begin(), g.end(), "virt.iommu.strict"), g.end());
  EXPECT_EQ(std::count(g.begin(), g.end(), "gpu.*"), 1);
  EXPECT_EQ(std::count_if(g.begin(), g.end(),
                          [](const std::string& x) { return x.rfind("gpu.", 0) == 0; }),
            1);
  EXPECT_TRUE(ExpandAliasFilters({}).empty());
}

TEST(UnitAliases, EveryReplacementSharesItsOldIdAsPrefix) {
  for (const UnitAlias& a : UnitAliases()) {
    for (std::string_view id : a.ids) {
      EXPECT_EQ(id.substr(0, a.old_id.size() + 1), std::string(a.old_id) + ".") << id;
    }
  }
  EXPECT_NE(FindUnitAlias("env.runtime"), nullptr);
  EXPECT_EQ(FindUnitAlias("env.runtime.gpudirect"), nullptr);
}

TEST(UnitAliases, MergeKeepsFindingsInOrderAndTheWorstOutcome) {
  CheckResult m =
      MergeAliasResults("cpu.cstates", {Pass("fine"), WithFinding("YS-CPU-003"),
                                        CheckResult::Skip("n/a"), WithFinding("YS-CPU-001")});
  EXPECT_EQ(m.unit_id, "cpu.cstates");
  ASSERT_EQ(m.findings.size(), 2u);
  EXPECT_EQ(m.findings[0].code, "YS-CPU-003");
  EXPECT_EQ(m.findings[1].code, "YS-CPU-001");
  EXPECT_EQ(m.outcome,
            std::max(WithFinding("YS-CPU-003").outcome, WithFinding("YS-CPU-001").outcome));
  EXPECT_GE(m.outcome, Outcome::kWarn);
  EXPECT_EQ(m.evidence.size(), 1u);  // the same note from several units counts once
}

TEST(UnitAliases, MergePassesWithTheFirstSummaryWhenSomeSkip) {
  CheckResult m = MergeAliasResults("x", {CheckResult::Skip("first"), Pass("seen"), Pass("b")});
  EXPECT_EQ(m.outcome, Outcome::kPass);
  EXPECT_EQ(m.summary, "seen");
}

TEST(UnitAliases, MergeSkipsOnlyWhenAllSkip) {
  CheckResult m = MergeAliasResults("x", {CheckResult::Skip("first"), CheckResult::Skip("b")});
  EXPECT_EQ(m.outcome, Outcome::kSkip);
  EXPECT_EQ(m.summary, "first");
}

TEST(UnitAliases, MergeErrorsWhenOneErrors) {
  CheckResult m = MergeAliasResults(
      "x", {WithFinding("YS-CPU-001"), CheckResult::Error(Status::Invalid("bad file"))});
  EXPECT_EQ(m.outcome, Outcome::kError);
  EXPECT_NE(m.summary.find("bad file"), std::string::npos);
  EXPECT_EQ(m.unit_id, "x");
}

}  // namespace
}  // namespace ys::checks
