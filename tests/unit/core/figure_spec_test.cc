// What a benchmark declares it measures (core/figure_spec.h): every registered benchmark declares
// it, the declaration is found from a measurement's name, and the figures the fixture documents
// hold match the declarations of the units that wrote them.
#include "core/figure_spec.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "core/registry.h"
#include "core/run_document_json.h"

namespace ys {
namespace {

TEST(FigureSpec, EveryBenchmarkDeclaresWhatItMeasures) {
  auto units = UnitRegistry::Global().List(UnitKind::kBenchmark);
  ASSERT_GE(units.size(), 20u);
  for (const RegisteredUnit* u : units) {
    if (u->info.id.starts_with("zz_test.")) continue;  // units that tests register for themselves
    const Measures& m = u->info.measures;
    SCOPED_TRACE(std::string(u->info.id));
    EXPECT_TRUE(m.declared()) << u->info.id << " registers no `.measures`: declare its figure kind "
                              << "and figures where it registers (core/figure_spec.h)";
    EXPECT_FALSE(m.identity.empty()) << u->info.id << " declares no identity params";
    std::set<std::string_view> quantities;
    for (const FigureSpec& f : m.figures) {
      EXPECT_TRUE(quantities.insert(f.quantity).second) << "figure \"" << f.quantity << "\" twice";
      EXPECT_FALSE(f.unit.empty()) << "figure \"" << f.quantity << "\" has no unit";
    }
    // The declaration is what a measurement named after the unit finds.
    auto d = FindFigure(std::string(u->info.id) + "." + std::string(m.figures.at(0).quantity));
    if (m.figures.at(0).quantity.empty()) d = FindFigure(u->info.id);
    ASSERT_TRUE(d.has_value());
    EXPECT_EQ(d->family, u->info.id);
    EXPECT_EQ(d->figure, &m.figures.at(0));
  }
}

TEST(FigureSpec, FindsTheLongestDeclaringFamily) {
  auto d = FindFigure("gemm.cpu.determinism.mismatched_runs");
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->family, "gemm.cpu.determinism");
  ASSERT_NE(d->figure, nullptr);
  EXPECT_EQ(d->figure->unit, "runs");
  EXPECT_EQ(d->figure->better, Better::kLower);

  d = FindFigure("gemm.cpu.sgemm");
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->family, "gemm.cpu");
  EXPECT_EQ(d->figure->peak, PeakKind::kCpuFlops);

  d = FindFigure("coll.all_gather.pair.busbw");
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->measures->op, "all_gather");
  EXPECT_EQ(d->figure->quantity, "pair.busbw");

  d = FindFigure("host.busy_clock");
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->figure->quantity, "");
  EXPECT_EQ(d->measures->kind, FigureKind::kClock);
}

TEST(FigureSpec, AnUndeclaredNameHasNoDeclaration) {
  EXPECT_FALSE(FindFigure("acme.widget.rate").has_value());
  EXPECT_FALSE(FindFigure("").has_value());
  EXPECT_FALSE(FindFigure("gemm").has_value());  // no family is named "gemm"
  // A declared family with a quantity it does not declare: the family, no figure.
  auto d = FindFigure("mem.gpu.bandwidth");
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->measures->kind, FigureKind::kMemory);
  EXPECT_EQ(d->figure, nullptr);
  // A family declared for figures other tools write.
  d = FindFigure("net.ib_write.bw");
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->measures->kind, FigureKind::kNetwork);
}

TEST(FigureSpec, IdentityLeavesOutMeasuredParams) {
  const Measures& stream = *FindFigure("mem.stream.triad")->measures;
  EXPECT_TRUE(stream.IsIdentity("numa_node"));
  EXPECT_FALSE(stream.IsIdentity("best"));
  const Measures& proxy = *FindFigure("proxy.llama3.1_8b.step_time")->measures;
  EXPECT_TRUE(proxy.IsIdentity("recipe"));
  for (const char* measured : {"compute_s", "comm_s", "method", "job_cpus", "flops_per_step"}) {
    EXPECT_FALSE(proxy.IsIdentity(measured)) << measured;
  }
  const Measures& gemm = *FindFigure("gemm.cpu.dgemm")->measures;
  for (const char* derived : {"peak", "pct_of_peak", "peak_source", "flops", "blas"}) {
    EXPECT_FALSE(gemm.IsIdentity(derived)) << derived;
  }
}

// Every figure a benchmark wrote into the fixture run documents is one its unit declares, with
// the declared unit and better direction.
TEST(FigureSpec, FixtureFiguresMatchTheirDeclarations) {
  int checked = 0;
  for (const char* path :
       {"/tests/fixtures/runs/report-3node/run.json", "/tests/fixtures/exporter/run.json",
        "/tests/fixtures/runs/burnin/run.json"}) {
    auto j = ReadJsonFile(std::string(YS_SOURCE_DIR) + path);
    ASSERT_TRUE(j.ok()) << j.status().message();
    auto doc = RunDocumentFromJson(*j);
    ASSERT_TRUE(doc.ok()) << path << ": " << doc.status().message();
    auto check = [&](const std::vector<BenchmarkResult>& results) {
      for (const BenchmarkResult& b : results) {
        if (UnitRegistry::Global().Find(UnitKind::kBenchmark, b.unit_id) == nullptr) continue;
        for (const Measurement& m : b.measurements) {
          auto d = FindFigure(m.name);
          ASSERT_TRUE(d.has_value()) << m.name;
          EXPECT_EQ(d->family, b.unit_id) << m.name;
          ASSERT_NE(d->figure, nullptr) << m.name << ": not a figure " << b.unit_id << " declares";
          EXPECT_EQ(d->figure->unit, m.unit) << m.name;
          EXPECT_EQ(d->figure->better, m.better) << m.name;
          ++checked;
        }
      }
    };
    check(doc->benchmarks);
    for (const NodeReport& n : doc->nodes) check(n.benchmarks);
  }
  EXPECT_GT(checked, 20);
}

}  // namespace
}  // namespace ys
