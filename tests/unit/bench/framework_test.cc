// The benchmark framework: size sweeps, unit selection and containment, the run document's
// benchmark section (JSON round trip, console table, JUnit, exit code).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "bench/runner.h"
#include "bench/session.h"
#include "checks/site_expectations.h"
#include "core/finding_codes.h"
#include "core/run_document_json.h"
#include "report/console_reporter.h"
#include "report/junit_reporter.h"
#include "report/output.h"

namespace ys::bench {
namespace {

TEST(ByteSizeTest, ParsesAndFormats) {
  EXPECT_EQ(*ParseByteSize("8"), 8u);
  EXPECT_EQ(*ParseByteSize("64K"), 65536u);
  EXPECT_EQ(*ParseByteSize("16g"), 17179869184ull);
  EXPECT_EQ(*ParseByteSize("1T"), 1ull << 40);
  EXPECT_FALSE(ParseByteSize("").ok());
  EXPECT_FALSE(ParseByteSize("-1").ok());
  EXPECT_FALSE(ParseByteSize("12Q").ok());
  EXPECT_FALSE(ParseByteSize("K").ok());
  EXPECT_FALSE(ParseByteSize("99999999999999999999").ok());
  EXPECT_FALSE(ParseByteSize("16777216T").ok());  // overflows 64 bits
  EXPECT_EQ(FormatByteSize(1024), "1K");
  EXPECT_EQ(FormatByteSize(17179869184ull), "16G");
  EXPECT_EQ(FormatByteSize(1000), "1000");
  EXPECT_EQ(FormatByteSize(3 << 20), "3M");
}

TEST(SizeSweepTest, GeometricLikeNcclTests) {
  auto s = SizeSweep::Parse("8:128:x2");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->Sizes(), (std::vector<uint64_t>{8, 16, 32, 64, 128}));
  EXPECT_EQ(SizeSweep::Parse("8:16G:x2")->Sizes().size(), 32u);  // 2^3 .. 2^34
  EXPECT_EQ(SizeSweep::Parse("1K:100K:x10")->Sizes(), (std::vector<uint64_t>{1024, 10240, 102400}));
  EXPECT_EQ(SizeSweep::Parse("1K:100000:x10")->Sizes(), (std::vector<uint64_t>{1024, 10240}));
}

TEST(SizeSweepTest, ArithmeticStepAndSingleSize) {
  EXPECT_EQ(SizeSweep::Parse("1M:3M:+1M")->Sizes(),
            (std::vector<uint64_t>{1 << 20, 2 << 20, 3 << 20}));
  EXPECT_EQ(SizeSweep::Parse("128M")->Sizes(), (std::vector<uint64_t>{128ull << 20}));
  // The top of the 64-bit range ends the sweep instead of wrapping around.
  EXPECT_EQ(SizeSweep::Parse("8E0:16E0:x2").ok(), false);
  // Past 1T a sweep is refused; a sweep near the top still ends instead of wrapping.
  auto big = SizeSweep::Parse("8T:16777215T:x4096");
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.status().message().find("16777215T is out of range (expected sizes of at most 1T)"),
            std::string::npos)
      << big.status().message();
  SizeSweep wide{.min_bytes = 8ull << 40, .max_bytes = 16777215ull << 40, .factor = 4096};
  EXPECT_EQ(wide.Sizes().size(), 2u);
  // A +STEP sweep of more sizes than anyone can run (2^40 of them) is refused, not listed.
  auto many = SizeSweep::Parse("8:1T:+1");
  ASSERT_FALSE(many.ok());
  EXPECT_NE(many.status().message().find("sizes is out of range (expected at most 4096)"),
            std::string::npos)
      << many.status().message();
}

TEST(SizeSweepTest, MalformedSweepsNameWhatWasExpected) {
  for (const char* bad : {"", "8:", "8:16", "8:16:2", "8:16:x1", "8:16:x", "16:8:x2", "0:8:x2",
                          "8:16:+0", "a:b:x2", "8:16:x2:4"}) {
    auto s = SizeSweep::Parse(bad);
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_NE(s.status().message().find("--sizes"), std::string::npos) << s.status().message();
    EXPECT_NE(s.status().message().find("expected"), std::string::npos) << s.status().message();
  }
}

