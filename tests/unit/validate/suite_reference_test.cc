#include <gtest/gtest.h>

#include <filesystem>

#include "validate/reference.h"
#include "validate/scorecard.h"
#include "validate/suite.h"

namespace ys::validate {
namespace {

const std::string kSrc = YS_SOURCE_DIR;

TEST(SuiteTest, ShippedSuitesMatchThePublishedCatalogue) {
  // Job counts per suite run at v26.06.01 (NVIDIA/dgxc-benchmarking exemplar.yaml); H200 has no
  // NVIDIA suite and mirrors H100.
  const std::map<std::string, size_t> kJobs = {{"gb300", 13}, {"gb200", 12}, {"b300", 12},
                                               {"b200", 12},  {"h100", 5},   {"h200", 5}};
  for (const auto& [chip, jobs] : kJobs) {
    auto s = LoadSuiteByName(chip, kSrc);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    EXPECT_EQ(s->workloads.size(), jobs) << chip;
    EXPECT_DOUBLE_EQ(s->threshold, 0.95);
    EXPECT_EQ(s->window_first, 35);
    EXPECT_EQ(s->window_last, 44);
    for (const auto& w : s->workloads) EXPECT_EQ(w.gpus, 512) << w.id;
  }
  auto h100 = LoadSuiteByName("h100", kSrc);
  const SuiteWorkload* w = h100->Find("nemotron-h_56b_fp8");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->seq_len, 8192);
  EXPECT_EQ(w->gbs, 1536);
}

TEST(SuiteTest, MalformedSuitesNameFileWorkloadAndField) {
  const std::pair<const char*, const char*> cases[] = {
      {"[suite]\nchip = \"h100\"\n",
       "s.toml:1: [suite] recipe_release: missing; expected a string"},
      {"[suite]\nchip=\"x\"\nrecipe_release=\"v1\"\nsource=\"s\"\nthreshold=2.0\n",
       "s.toml:5: [suite] threshold: 2 is out of range (expected a number from 0.01 to 1.5)"},
      {"[suite]\nchip=\"x\"\nrecipe_release=\"v1\"\nsource=\"s\"\nthreshold=0.95\n",
       "no [[workload]] or [[phase]] entries"},
      {"[suite]\nchip=\"x\"\nrecipe_release=\"v1\"\nsource=\"s\"\nthreshold=0.95\nrule=\"most\"\n",
       "rule: expected \"every\""},
      {"[suite]\nchip=\"x\"\nrecipe_release=\"v1\"\nsource=\"s\"\nthreshold=0.95\nwindow=[44,35]\n",
       "window: expected"},
      {"[suite]\nchip=\"x\"\nrecipe_release=\"v1\"\nsource=\"s\"\nthreshold=0.95\n[[workload]]\nid="
       "\"a\"\nmodel=\"m\"\nsize=\"1b\"\ndtype=\"bf16\"\ngpus=\"8\"\nseq_len=1\ngbs=1\nframework="
       "\"f\"\n",
       "s.toml:11: workload a gpus: expected a whole number"},
      {"[suite]\nchip=\"x\"\nrecipe_release=\"v1\"\nsource=\"s\"\nthreshold=0.95\ncolour=1\n",
       "s.toml:6: [suite] colour: unknown key"},
      {"[suites]\n", "unknown table [suites]"},
      {"not toml at all [", "s.toml:1:"},
      // Ids and the chip become directory and file names (runs/<id>/, the archive's name).
      {"[suite]\nchip=\"x\"\nrecipe_release=\"v1\"\nsource=\"s\"\nthreshold=0.95\n[[workload]]\nid="
       "\"..\"\nmodel=\"m\"\nsize=\"1b\"\ndtype=\"bf16\"\ngpus=8\nseq_len=1\ngbs=1\nframework="
       "\"f\"\n",
       "s.toml: [[workload]] 1 id '..': expected a name"},
      {"[suite]\nchip=\"x\"\nrecipe_release=\"v1\"\nsource=\"s\"\nthreshold=0.95\n[[workload]]\nid="
       "\"a/../../"
       "b\"\nmodel=\"m\"\nsize=\"1b\"\ndtype=\"bf16\"\ngpus=8\nseq_len=1\ngbs=1\nframework=\"f\"\n",
       "s.toml: [[workload]] 1 id 'a/../../b'"},
      {"[suite]\nchip=\"../x\"\nrecipe_release=\"v1\"\nsource=\"s\"\nthreshold=0.95\n",
       "s.toml: [suite] chip '../x'"},
      {"[suite]\nchip=\"x\"\nrecipe_release=\"v1\"\nrecipes_of=\"a/"
       "b\"\nsource=\"s\"\nthreshold=0.95\n",
       "s.toml: [suite] recipes_of 'a/b'"},
  };
  for (const auto& [text, want] : cases) {
    auto s = ParseSuite(text, "s.toml");
    ASSERT_FALSE(s.ok()) << text;
    EXPECT_NE(s.status().message().find(want), std::string::npos) << s.status().message();
  }
  EXPECT_FALSE(LoadSuiteByName("../etc/passwd", kSrc).ok());
  EXPECT_NE(LoadSuiteByName("h300", kSrc).status().message().find("no suite file"),
            std::string::npos);
}

TEST(ReferenceTest, ShippedBaselinesLoadWithProvenanceAndMarkedInconsistencies) {
  auto refs = ReferenceSet::LoadDirectory(kSrc + "/baselines");
  ASSERT_TRUE(refs.ok()) << refs.status().ToString();
  EXPECT_GT(refs->all().size(), 70u);
  int inconsistent = 0;
  for (const auto& r : refs->all()) {
    EXPECT_FALSE(r.provenance.release.empty());
    EXPECT_FALSE(r.provenance.source.empty());
    EXPECT_FALSE(r.provenance.date.empty());
    EXPECT_EQ(r.provenance.kind, "published");
    inconsistent += !r.inconsistent.empty();
    // Every published throughput that is not marked agrees with seq x GBS / step within 2%.
    if (r.published_tokens_per_s && r.inconsistent.empty()) {
      double calc = double(r.seq_len) * r.gbs / r.step_time_s;
      EXPECT_NEAR(calc / *r.published_tokens_per_s, 1.0, 0.02) << r.workload << " " << r.gpus;
    }
  }
  EXPECT_EQ(inconsistent, 3);  // Grok1 512 BF16/FP8 throughput, Llama4 128 BF16 MFU
}

TEST(ReferenceTest, MalformedBaselines) {
  const std::pair<const char*, const char*> cases[] = {
      {"[[reference]]\nworkload=\"a\"\n", "missing [provenance]"},
      {"[provenance]\nchip=\"h100\"\nkind=\"guessed\"\n", "kind: expected"},
      {"[provenance]\nchip=\"h100\"\nkind=\"recorded\"\nrelease=\"v1\"\nsource=\"s\"\ndate="
       "\"d\"\nhardware=\"h\"\nsoftware=\"s\"\nmade_by=\"m\"\nmetric=\"tokens\"\n",
       "metric: expected"},
      {"[provenance]\nchip=\"h100\"\nkind=\"recorded\"\nrelease=\"v1\"\nsource=\"s\"\ndate="
       "\"d\"\nhardware=\"h\"\nsoftware=\"s\"\nmade_by=\"m\"\nmetric=\"step_time_s\"\n[[reference]]"
       "\nworkload=\"x_1b_bf16\"\nmodel=\"y\"\nsize=\"1b\"\ndtype=\"bf16\"\ngpus=8\nseq_len=1\ngbs="
       "1\nstep_time_s=1.0\n",
       "does not match model_size_dtype"},
      {"[provenance]\nchip=\"h100\"\nkind=\"recorded\"\nrelease=\"v1\"\nsource=\"s\"\ndate="
       "\"d\"\nhardware=\"h\"\nsoftware=\"s\"\nmade_by=\"m\"\nmetric=\"step_time_s\"\n[[reference]]"
       "\nworkload=\"y_1b_bf16\"\nmodel=\"y\"\nsize=\"1b\"\ndtype=\"bf16\"\ngpus=8\nseq_len=1\ngbs="
       "1\nstep_time_s=-1.0\n",
       "b.toml:19: [[reference]] 1 step_time_s: -1 is out of range (expected a number from 1e-06 "
       "to "
       "1e+06)"},
  };
  for (const auto& [text, want] : cases) {
    ReferenceSet set;
    Status s = set.AddText(text, "b.toml");
    ASSERT_FALSE(s.ok()) << text;
    EXPECT_NE(s.message().find(want), std::string::npos) << s.message();
  }
}

// Mutated numbers in suites and baselines: thresholds, reference values and counts are finite and
// within their ranges, or refused naming the file, the entry, the key, the value and the range.
TEST(SuiteTest, OutOfRangeNumbersAreRefused) {
  const std::string head = "[suite]\nchip=\"x\"\nrecipe_release=\"v1\"\nsource=\"s\"\n";
  const std::string workload =
      "[[workload]]\nid=\"a\"\nmodel=\"m\"\nsize=\"1b\"\ndtype=\"bf16\"\nframework=\"f\"\n";
  for (const char* v : {"nan", "inf", "-inf", "-1", "0", "1e-320", "1e300"}) {
    auto s = ParseSuite(head + "threshold=" + v + "\n" + workload + "gpus=8\nseq_len=1\ngbs=1\n",
                        "s.toml");
    ASSERT_FALSE(s.ok()) << v;
    EXPECT_NE(s.status().message().find("s.toml:5: [suite] threshold: "), std::string::npos)
        << s.status().message();
    EXPECT_NE(s.status().message().find("is out of range"), std::string::npos)
        << s.status().message();
  }
  for (const char* key : {"gpus", "seq_len", "gbs"}) {
    for (const char* v : {"0", "-1", "9223372036854775807", "16777217000"}) {
      std::string fields = "gpus=8\nseq_len=1\ngbs=1\n";
      fields.replace(fields.find(std::string(key) + "="), std::string(key).size() + 2,
                     std::string(key) + "=" + v);
      auto s = ParseSuite(head + "threshold=0.95\n" + workload + fields, "s.toml");
      ASSERT_FALSE(s.ok()) << key << "=" << v;
      EXPECT_NE(s.status().message().find(std::string("workload a ") + key + ": "),
                std::string::npos)
          << s.status().message();
      EXPECT_NE(s.status().message().find(std::string(v) + " is out of range"), std::string::npos)
          << s.status().message();
    }
  }
}

TEST(ReferenceTest, OutOfRangeValuesAreRefused) {
  const std::string text =
      "[provenance]\nchip=\"h100\"\nkind=\"recorded\"\nrelease=\"v1\"\nsource=\"s\"\ndate=\"d\"\n"
      "hardware=\"h\"\nsoftware=\"s\"\nmade_by=\"m\"\nmetric=\"step_time_s\"\n[[reference]]\n"
      "workload=\"y_1b_bf16\"\nmodel=\"y\"\nsize=\"1b\"\ndtype=\"bf16\"\ngpus=8\nseq_len=1\ngbs="
      "1\n";
  for (const char* key :
       {"step_time_s", "tflops_per_gpu", "published_tokens_per_s", "published_mfu"}) {
    for (const char* v : {"nan", "inf", "-1", "0", "1e-320", "1e300"}) {
      std::string extra = std::string(key) == "step_time_s" ? "" : "step_time_s=1.0\n";
      ReferenceSet set;
      Status s = set.AddText(text + extra + key + "=" + v + "\n", "b.toml");
      // 1e-320 is a valid step time below 1e-6 only as a denormal: refused like the rest.
      ASSERT_FALSE(s.ok()) << key << "=" << v;
      EXPECT_NE(s.message().find(std::string("[[reference]] 1 ") + key + ": "), std::string::npos)
          << s.message();
      EXPECT_NE(s.message().find("is out of range"), std::string::npos) << s.message();
    }
  }
}

// A two-workload suite and references for it, for the scoring tests.
struct Fixture {
  Suite suite;
  ReferenceSet refs;
  Fixture() {
    suite.chip = "h100";
    suite.recipe_release = "v9.9";
    suite.workloads = {
        {"llama3.1_70b_bf16", "llama3.1", "70b", "bf16", 512, 8192, 1024, "nemo2"},
        {"nemotron-h_56b_fp8", "nemotron-h", "56b", "fp8", 512, 8192, 1536, "nemo2"}};
    std::string prov =
        "[provenance]\nchip=\"h100\"\nkind=\"recorded\"\nrelease=\"v9.9\"\nsource=\"golden\"\n"
        "date=\"2026-11-29\"\nhardware=\"h\"\nsoftware=\"s\"\nmade_by=\"test\"\nmetric=\"step_time_"
        "s\"\n";
    Status s = refs.AddText(
        prov +
            "[[reference]]\nworkload=\"llama3.1_70b_bf16\"\nmodel=\"llama3.1\"\nsize=\"70b\"\n"
            "dtype=\"bf16\"\ngpus=512\nseq_len=8192\ngbs=1024\nstep_time_s=14.67\n"
            "[[reference]]\nworkload=\"nemotron-h_56b_fp8\"\nmodel=\"nemotron-h\"\nsize=\"56b\"\n"
            "dtype=\"fp8\"\ngpus=512\nseq_len=8192\ngbs=1536\nstep_time_s=15.586\n",
        "ref.toml");
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
  static Measured Ok(double step, std::optional<double> tflops = 500) {
    return Measured{"success", "", "log", 10, step, 0.01, tflops};
  }
};

TEST(ScorecardTest, PassesWhenEveryWorkloadIsAboveThreshold) {
  Fixture f;
  auto card = ScoreSuite(
      f.suite, f.refs,
      {{"llama3.1_70b_bf16", Fixture::Ok(14.70)}, {"nemotron-h_56b_fp8", Fixture::Ok(15.0)}},
      {{"bf16", 989}, {"fp8", 1979}});
  EXPECT_TRUE(card.pass) << card.verdict;
  ASSERT_EQ(card.rows.size(), 2u);
  EXPECT_NEAR(*card.rows[0].score, 14.67 / 14.70, 1e-12);
  // 8192 x 1024 / 14.70 s / 512 GPUs
  EXPECT_NEAR(*card.rows[0].tokens_per_s_per_gpu, 8192.0 * 1024 / 14.70 / 512, 1e-9);
  EXPECT_NEAR(*card.rows[0].mfu, 500.0 / 989, 1e-12);
}

TEST(ScorecardTest, OneWorkloadAt94PercentFailsTheVerdictAndIsNamed) {
  Fixture f;
  auto card = ScoreSuite(
      f.suite, f.refs,
      {{"llama3.1_70b_bf16", Fixture::Ok(14.67 / 0.94)}, {"nemotron-h_56b_fp8", Fixture::Ok(15.0)}},
      {});
  EXPECT_FALSE(card.pass);
  EXPECT_NE(card.verdict.find("llama3.1_70b_bf16"), std::string::npos) << card.verdict;
  EXPECT_EQ(card.verdict.find("nemotron"), std::string::npos) << card.verdict;
  EXPECT_NE(card.rows[0].reason.find("94.0% of the reference"), std::string::npos)
      << card.rows[0].reason;
}

TEST(ScorecardTest, ExactlyAtTheThresholdIsNotAbove) {
  Fixture f;
  auto card = ScoreSuite(
      f.suite, f.refs,
      {{"llama3.1_70b_bf16", Fixture::Ok(14.67 / 0.95)}, {"nemotron-h_56b_fp8", Fixture::Ok(15.0)}},
      {});
  EXPECT_FALSE(card.pass);
}

TEST(ScorecardTest, MissingIncompleteAndUnreferencedWorkloadsFailWithTheirReason) {
  Fixture f;
  auto missing = ScoreSuite(f.suite, f.refs, {{"llama3.1_70b_bf16", Fixture::Ok(14.0)}}, {});
  EXPECT_FALSE(missing.pass);
  EXPECT_NE(missing.verdict.find("nemotron-h_56b_fp8"), std::string::npos);
  EXPECT_EQ(missing.rows[1].reason, "no log found for this workload");

  Measured inc{"incomplete", "iterations 41-44 missing", "log", 6, 15.0, 0.1, std::nullopt};
  auto incomplete = ScoreSuite(
      f.suite, f.refs, {{"llama3.1_70b_bf16", Fixture::Ok(14.0)}, {"nemotron-h_56b_fp8", inc}}, {});
  EXPECT_FALSE(incomplete.pass);
  EXPECT_EQ(incomplete.rows[1].reason, "incomplete: iterations 41-44 missing");

  Suite other = f.suite;
  other.recipe_release = "v10.0";
  auto unref = ScoreSuite(
      other, f.refs,
      {{"llama3.1_70b_bf16", Fixture::Ok(14.0)}, {"nemotron-h_56b_fp8", Fixture::Ok(15.0)}}, {});
  EXPECT_FALSE(unref.pass);
  EXPECT_NE(unref.rows[0].reason.find("references exist only for v9.9 (recorded)"),
            std::string::npos)
      << unref.rows[0].reason;
}

TEST(ScorecardTest, NoReferenceIsInconclusiveUnlessAnotherWorkloadFailed) {
  Fixture f;
  Suite other = f.suite;
  other.recipe_release = "v10.0";
  auto unref = ScoreSuite(
      other, f.refs,
      {{"llama3.1_70b_bf16", Fixture::Ok(14.0)}, {"nemotron-h_56b_fp8", Fixture::Ok(15.0)}}, {});
  EXPECT_FALSE(unref.pass);
  EXPECT_TRUE(unref.inconclusive);
  EXPECT_STREQ(unref.State(), "inconclusive");
  EXPECT_EQ(unref.ExitCode(), 2);
  EXPECT_EQ(unref.rows[0].outcome, RowOutcome::kInconclusive);
  EXPECT_EQ(unref.verdict.rfind("INCONCLUSIVE: 2 of 2 workloads have no reference", 0), 0u)
      << unref.verdict;

  // A missing log still fails: what was asked did not run.
  auto missing = ScoreSuite(other, f.refs, {{"llama3.1_70b_bf16", Fixture::Ok(14.0)}}, {});
  EXPECT_FALSE(missing.inconclusive);
  EXPECT_STREQ(missing.State(), "fail");
  EXPECT_EQ(missing.ExitCode(), 1);
  EXPECT_NE(missing.verdict.find("1 without a reference: llama3.1_70b_bf16"), std::string::npos)
      << missing.verdict;

  auto pass = ScoreSuite(
      f.suite, f.refs,
      {{"llama3.1_70b_bf16", Fixture::Ok(14.0)}, {"nemotron-h_56b_fp8", Fixture::Ok(15.0)}}, {});
  EXPECT_STREQ(pass.State(), "pass");
  EXPECT_EQ(pass.ExitCode(), 0);
}

TEST(ScorecardTest, ShippedH100SuiteHasNoReferenceForItsCurrentRelease) {
  // The published tables stop at v25.05.05; the v26.06.01 suite must say so, not borrow them.
  auto suite = LoadSuiteByName("h100", kSrc);
  auto refs = ReferenceSet::LoadDirectory(kSrc + "/baselines");
  ASSERT_TRUE(suite.ok() && refs.ok());
  std::map<std::string, Measured> all;
  for (const auto& w : suite->workloads) all[w.id] = Fixture::Ok(10.0);
  auto card = ScoreSuite(*suite, *refs, all, {});
  EXPECT_FALSE(card.pass);
  for (const auto& row : card.rows) {
    EXPECT_FALSE(row.reference.has_value()) << row.workload.id;
    EXPECT_NE(row.reason.find("record"), std::string::npos) << row.reason;
  }
  // nemotron-h 56b fp8 at 512 GPUs, seq 8192, GBS 1536 was published for v25.05.05.
  EXPECT_NE(card.rows[3].reason.find("v25.05.05 (published)"), std::string::npos)
      << card.rows[3].reason;
}

}  // namespace
}  // namespace ys::validate
