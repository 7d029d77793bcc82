// The conventions every series of `yardstick exporter` follows (docs/exporter.md): ratios are
// fractions named *_ratio, an enum status is one series per state, and every node-level series
// carries the one host label. Walks every family the collectors write for a representative run
// document, two validation documents (workloads; serving phases), a recorded GPU state and a
// recorded host tree.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <string>

#include "core/run_document_json.h"
#include "host/host.h"
#include "serve/collectors.h"
#include "testing/bench_test_util.h"

namespace ys::serve {
namespace exporter_conventions_test {
namespace {

const std::string kConventionFixtures = YS_FIXTURES_DIR;

// dcgm-exporter's names kept for compatibility: percentages (0..100), documented.
const std::set<std::string> kDcgmPercent = {"DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_MEM_COPY_UTIL"};
// Families that describe a suite or phase, or the exporter's own collectors, not a node.
constexpr const char* kNotNodeLevel[] = {"yardstick_score_", "yardstick_workload_",
                                         "yardstick_serving_phase_", "yardstick_collector_"};

CheckResult ConventionCheck(const char* id, Outcome o) {
  CheckResult c;
  c.unit_id = id;
  c.outcome = o;
  return c;
}

Measurement ConventionMeasurement(const char* name, double value, const char* unit,
                                  std::map<std::string, std::string> params) {
  Measurement m;
  m.name = name;
  m.value = value;
  m.unit = unit;
  m.params = std::move(params);
  return m;
}

// A run of two nodes: checks of every outcome, a busbw, a figure with its % of peak, a share
// (unit fraction), and a diagnosis.
RunDocument RepresentativeRun() {
  RunDocument doc;
  doc.command = "run";
  doc.started_at = "2026-11-20T09:14:02Z";
  doc.host.hostname = "node1";
  doc.checks = {
      ConventionCheck("cpu.governor", Outcome::kPass), ConventionCheck("gpu.ecc", Outcome::kFail),
      ConventionCheck("virt.hypervisor", Outcome::kSkip),
      ConventionCheck("gpu.clocks", Outcome::kWarn), ConventionCheck("net.ib", Outcome::kError)};
  BenchmarkResult b;
  b.unit_id = "mem.stream";
  b.measurements = {
      ConventionMeasurement("coll.all_reduce.busbw", 12.5, "GB/s", {{"size", "1048576"}}),
      ConventionMeasurement("mem.stream.triad", 80, "GB/s", {{"pct_of_peak", "61.5"}}),
      ConventionMeasurement("proxy.llama3.1_8b.foreign_cpu_share", 0.25, "fraction",
                            {{"recipe", "llama3.1-8b"}}),
      ConventionMeasurement("acme.widget.load", 42, "%", {})};
  doc.benchmarks = {b};
  NodeReport other;
  other.hostname = "node2";
  other.checks = {ConventionCheck("cpu.governor", Outcome::kFail)};
  other.benchmarks = {b};
  doc.nodes = {other};
  Diagnosis g;
  g.rule = "host.core_sharing";
  g.entity = "node";
  g.recovery = {0.05, 0.1, "published case"};
  doc.diagnosis = {g};
  doc.diagnosis_ran = true;
  return doc;
}

// Every family of the run collector (both validation documents) and the node collectors.
struct Walked {
  Exposition run;
  Exposition node;
};

Walked WalkEverything(const testing::TempDir& dir) {
  Walked w;
  std::ofstream(dir.path() + "/run.json") << DumpJson(ToJson(RepresentativeRun()));
  std::ofstream(dir.path() + "/validation.json")
      << R"({"suite": {"chip": "h100", "recipe_release": "25.04", "threshold": 0.95},
             "workloads": [{"id": "llama3-8b", "score": 0.97, "outcome": "pass"},
                           {"id": "gpt3-175b", "score": null, "outcome": "inconclusive"},
                           {"id": "mixtral", "score": 0.5, "outcome": "fail"}]})";
  for (const std::string& v : {dir.path() + "/validation.json",
                               kConventionFixtures + "/runs/serving-phases/validation.json"}) {
    auto e = MakeRunCollector(dir.path() + "/run.json", v)->Collect();
    EXPECT_TRUE(e.ok()) << e.status().message();
    if (e.ok()) w.run.Merge(*e);
  }
  auto host = host::Host::AtRoot(kConventionFixtures + "/hosts/healthy-8gpu");
  EXPECT_TRUE(host.ok());
  if (!host.ok()) return w;
  std::vector<std::unique_ptr<Collector>> node;
  node.push_back(MakeGpuCollector(*host, kConventionFixtures + "/nvml/exporter-h100x8.json"));
  node.push_back(MakeInfinibandCollector(*host));
  node.push_back(MakeCpuClockCollector(*host));
  for (auto& c : node) {
    auto e = c->Collect();
    EXPECT_TRUE(e.ok()) << c->name() << ": " << e.status().message();
    if (e.ok()) w.node.Merge(*e);
  }
  return w;
}

std::string ConventionLabel(const Labels& l, const std::string& name) {
  for (const auto& [k, v] : l) {
    if (k == name) return v;
  }
  return "";
}

bool HasLabel(const Labels& l, const std::string& name) {
  for (const auto& kv : l) {
    if (kv.first == name) return true;
  }
  return false;
}

TEST(ExporterConventionsTest, RatiosAreFractionsNamedRatio) {
  testing::TempDir dir;
  Walked w = WalkEverything(dir);
  Exposition all = w.run;
  all.Merge(w.node);
  int ratios = 0;
  for (const auto& [name, f] : all.families()) {
    const bool percent_help =
        f.help.find('%') != std::string::npos || f.help.find("percent") != std::string::npos;
    if (percent_help) EXPECT_TRUE(kDcgmPercent.count(name)) << name << ": a percentage";
    if (name.starts_with("yardstick_") && f.help.find("fraction") != std::string::npos) {
      EXPECT_TRUE(name.ends_with("_ratio")) << name << ": a fraction not named *_ratio";
    }
    if (!name.ends_with("_ratio")) continue;
    ++ratios;
    EXPECT_NE(f.help.find("fraction"), std::string::npos) << name << ": " << f.help;
    // Bounded unless HELP says it is not (a score against a reference: above 1 when faster).
    if (f.help.find("not bounded by 1") != std::string::npos) continue;
    EXPECT_NE(f.help.find("fraction (0..1) of"), std::string::npos) << name << ": " << f.help;
    for (const Sample& s : f.samples) {
      EXPECT_GE(s.value, 0) << name;
      EXPECT_LE(s.value, 1) << name;
    }
  }
  for (const char* n : {"yardstick_measurement_peak_ratio", "yardstick_measurement_ratio",
                        "yardstick_score_ratio", "yardstick_serving_phase_score_ratio",
                        "yardstick_diagnosis_recovery_ratio", "yardstick_score_threshold_ratio"}) {
    EXPECT_NE(all.Find(n), nullptr) << n;
  }
  EXPECT_GE(ratios, 6);
  EXPECT_DOUBLE_EQ(all.Find("yardstick_measurement_peak_ratio")->samples[0].value, 0.615);
}

TEST(ExporterConventionsTest, EveryStateFamilyHasExactlyOneOne) {
  testing::TempDir dir;
  Walked w = WalkEverything(dir);
  for (const char* n :
       {"yardstick_check_state", "yardstick_workload_state", "yardstick_serving_phase_state"}) {
    ASSERT_NE(w.run.Find(n), nullptr) << n;
  }
  for (const auto& [name, f] : w.run.families()) {
    if (!name.ends_with("_state")) continue;
    std::map<Labels, double> sum;
    std::map<Labels, int> count;
    std::set<std::string> states;
    for (const Sample& s : f.samples) {
      ASSERT_TRUE(HasLabel(s.labels, "state")) << name;
      EXPECT_TRUE(s.value == 0 || s.value == 1) << name;
      Labels key;
      for (const auto& kv : s.labels) {
        if (kv.first != "state") key.push_back(kv);
      }
      sum[key] += s.value;
      ++count[key];
      states.insert(ConventionLabel(s.labels, "state"));
    }
    for (const auto& [key, total] : sum) {
      EXPECT_EQ(total, 1) << name << " " << (key.empty() ? "" : key[0].second);
      EXPECT_EQ(count[key], static_cast<int>(states.size())) << name << ": every state listed";
    }
  }
  EXPECT_EQ(w.run.Find("yardstick_check_state")->samples.size(), 6u * 5);
}

TEST(ExporterConventionsTest, EveryNodeLevelSeriesCarriesTheHostLabel) {
  testing::TempDir dir;
  Walked w = WalkEverything(dir);
  auto node_level = [](const std::string& name) {
    for (const char* p : kNotNodeLevel) {
      if (name.starts_with(p)) return false;
    }
    return true;
  };
  auto hosts_of = [&](const Exposition& e) {
    std::set<std::string> hosts;
    for (const auto& [name, f] : e.families()) {
      for (const Sample& s : f.samples) {
        EXPECT_FALSE(HasLabel(s.labels, "node") || HasLabel(s.labels, "host")) << name;
        if (!node_level(name)) continue;
        EXPECT_TRUE(HasLabel(s.labels, kHostLabel)) << name;
        hosts.insert(ConventionLabel(s.labels, kHostLabel));
      }
    }
    return hosts;
  };
  EXPECT_EQ(hosts_of(w.run), (std::set<std::string>{"node1", "node2"}));
  // The node collectors: one value, the recorded tree's hostname.
  EXPECT_EQ(hosts_of(w.node), (std::set<std::string>{"hgx-ok-01"}));
  for (const char* n : {"yardstick_ib_port_state", "yardstick_cpu_busy_clock_mhz",
                        "DCGM_FI_DEV_GPU_TEMP", "yardstick_check_status"}) {
    EXPECT_TRUE(w.run.Find(n) != nullptr || w.node.Find(n) != nullptr) << n;
  }
}

}  // namespace
}  // namespace exporter_conventions_test
}  // namespace ys::serve
