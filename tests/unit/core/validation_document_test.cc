// The one reader of validation.json: every field it knows is typed and range-checked, and a bad
// field is named from the root with what was expected and found.
#include "core/validation_document.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

namespace ys {
namespace {

using json = nlohmann::json;

const json kDoc = json::parse(R"doc({
  "schema_version": 1, "kind": "yardstick-validation", "created_at": "2026-12-01T10:00:00Z",
  "tool": {"name": "yardstick", "version": "0.9 (abc)"},
  "suite": {"chip": "h100", "recipe_release": "25.05", "threshold": 0.95},
  "workloads": [
    {"id": "llama3_8b", "outcome": "pass", "reason": "", "gpus": 8, "score": 0.99, "mfu": 0.4,
     "tokens_per_s_per_gpu": 9000, "step_times_s": [1.0, 1.1],
     "measured": {"log": "runs/llama3_8b/log.txt", "tflops_per_gpu": 400},
     "reference": {"tflops_per_gpu": 420}},
    {"id": "nemotron", "outcome": "fail", "reason": "no log", "measured": null, "reference": null,
     "score": null, "mfu": null, "tokens_per_s_per_gpu": null, "step_times_s": []}],
  "verdict": {"pass": false, "text": "FAIL: 1 of 2"}})doc");

TEST(ValidationDocumentTest, ReadsEveryField) {
  ASSERT_TRUE(IsValidationDocument(kDoc));
  auto d = ValidationDocumentFromJson(kDoc, "v.json");
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->created_at, "2026-12-01T10:00:00Z");
  EXPECT_EQ(d->tool, "0.9 (abc)");
  EXPECT_TRUE(d->has_suite);
  EXPECT_EQ(d->chip, "h100");
  EXPECT_EQ(d->recipe_release, "25.05");
  EXPECT_EQ(d->threshold, 0.95);
  EXPECT_EQ(d->pass, false);
  EXPECT_EQ(d->verdict, "FAIL: 1 of 2");
  ASSERT_EQ(d->workloads.size(), 2u);
  const ValidationWorkload& a = d->workloads[0];
  EXPECT_EQ(a.id, "llama3_8b");
  EXPECT_EQ(a.outcome, "pass");
  EXPECT_EQ(a.gpus, 8);
  EXPECT_EQ(a.score, 0.99);
  EXPECT_EQ(a.tokens_per_s_per_gpu, 9000);
  EXPECT_EQ(a.step_times_s, (std::vector<double>{1.0, 1.1}));
  EXPECT_EQ(a.measured_tflops_per_gpu, 400);
  EXPECT_EQ(a.reference_tflops_per_gpu, 420);
  EXPECT_EQ(a.log, "runs/llama3_8b/log.txt");
  const ValidationWorkload& b = d->workloads[1];
  EXPECT_EQ(b.reason, "no log");
  EXPECT_FALSE(b.score || b.mfu || b.tokens_per_s_per_gpu || b.gpus || b.measured_tflops_per_gpu);
  EXPECT_TRUE(b.step_times_s.empty());
}

TEST(ValidationDocumentTest, AMinimalDocumentIsEnough) {
  auto d = ValidationDocumentFromJson(json::parse(R"({"workloads": [{"id": "x"}]})"), "m.json");
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_FALSE(d->has_suite);
  EXPECT_FALSE(d->threshold || d->pass);
  EXPECT_FALSE(IsValidationDocument(json::parse(R"({"workloads": []})")));
}