// Test-only units, registered under an id no filter of the real units matches.
class ThrowingBenchmark final : public Benchmark {
 public:
  BenchmarkResult Run(const BenchContext&) const override { throw std::runtime_error("boom"); }
};
class BadCodeBenchmark final : public Benchmark {
 public:
  BenchmarkResult Run(const BenchContext&) const override {
    BenchmarkResult r;
    r.Add(MakeFinding("YS-NOPE-001", "node", "made up"));
    return r;
  }
};
class MeasuringBenchmark final : public Benchmark {
 public:
  BenchmarkResult Run(const BenchContext& ctx) const override {
    BenchmarkResult r;
    r.measurements.push_back(MakeMeasurement("zz_test.measure.value", "GB/s", Better::kHigher,
                                             {3, 1, 2}, {{"iters", std::to_string(ctx.Iters(7))}}));
    r.summary = "measured";
    return r;
  }
};
class PerRankBenchmark final : public Benchmark {
 public:
  Reach reach() const override { return Reach::kRank; }
  BenchmarkResult Run(const BenchContext&) const override { return BenchmarkResult{}; }
};
// Count their calls: the runner must skip them, without calling them, when their needs are unmet
// or when they are disruptive and the run did not ask for that.
int g_needy_calls = 0;
class CountingBenchmark final : public Benchmark {
 public:
  BenchmarkResult Run(const BenchContext&) const override {
    ++g_needy_calls;
    return BenchmarkResult{};
  }
};
YS_REGISTER(CountingBenchmark,
            {.id = "zz_test.needs_live", .summary = "test", .needs = {Need::kLiveHost}})
YS_REGISTER(CountingBenchmark,
            {.id = "zz_test.bench_needs_gpu", .summary = "test", .needs = {Need::kGpu}})
YS_REGISTER(CountingBenchmark,
            {.id = "zz_test.bench_disruptive", .summary = "test", .disruptive = true})
YS_REGISTER(PerRankBenchmark, {.id = "zz_test.per_rank", .summary = "test"})
YS_REGISTER(ThrowingBenchmark, {.id = "zz_test.throws", .summary = "test"})
YS_REGISTER(BadCodeBenchmark, {.id = "zz_test.bad_code", .summary = "test"})
YS_REGISTER(MeasuringBenchmark, {.id = "zz_test.measure", .summary = "test"})
// Reports the parameter in force as its measurement's value.
class ParamBenchmark final : public Benchmark {
 public:
  BenchmarkResult Run(const BenchContext& ctx) const override {
    BenchmarkResult r;
    r.measurements.push_back(MakeMeasurement("zz_test.param.factor", "x", Better::kHigher,
                                             {static_cast<double>(ctx.param<int>("factor"))}));
    return r;
  }
};
YS_REGISTER(ParamBenchmark, {.id = "zz_test.param",
                             .summary = "test",
                             .params = {{.name = "factor",
                                         .type = ParamType::kInt,
                                         .default_value = 3,
                                         .lo = 1,
                                         .hi = 100,
                                         .meaning = "test"}}})

class RunnerTest : public ::testing::Test {
 protected:
  host::Host host_ = host::Host::Live();
  comm::SingleProcessCommunicator comm_;
};

TEST_F(RunnerTest, ContainsExceptionsAndUnknownCodes) {
  BenchOptions o;
  BenchContext ctx(host_, comm_, o);
  BenchmarkResult thrown = RunBenchmark(ctx, "zz_test.throws");
  EXPECT_EQ(thrown.outcome, Outcome::kError);
  EXPECT_NE(thrown.summary.find("boom"), std::string::npos);
  BenchmarkResult bad = RunBenchmark(ctx, "zz_test.bad_code");
  EXPECT_EQ(bad.outcome, Outcome::kError);
  EXPECT_NE(bad.summary.find("YS-NOPE-001"), std::string::npos);
  EXPECT_EQ(RunBenchmark(ctx, "zz_test.absent").outcome, Outcome::kError);
  EXPECT_EQ(RunBenchmark(ctx, "cpu.cstates").outcome, Outcome::kError);  // a check, not a benchmark
}

