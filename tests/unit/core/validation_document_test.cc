// The one reader of validation.json: every field it knows is typed and range-checked, and a bad
// field is named from the root with what was expected and found.
#include "core/validation_document.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace ys