// What the reader tolerates: null where a value may be absent, "tool" that is not an object, and
// keys it does not know, at every level.
TEST(ValidationDocumentTest, NullIsAbsentAndUnknownKeysAreIgnored) {
  json doc = kDoc;
  doc["tool"] = "yardstick";
  doc["suite"] = nullptr;
  doc["verdict"]["pass"] = nullptr;
  doc["verdict"]["state"] = nullptr;
  doc["verdict"]["future"] = {{"x", 1}};
  doc["prediction"] = json::object();
  doc["workloads"][0]["gpus"] = nullptr;
  doc["workloads"][0]["step_times_s"] = nullptr;
  doc["workloads"][0]["measured"]["tflops_per_gpu"] = nullptr;
  doc["workloads"][0]["measured"]["status"] = "success";
  doc["workloads"][0]["model"] = 3;
  auto d = ValidationDocumentFromJson(doc, "v.json");
  ASSERT_FALSE(d.ok());  // verdict.state: null is not a string
  EXPECT_EQ(d.status().message(), "v.json: verdict.state: expected a string, found null");
  doc["verdict"].erase("state");
  d = ValidationDocumentFromJson(doc, "v.json");
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->tool, "");
  EXPECT_FALSE(d->has_suite || d->threshold || d->pass);
  EXPECT_EQ(d->verdict, "FAIL: 1 of 2");
  const ValidationWorkload& a = d->workloads[0];
  EXPECT_FALSE(a.gpus || a.measured_tflops_per_gpu);
  EXPECT_TRUE(a.step_times_s.empty());
  EXPECT_EQ(a.log, "runs/llama3_8b/log.txt");
  EXPECT_EQ(a.reference_tflops_per_gpu, 420);
}

TEST(ValidationDocumentTest, BadFieldsAreNamedFromTheRoot) {
  struct Case {
    const char* pointer;
    json value;
    const char* message;
  };
  const Case cases[] = {
      {"/created_at", 5, "v.json: created_at: expected a string, found a number"},
      {"/suite", "h100", "v.json: suite: expected an object or null, found a string"},
      {"/suite/threshold", 0,
       "v.json: suite.threshold: expected a number in (0, 2], found a number"},
      {"/suite/threshold", "high",
       "v.json: suite.threshold: expected a number or null, found a string"},
      {"/verdict/pass", "yes", "v.json: verdict.pass: expected true or false, found a string"},
      {"/workloads", json::object(),
       "v.json: workloads: expected an array of workload rows, found an object"},
      {"/workloads/0", 3, "v.json: workloads[0]: expected an object, found a number"},
      {"/workloads/0/id", 7,
       "v.json: workloads[0].id: expected the workload id as a string, found a number"},
      {"/workloads/1/outcome", "meh",
       "v.json: workloads[1].outcome: expected \"pass\", \"fail\" or \"inconclusive\", found a "
       "string"},
      {"/workloads/0/score", json::array({1}),
       "v.json: workloads[0].score: expected a number or null, found an array"},
      {"/workloads/0/gpus", 0,
       "v.json: workloads[0].gpus: expected a whole number > 0 or null, found a number"},
      {"/workloads/0/step_times_s/1", -1,
       "v.json: workloads[0].step_times_s[1]: expected a positive number of seconds, found a "
       "number"},
      {"/workloads/0/measured", 1,
       "v.json: workloads[0].measured: expected an object or null, found a number"},
      {"/workloads/0/reference/tflops_per_gpu", "x",
       "v.json: workloads[0].reference.tflops_per_gpu: expected a number or null, found a string"},
      {"/kind", nullptr, "v.json: kind: expected a string, found null"},
      {"/tool/version", 3, "v.json: tool.version: expected a string, found a number"},
      {"/verdict", json::array(), "v.json: verdict: expected an object or null, found an array"},
      {"/verdict/state", "done",
       "v.json: verdict.state: expected \"pass\", \"fail\" or \"inconclusive\", found a string"},
      {"/workloads", nullptr, "v.json: workloads: missing, expected an array of workload rows"},
      {"/workloads/1/id", nullptr,
       "v.json: workloads[1].id: expected the workload id as a string, found null"},
      {"/workloads/0/step_times_s", "1.0",
       "v.json: workloads[0].step_times_s: expected an array of seconds, found a string"},
      {"/workloads/0/measured/log", false,
       "v.json: workloads[0].measured.log: expected a string, found a boolean"},
  };
  for (const Case& c : cases) {
    json doc = kDoc;
    doc[json::json_pointer(c.pointer)] = c.value;
    auto d = ValidationDocumentFromJson(doc, "v.json");
    ASSERT_FALSE(d.ok()) << c.pointer;
    EXPECT_EQ(d.status().code(), StatusCode::kInvalidInput);
    EXPECT_EQ(d.status().message(), c.message);
  }
  json no_rows = kDoc;
  no_rows.erase("workloads");
  EXPECT_EQ(ValidationDocumentFromJson(no_rows, "v.json").status().message(),
            "v.json: workloads: missing, expected an array of workload rows");
  EXPECT_EQ(ValidationDocumentFromJson(json::array(), "v.json").status().message(),
            "v.json: (top level): expected an object, found an array");
  json no_id = kDoc;
  no_id["workloads"][1].erase("id");
  EXPECT_EQ(ValidationDocumentFromJson(no_id, "v.json").status().message(),
            "v.json: workloads[1].id: missing, expected the workload id as a string");
  // The first problem in reading order is the one named.
  json two = kDoc;
  two["workloads"][0]["mfu"] = "high";
  two["suite"]["chip"] = 1;
  EXPECT_EQ(ValidationDocumentFromJson(two, "").status().message(),
            "suite.chip: expected a string, found a number");
}