TEST_F(RunnerTest, UnmetNeedsSkipWithTheReasonWithoutCallingTheUnit) {
  g_needy_calls = 0;
  auto recorded = host::Host::AtRoot(YS_SOURCE_DIR "/tests/fixtures/hosts/healthy-8gpu");
  ASSERT_TRUE(recorded.ok());
  BenchOptions o;
  o.backend = Backend::kCpu;
  BenchContext on_tree(*recorded, comm_, o);
  BenchmarkResult r = RunBenchmark(on_tree, "zz_test.needs_live");
  EXPECT_EQ(r.outcome, Outcome::kSkip);
  EXPECT_EQ(r.summary, "not the live host: nothing to measure");
  r = RunBenchmark(on_tree, "zz_test.bench_needs_gpu");
  EXPECT_EQ(r.outcome, Outcome::kSkip);
  EXPECT_EQ(r.summary, "--backend cpu");
  EXPECT_EQ(g_needy_calls, 0);
  BenchContext live(host_, comm_, o);
  EXPECT_EQ(RunBenchmark(live, "zz_test.needs_live").outcome, Outcome::kPass);
  EXPECT_EQ(g_needy_calls, 1);
}

TEST_F(RunnerTest, DisruptiveUnitRunsOnlyWhenAsked) {
  g_needy_calls = 0;
  BenchOptions o;
  o.filters = {"zz_test.bench_disruptive"};
  BenchContext ctx(host_, comm_, o);
  auto results = RunBenchmarks(ctx);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].outcome, Outcome::kSkip);
  EXPECT_NE(results[0].summary.find("disruptive"), std::string::npos) << results[0].summary;
  EXPECT_EQ(g_needy_calls, 0);
  o.allow_disruptive = true;
  results = RunBenchmarks(ctx);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].outcome, Outcome::kPass);
  EXPECT_EQ(g_needy_calls, 1);
}

TEST_F(RunnerTest, SelectsByFilterAndHonoursIters) {
  BenchOptions o;
  o.filters = {"zz_test.m*"};
  o.iters = 11;
  BenchContext ctx(host_, comm_, o);
  EXPECT_EQ(SelectedBenchmarks(o), std::vector<std::string>{"zz_test.measure"});
  auto results = RunBenchmarks(ctx);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].unit_id, "zz_test.measure");
  EXPECT_EQ(results[0].outcome, Outcome::kPass);
  ASSERT_EQ(results[0].measurements.size(), 1u);
  EXPECT_EQ(results[0].measurements[0].value, 2);  // the median
  EXPECT_EQ(results[0].measurements[0].params.at("iters"), "11");
}

TEST_F(RunnerTest, AUnitReadsItsDeclaredParameterFromTheSiteFileElseTheDefault) {
  BenchOptions o;
  BenchContext plain(host_, comm_, o);
  EXPECT_EQ(RunBenchmark(plain, "zz_test.param").measurements.at(0).value, 3);  // the default

  auto site = checks::ParseSiteExpectations("[unit.\"zz_test.param\"]\nfactor = 9\n", "site.toml");
  ASSERT_TRUE(site.ok()) << site.status().message();
  o.unit_params = site->params;
  BenchContext set(host_, comm_, o);
  EXPECT_EQ(RunBenchmark(set, "zz_test.param").measurements.at(0).value, 9);

  auto bad = checks::ParseSiteExpectations("[unit.\"zz_test.param\"]\nfactor = 0\n", "site.toml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("factor"), std::string::npos) << bad.status().message();

  // Outside a unit's run (no ForUnit) and for an undeclared name, the read throws; the runner
  // turns that into the unit's error.
  EXPECT_THROW((void)plain.param<int>("factor"), std::logic_error);
}

TEST_F(RunnerTest, NodeLocalUnitsRunOnTheNodesFirstRankOnly) {
  BenchOptions o;
  o.filters = {"zz_test.measure"};
  comm::LaunchInfo second{
      .launcher = "mpirun", .rank = 1, .size = 2, .local_rank = 1, .local_size = 2};
  BenchContext ctx(host_, comm_, o, second);
  EXPECT_TRUE(RunBenchmarks(ctx).empty());
  // A per-rank unit (each local rank its own GPU) runs on every rank.
  o.filters = {"zz_test.per_rank"};
  auto results = RunBenchmarks(ctx);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].unit_id, "zz_test.per_rank");
}

