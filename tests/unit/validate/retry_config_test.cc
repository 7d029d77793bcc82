// Retry-log selection and the llmb-config reader.
#include <gtest/gtest.h>

#include "validate/llmb_config.h"
#include "validate/retry_logs.h"

namespace ys::validate {
namespace {

TEST(IngestRetryTest, ParsesNeMoRunLogNames) {
  auto n = ParseRetryLogName("/x/y/log-pretrain_llama3.1_70b_bf16_gpus512_4242_1.out");
  ASSERT_TRUE(n.has_value());
  EXPECT_EQ(n->experiment, "pretrain_llama3.1_70b_bf16_gpus512");
  EXPECT_EQ(n->job_id, "4242");
  EXPECT_EQ(n->retry, 1);
  EXPECT_FALSE(ParseRetryLogName("log-x_12.out").has_value());
  EXPECT_FALSE(ParseRetryLogName("log-x_12_a.out").has_value());
  EXPECT_FALSE(ParseRetryLogName("slurm-4242.out").has_value());
  EXPECT_FALSE(ParseRetryLogName("log-x_12_0.txt").has_value());
  EXPECT_EQ(JobIdOfLog("d/log-e_99_0.out"), "99");
  EXPECT_EQ(LlmbConfigPathFor("d/log-e_99_0.out"), "d/llmb-config_99.yaml");
  EXPECT_EQ(LlmbConfigPathFor("d/train.log"), "");
}

TEST(IngestRetryTest, NewestRetryWinsPerJob) {
  RetrySelection sel = SelectNewestRetries({
      "a/log-exp_7_0.out", "a/log-exp_7_2.out", "a/log-exp_7_1.out",  // job 7: retry 2 wins
      "a/log-exp_8_0.out",                                            // job 8: alone
      "b/log-exp_7_0.out",       // another directory: another run
      "plain.log", "plain.log",  // given twice: kept once
  });
  EXPECT_EQ(sel.current, (std::vector<std::string>{"a/log-exp_7_2.out", "a/log-exp_8_0.out",
                                                   "b/log-exp_7_0.out", "plain.log"}));
  ASSERT_EQ(sel.superseded.size(), 2u);
  EXPECT_EQ(sel.superseded[0].path, "a/log-exp_7_0.out");
  EXPECT_EQ(sel.superseded[0].newest, "a/log-exp_7_2.out");
  EXPECT_EQ(sel.superseded[1].path, "a/log-exp_7_1.out");
}

constexpr std::string_view kConfig =
    "# written by llmb-run\n"
    "job_info:\n"
    "  job_id: '3913022'\n"
    "  launch_time: '2025-07-01T21:05:18.298517'\n"
    "workload_info:\n"
    "  framework: nemo2\n"
    "  gsw_version: '25.07'\n"
    "  fw_version: 25.04.01\n"
    "  synthetic_dataset: true\n"
    "model_info:\n"
    "  model_name: nemotron4\n"
    "  model_size: 15b\n"
    "  dtype: fp8\n"
    "  scale: 8\n"
    "  gpu_type: h100   # comment\n"
    "cluster_info:\n"
    "  gpus_per_node: 8\n"
    "container_info:\n"
    "  images:\n"
    "  - nvcr.io#nvidia/nemo:25.04.01\n"
    "job_config:\n"
    "  profile_enabled: false\n"
    "  env_overrides: {}\n"
    "  model_overrides:\n"
    "    NUM_LAYERS: 4\n"
    "    note: \"a \\\"quoted\\\" value\"\n";

TEST(IngestLlmbConfigTest, ReadsTheFieldsIngestionNeeds) {
  Result<LlmbConfig> c = ParseLlmbConfig(kConfig, "llmb-config_3913022.yaml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->job_id, "3913022");
  EXPECT_EQ(c->framework, "nemo2");
  EXPECT_EQ(c->fw_version, "25.04.01");
  EXPECT_EQ(c->model_name, "nemotron4");
  EXPECT_EQ(c->model_size, "15b");
  EXPECT_EQ(c->dtype, "fp8");
  EXPECT_EQ(c->scale, 8);
  EXPECT_EQ(c->gpu_type, "h100");
  EXPECT_EQ(c->gpus_per_node, 8);
}

TEST(IngestLlmbConfigTest, FlatYamlScalars) {
  Result<YamlSections> y = ParseFlatYaml(
      "---\ntop: 1\ns:\n  a: 'it''s'\n  b: \"x\\ty\"\n  c: plain # c\n  d: [1, 2]\n", "t.yaml");
  ASSERT_TRUE(y.ok()) << y.status().message();
  EXPECT_EQ(y->at("").at("top").value, "1");
  EXPECT_EQ(y->at("s").at("a").value, "it's");
  EXPECT_EQ(y->at("s").at("b").value, "x\ty");
  EXPECT_EQ(y->at("s").at("c").value, "plain");
  EXPECT_EQ(y->at("s").at("d").value, "[1, 2]");
  EXPECT_EQ(y->at("s").at("c").line, 6);
}

TEST(IngestLlmbConfigTest, MalformedInputNamesFileLineAndExpectation) {
  struct Case {
    const char* text;
    const char* want;
  } cases[] = {
      {"model_info:\n\tscale: 8\n", "t.yaml:2: tab in indentation"},
      {"model_info:\n  scale 8\n", "t.yaml:2: expected 'key: value'"},
      {"model_info:\n  scale: 8\n  scale: 16\n", "t.yaml:3: duplicate key 'scale'"},
      {"model_info:\n  model_name: 'llama\n", "t.yaml:2: unterminated 'single-quoted'"},
      {"model_info:\n  model_name: \"llama\n", "t.yaml:2: unterminated \"double-quoted\""},
      {"  scale: 8\n", "t.yaml:1: indented line outside a section"},
      {"model_info:\n  scale: 8\n    deeper: 1\n", "t.yaml:3: indented 4 spaces under a key"},
      {"model_info:\n    scale: 8\n  dtype: fp8\n", "t.yaml:3: indented 2 spaces"},
      {"- a\n", "t.yaml:1: list at the top level"},
      {"model_info:\n  - a\n", "t.yaml:2: list item without a key"},
      {"model_info:\n  scale: *anchor\n", "t.yaml:2: anchors, aliases and tags"},
      {"model_info:\n  dtype: [fp8\n", "t.yaml:2: unbalanced flow collection"},
      {"model_info:\n  dtype: 'x' y\n", "t.yaml:2: text after a quoted value"},
      {"model_info:\n  scale: -4\n", "t.yaml:2: model_info.scale is '-4'; expected a positive"},
      {"model_info:\n  scale: eight\n", "model_info.scale is 'eight'"},
      {"job_info:\n  job_id: 1\n", "t.yaml: no 'model_info' section"},
      {"model_info:\nmodel_info:\n", "t.yaml:2: duplicate section 'model_info'"},
      {"\x01\x02\x03", "t.yaml:1: expected 'key: value'"},
  };
  for (const Case& c : cases) {
    Result<LlmbConfig> r = ParseLlmbConfig(c.text, "t.yaml");
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_NE(r.status().message().find(c.want), std::string::npos)
        << "got: " << r.status().message() << "\nwant: " << c.want;
  }
}

TEST(IngestLlmbConfigTest, MissingFileIsNotFound) {
  Result<LlmbConfig> r = ReadLlmbConfig("/nonexistent/llmb-config_1.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace ys::validate