// A serving suite's document, as `yardstick validate` wrote it
// (tests/fixtures/runs/serving-phases): four phases, every field of a phase read.
json ServingPhasesFixture() {
  std::ifstream in(std::string(YS_FIXTURES_DIR) + "/runs/serving-phases/validation.json");
  return json::parse(in);
}

TEST(ValidationDocumentTest, ReadsServingPhases) {
  auto d = ValidationDocumentFromJson(ServingPhasesFixture(), "v.json");
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_TRUE(d->workloads.empty());
  ASSERT_EQ(d->phases.size(), 4u);
  const ValidationPhase& pass = d->phases[0];
  EXPECT_EQ(pass.id, "qwen_chat_pass");
  EXPECT_EQ(pass.outcome, "pass");
  EXPECT_EQ(pass.phase, "chat");
  EXPECT_EQ(pass.model, "qwen3-0.6b");
  EXPECT_EQ(pass.stack, "vllm");
  EXPECT_EQ(pass.gpus, 1);
  EXPECT_EQ(pass.tp, 1);
  EXPECT_EQ(pass.isl, 100);
  EXPECT_EQ(pass.osl, 200);
  EXPECT_EQ(pass.concurrency, std::vector<int>{8});
  EXPECT_EQ(pass.requests, 64);
  EXPECT_EQ(pass.gpu_denominator, "all GPUs");
  EXPECT_EQ(pass.point, "concurrency 8");
  EXPECT_EQ(pass.format, "aiperf-json");
  EXPECT_EQ(pass.files, std::vector<std::string>{"runs/qwen_chat_pass/profile_export_aiperf.json"});
  ASSERT_EQ(pass.metrics.size(), 3u);
  const ValidationPhaseMetric* tput = pass.Metric("output_tokens_per_s_per_gpu");
  ASSERT_NE(tput, nullptr);
  EXPECT_EQ(tput->unit, "tok/s/GPU");
  EXPECT_TRUE(tput->larger_is_better);
  EXPECT_NEAR(*tput->measured, 385.668, 1e-3);
  EXPECT_EQ(tput->reference, 380);
  EXPECT_NEAR(*tput->score, 385.668 / 380, 1e-6);
  EXPECT_EQ(tput->outcome, "pass");
  const ValidationPhaseMetric* ttft = pass.Metric("ttft_ms");
  ASSERT_NE(ttft, nullptr);
  EXPECT_EQ(ttft->stat, "mean");
  EXPECT_FALSE(ttft->larger_is_better);
  EXPECT_EQ(ttft->reference, 70);
  ASSERT_NE(pass.Metric("tpot_ms"), nullptr);
  EXPECT_EQ(pass.Metric("tpot_ms")->stat, "mean");
  EXPECT_EQ(pass.Metric("latency"), nullptr);
  ASSERT_TRUE(pass.reference.has_value());
  EXPECT_EQ(pass.reference->concurrency, 8);
  EXPECT_EQ(pass.reference->output_tokens_per_s_per_gpu, 380);
  EXPECT_EQ(pass.reference->tokens_per_s_per_user, 54);
  EXPECT_EQ(pass.reference->tpot_ms, 18.6);
  EXPECT_EQ(pass.reference->kind, "site");
  EXPECT_EQ(pass.reference->release, "v26.05");
  // The failing phase's reference states TTFT at p50 and no interactivity.
  const ValidationPhase& fail = d->phases[1];
  EXPECT_EQ(fail.outcome, "fail");
  EXPECT_EQ(fail.Metric("ttft_ms")->stat, "p50");
  EXPECT_FALSE(fail.reference->tokens_per_s_per_user);
  // Inconclusive: no metric, the point refused with why.
  const ValidationPhase& open = d->phases[2];
  EXPECT_EQ(open.outcome, "inconclusive");
  EXPECT_TRUE(open.metrics.empty());
  EXPECT_TRUE(open.point.empty());
  ASSERT_EQ(open.refused.size(), 1u);
  EXPECT_NE(open.refused[0].find("asked ISL/OSL 100/200"), std::string::npos);
  // No run folder: no reference, no files.
  const ValidationPhase& missing = d->phases[3];
  EXPECT_EQ(missing.outcome, "fail");
  EXPECT_FALSE(missing.reference.has_value());
  EXPECT_TRUE(missing.files.empty());
  EXPECT_NE(missing.reason.find("not a folder"), std::string::npos);
}