TEST_F(RunnerTest, SessionRejectsAFilterThatSelectsNothing) {
  BenchOptions o;
  o.filters = {"nothing.*"};
  Status s = CheckSelection(o);
  EXPECT_EQ(s.code(), StatusCode::kInvalidInput);
  EXPECT_NE(s.message().find("nothing.*"), std::string::npos);
}

RunDocument BenchDocument() {
  RunDocument d;
  d.command = "bench";
  d.started_at = "2026-11-29T16:00:00Z";
  d.host = HostInfo{"node7", "6.8.0", "x86_64", "/", "cpu", 2};
  BenchmarkResult b;
  b.unit_id = "coll.all_reduce";
  b.summary = "avg busbw 1.5 GB/s";
  b.measurements.push_back(MakeMeasurement("coll.all_reduce.busbw", "GB/s", Better::kHigher,
                                           {1.5, 1.4}, {{"size", "1048576"}}));
  b.tables.push_back(ResultTable{.title = "all_reduce, mpi, 4 ranks",
                                 .columns = {"size", "time", "busbw"},
                                 .rows = {{"8", "12.1", "0.00"}, {"1048576", "700.5", "1.50"}},
                                 .footer = {"# Avg bus bandwidth    : 0.75"}});
  BenchmarkResult failed;
  failed.unit_id = "coll.all_gather";
  failed.Add(MakeFinding("YS-BENCH-001", "rank2", "3 wrong elements"));
  failed.Finalize();
  d.benchmarks = {b, failed};
  return d;
}

TEST(BenchDocumentTest, JsonRoundTripKeepsMeasurementsAndTables) {
  RunDocument d = BenchDocument();
  auto j = ToJson(d);
  EXPECT_EQ(j["verdict"], "fail");
  EXPECT_EQ(j["counts"]["fail"], 1);
  auto back = RunDocumentFromJson(nlohmann::json::parse(j.dump()));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->benchmarks.size(), 2u);
  EXPECT_EQ(back->benchmarks[0].measurements[0].params.at("size"), "1048576");
  EXPECT_EQ(back->benchmarks[0].measurements[0].samples.size(), 2u);
  EXPECT_EQ(back->benchmarks[0].tables, d.benchmarks[0].tables);
  EXPECT_EQ(ToJson(*back)["benchmarks"], j["benchmarks"]);

  auto bad = nlohmann::json::parse(j.dump());
  bad["benchmarks"][0]["measurements"][0]["better"] = "sideways";
  EXPECT_NE(
      RunDocumentFromJson(bad).status().message().find("run.benchmarks[0].measurements[0].better"),
      std::string::npos);
  bad = nlohmann::json::parse(j.dump());
  bad["benchmarks"][0]["tables"][0].erase("rows");
  EXPECT_NE(RunDocumentFromJson(bad).status().message().find("tables[0].rows"), std::string::npos);
  bad = nlohmann::json::parse(j.dump());
  bad["benchmarks"] = "x";
  EXPECT_FALSE(RunDocumentFromJson(bad).ok());
}

TEST(BenchDocumentTest, ConsoleJunitAndExitCode) {
  RunDocument d = BenchDocument();
  std::ostringstream console;
  report::WriteConsole(d, report::ConsoleOptions{}, console);
  EXPECT_NE(console.str().find("PASS   coll.all_reduce  avg busbw 1.5 GB/s"), std::string::npos)
      << console.str();
  EXPECT_NE(console.str().find("# all_reduce, mpi, 4 ranks\n#    size  time busbw\n"
                               "        8  12.1  0.00\n  1048576 700.5  1.50\n"
                               "# Avg bus bandwidth    : 0.75\n"),
            std::string::npos)
      << console.str();
  EXPECT_NE(console.str().find("YS-BENCH-001 rank2: 3 wrong elements"), std::string::npos);
  std::ostringstream junit;
  report::WriteJunit(d, junit);
  EXPECT_NE(junit.str().find("tests=\"2\" failures=\"1\""), std::string::npos) << junit.str();
  EXPECT_NE(junit.str().find("name=\"coll.all_gather\""), std::string::npos);
  EXPECT_EQ(report::ExitCodeFor(d), 1);
}

}  // namespace
}  // namespace ys::bench
