#include "core/registry.h"

#include <gtest/gtest.h>

#include <set>

#include "core/finding_codes.h"
#include "testing/golden.h"

namespace ys {
namespace {

// The registered ids are a public contract (filters, history, dashboards): any change to the
// list must be deliberate, so it is compared with tests/golden/units.txt.
TEST(RegistryTest, RegisteredUnitsMatchTheGoldenList) {
  std::string list;
  for (const auto* u : UnitRegistry::Global().List({UnitKind::kCheck, UnitKind::kBenchmark})) {
    if (u->info.id.starts_with("zz_test.")) continue;  // units that tests register for themselves
    list += std::string(UnitKindName(u->kind)) + " " + std::string(u->info.id) + "\n";
  }
  EXPECT_GOLDEN(list, "units.txt");
}

TEST(RegistryTest, EveryUnitIsDescribed) {
  for (const auto* u : UnitRegistry::Global().ListAll()) {
    EXPECT_FALSE(u->info.summary.empty()) << u->info.id;
    if (u->kind != UnitKind::kCommand) {  // a subcommand's id is its name: "list"
      EXPECT_NE(u->info.id.find('.'), std::string_view::npos) << u->info.id;
    }
    EXPECT_TRUE(u->factory() != nullptr) << u->info.id;
  }
}

TEST(FindingCodesTest, CodesAreUniqueAndWellFormed) {
  std::set<std::string_view> seen;
  for (const auto& c : AllFindingCodes()) {
    EXPECT_TRUE(seen.insert(c.code).second) << "duplicate " << c.code;
    EXPECT_EQ(c.code.substr(0, 3), "YS-") << c.code;
    EXPECT_FALSE(c.title.empty()) << c.code;
  }
  EXPECT_EQ(LookupFindingCode("YS-NOPE-999"), nullptr);
  EXPECT_EQ(MakeFinding("YS-MEM-005", "process", "m").severity, Severity::kFail);
}

}  // namespace
}  // namespace ys