// A metric is told by its unit and name, whatever the writer calls the throughput.
TEST(ValidationDocumentTest, PhaseMetricsAreToldByUnitAndName) {
  json doc = ServingPhasesFixture();
  json& metrics = doc["phases"][0]["metrics"];
  // A document written before metrics carried their key and statistic.
  for (json& m : metrics) {
    m.erase("key");
    m.erase("stat");
  }
  metrics[0]["name"] = "output tokens/s/GPU";
  metrics[1]["name"] = "TTFT p99";
  metrics[2]["unit"] = "s";  // not a TPOT in ms: not one this reader knows
  auto d = ValidationDocumentFromJson(doc, "v.json");
  ASSERT_TRUE(d.ok()) << d.status().message();
  const ValidationPhase& p = d->phases[0];
  EXPECT_EQ(p.metrics[0].key, "output_tokens_per_s_per_gpu");
  EXPECT_EQ(p.metrics[1].key, "ttft_ms");
  EXPECT_EQ(p.metrics[1].stat, "p99");
  EXPECT_EQ(p.metrics[2].key, "");
  EXPECT_EQ(p.Metric("tpot_ms"), nullptr);
  // The key a document writes wins over the name.
  json keyed = ServingPhasesFixture();
  keyed["phases"][0]["metrics"][2]["name"] = "inter-token latency";
  auto k = ValidationDocumentFromJson(keyed, "v.json");
  ASSERT_TRUE(k.ok()) << k.status().message();
  EXPECT_NE(k->phases[0].Metric("tpot_ms"), nullptr);
}

