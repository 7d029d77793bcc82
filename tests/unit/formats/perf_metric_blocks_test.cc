// The metric blocks AIPerf and GenAI-Perf share (src/formats/perf_metric_blocks.h), on literal
// strings: what counts as a block in a head, the unit conversions, the extra-input forms.
#include "formats/perf_metric_blocks.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace ys::formats {
namespace {

TEST(PerfMetricBlocksTest, ABlockIsAMetricKeyWithAUnitInItsObject) {
  EXPECT_TRUE(HasPerfMetricBlock(R"({"request_throughput": {"unit": "requests/sec", "avg": 1}})"));
  EXPECT_TRUE(HasPerfMetricBlock("{\n  \"time_to_first_token\" :\n {\n \"unit\": \"ms\"}"));
  // vLLM's flat record names the same figure with a number.
  EXPECT_FALSE(HasPerfMetricBlock(R"({"request_throughput": 12.3, "unit": "x"})"));
  EXPECT_FALSE(HasPerfMetricBlock(R"({"request_latency": {"avg": 3}})"));
  EXPECT_FALSE(HasPerfMetricBlock(""));
}

TEST(PerfMetricBlocksTest, BlocksConvertToMsSecondsAndPerSecond) {
  auto doc = nlohmann::json::parse(R"({
    "request_latency": {"unit": "s", "avg": 1.5, "p99": 2, "std": 0.5},
    "output_token_throughput": {"unit": "tokens per sec", "avg": 100},
    "benchmark_duration": {"unit": "ns", "avg": 3e9},
    "output_sequence_length": {"unit": "tokens", "avg": 99.5, "p50": 100}})");
  validate::ServingPoint p;
  ASSERT_TRUE(ReadPerfMetricBlocks(doc, "AIPerf", "x.json", p).ok());
  EXPECT_DOUBLE_EQ(p.e2el_ms.at("mean"), 1500);
  EXPECT_DOUBLE_EQ(p.e2el_ms.at("p99"), 2000);
  EXPECT_DOUBLE_EQ(p.e2el_ms.at("std"), 500);
  EXPECT_DOUBLE_EQ(*p.output_throughput, 100);
  EXPECT_DOUBLE_EQ(*p.duration_s, 3);
  EXPECT_DOUBLE_EQ(p.osl_tokens.at("p50"), 100);
  auto rate = nlohmann::json::parse(R"({"request_throughput": {"unit": "requests", "avg": 1}})");
  validate::ServingPoint q;
  Status s = ReadPerfMetricBlocks(rate, "AIPerf", "x.json", q);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'request_throughput.unit' is \"requests\"; expected a rate per "
                             "second"),
            std::string::npos)
      << s.message();
}

TEST(PerfMetricBlocksTest, ExtraInputsAndNumbersInEitherForm) {
  EXPECT_EQ(PerfIgnoreEos(nlohmann::json::parse(R"([["min_tokens", 200], ["ignore_eos", true]])")),
            true);
  EXPECT_EQ(PerfIgnoreEos(nlohmann::json::parse(R"({"ignore_eos": "false"})")), false);
  EXPECT_FALSE(PerfIgnoreEos(nlohmann::json::parse(R"("")")).has_value());
  auto config = nlohmann::json::parse(R"({"loadgen": {"concurrency": "8", "request_count": 2.5}})");
  EXPECT_EQ(PerfCountAt(config, {"loadgen", "concurrency"}), 8);
  EXPECT_FALSE(PerfCountAt(config, {"loadgen", "request_count"}).has_value());
  EXPECT_FALSE(PerfNumberAt(config, {"loadgen", "request_rate"}).has_value());
  EXPECT_FALSE(PerfNumberAt(config, {"loadgen", "concurrency", "deeper"}).has_value());
}

}  // namespace
}  // namespace ys::formats