TEST(ValidationDocumentTest, BadPhaseFieldsAreNamedFromTheRoot) {
  struct Case {
    const char* pointer;
    json value;
    const char* message;
  };
  const Case cases[] = {
      {"/phases", json::object(),
       "v.json: phases: expected an array of phase rows, found an object"},
      {"/phases/1", "x", "v.json: phases[1]: expected an object, found a string"},
      {"/phases/0/id", 4,
       "v.json: phases[0].id: expected the phase id as a string, found a number"},
      {"/phases/0/outcome", "great",
       "v.json: phases[0].outcome: expected \"pass\", \"fail\" or \"inconclusive\", found a "
       "string"},
      {"/phases/0/phase", "chat",
       "v.json: phases[0].phase: expected an object or null, found a string"},
      {"/phases/0/phase/gpus", -1,
       "v.json: phases[0].phase.gpus: expected a whole number >= 0, found a number"},
      {"/phases/0/phase/isl", 1.5,
       "v.json: phases[0].phase.isl: expected a whole number >= 0, found a number"},
      {"/phases/0/phase/concurrency", 8,
       "v.json: phases[0].phase.concurrency: expected an array of concurrencies, found a number"},
      {"/phases/0/phase/concurrency/0", 0,
       "v.json: phases[0].phase.concurrency[0]: expected a whole number >= 1, found a number"},
      {"/phases/0/phase/model", 3,
       "v.json: phases[0].phase.model: expected a string, found a number"},
      {"/phases/0/metrics", "x",
       "v.json: phases[0].metrics: expected an array of metrics, found a string"},
      {"/phases/0/metrics/1", 2,
       "v.json: phases[0].metrics[1]: expected an object, found a number"},
      {"/phases/0/metrics/1/name", nullptr,
       "v.json: phases[0].metrics[1].name: expected a string, found null"},
      {"/phases/0/metrics/0/measured", -3,
       "v.json: phases[0].metrics[0].measured: expected a number >= 0 or null, found a number"},
      {"/phases/0/metrics/0/score", "high",
       "v.json: phases[0].metrics[0].score: expected a number >= 0 or null, found a string"},
      {"/phases/0/metrics/2/outcome", "ok",
       "v.json: phases[0].metrics[2].outcome: expected \"pass\", \"fail\" or \"inconclusive\", "
       "found a string"},
      {"/phases/0/metrics/0/larger_is_better", 1,
       "v.json: phases[0].metrics[0].larger_is_better: expected true or false, found a number"},
      {"/phases/0/reference", json::array(),
       "v.json: phases[0].reference: expected an object or null, found an array"},
      {"/phases/0/reference/output_tokens_per_s_per_gpu", "380",
       "v.json: phases[0].reference.output_tokens_per_s_per_gpu: expected a number >= 0 or null, "
       "found a string"},
      {"/phases/0/reference/concurrency", -8,
       "v.json: phases[0].reference.concurrency: expected a whole number >= 0, found a number"},
      {"/phases/0/files", "runs/x", "v.json: phases[0].files: expected an array, found a string"},
      {"/phases/0/point", 8, "v.json: phases[0].point: expected a string or null, found a number"},
      {"/phases/0/refused/0", 1, "v.json: phases[0].refused[0]: expected a string, found a number"},
  };
  for (const Case& c : cases) {
    json doc = ServingPhasesFixture();
    if (std::string(c.pointer) == "/phases/0/refused/0")
      doc["phases"][0]["refused"] = json::array({"x"});
    doc[json::json_pointer(c.pointer)] = c.value;
    auto d = ValidationDocumentFromJson(doc, "v.json");
    ASSERT_FALSE(d.ok()) << c.pointer;
    EXPECT_EQ(d.status().code(), StatusCode::kInvalidInput);
    EXPECT_EQ(d.status().message(), c.message);
  }
}

TEST(ValidationDocumentTest, APhaseNeedsItsIdOutcomeAndMetricNames) {
  json no_id = ServingPhasesFixture();
  no_id["phases"][2].erase("id");
  EXPECT_EQ(ValidationDocumentFromJson(no_id, "v.json").status().message(),
            "v.json: phases[2].id: missing, expected the phase id as a string");
  json no_outcome = ServingPhasesFixture();
  no_outcome["phases"][1].erase("outcome");
  EXPECT_EQ(ValidationDocumentFromJson(no_outcome, "v.json").status().message(),
            "v.json: phases[1].outcome: missing, expected \"pass\", \"fail\" or \"inconclusive\"");
  json no_name = ServingPhasesFixture();
  no_name["phases"][0]["metrics"][2].erase("name");
  EXPECT_EQ(ValidationDocumentFromJson(no_name, "v.json").status().message(),
            "v.json: phases[0].metrics[2].name: missing, expected the metric's name as a string");
  // Null phases, a null reference and a null point read as absent.
  json nulls = ServingPhasesFixture();
  nulls["phases"][0]["reference"] = nullptr;
  nulls["phases"][0]["point"] = nullptr;
  auto d = ValidationDocumentFromJson(nulls, "v.json");
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_FALSE(d->phases[0].reference.has_value());
  EXPECT_TRUE(d->phases[0].point.empty());
  nulls["phases"] = nullptr;
  d = ValidationDocumentFromJson(nulls, "v.json");
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_TRUE(d->phases.empty());
}

}  // namespace
}  // namespace ys
