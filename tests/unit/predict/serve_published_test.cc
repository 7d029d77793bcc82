// The published serving table (baselines/published/serving/trtllm_serving.tsv) read strictly: the
// shipped rows, and a clear Invalid (file, line, column, what was expected) for every malformed
// header or line, the fuzz findings of the training tables' reader included.
#include "predict/serve_published.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace ys::predict {
namespace {

const std::string kServeData = YS_SOURCE_DIR;
const std::string kServeHeader =
    "release\trelease_date\tchip\tmodel\tdtype\ttp\tpp\tep\tisl\tosl\toutput_tokens_per_s\tunit\t"
    "gpus\tsource\n";
const std::string kServeRow =
    "v0.20.0\t2025-06-12\tb200\tllama3.1_70b\tnvfp4\t2\t-\t-\t128\t2048\t15432.35\ttotal\t2\tx\n";

std::string ServeError(const std::string& text) {
  auto rows = ParseServePublishedTable(text, "t.tsv");
  EXPECT_FALSE(rows.ok()) << text;
  return rows.ok() ? std::string() : rows.status().message();
}

TEST(ServePublishedTest, ReadsTheShippedTable) {
  auto rows = LoadServePublishedTables(kServeData + "/baselines/published/serving");
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  EXPECT_EQ(rows->size(), 461u);
  std::map<std::string, int> by_chip;
  std::set<std::string> models;
  for (const ServePublishedRow& r : *rows) {
    ++by_chip[r.chip];
    models.insert(r.model);
    EXPECT_EQ(r.gpus, r.tp * r.pp) << r.line;
    EXPECT_FALSE(r.per_gpu) << r.line;
  }
  EXPECT_EQ(by_chip, (std::map<std::string, int>{{"b200", 115}, {"h100", 161}, {"h200", 185}}));
  EXPECT_EQ(models, (std::set<std::string>{"llama3.1_405b", "llama3.1_70b", "llama3.1_8b",
                                           "llama4-maverick_400b"}));
  // The first row of v0.20.0's "Llama 3.3 70B FP4" table, B200 TP 1, ISL/OSL 128/128.
  const ServePublishedRow& first = rows->front();
  EXPECT_EQ(first.release, "v0.20.0");
  EXPECT_EQ(first.model, "llama3.1_70b");
  EXPECT_EQ(first.dtype, "nvfp4");
  EXPECT_EQ(first.tp, 1);
  EXPECT_EQ(first.pp, 1);
  EXPECT_DOUBLE_EQ(first.output_tokens_per_s, 10994.48);
}

TEST(ServePublishedTest, ReadsARowAndItsUnit) {
  auto rows = ParseServePublishedTable("# c\n" + kServeHeader + kServeRow, "t.tsv");
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0].line, 3);
  EXPECT_EQ((*rows)[0].ep, 1);
  EXPECT_DOUBLE_EQ((*rows)[0].TotalTokensPerS(), 15432.35);
  std::string per_gpu = kServeRow;
  per_gpu.replace(per_gpu.find("total"), 5, "per_gpu");
  auto pg = ParseServePublishedTable(kServeHeader + per_gpu, "t.tsv");
  ASSERT_TRUE(pg.ok());
  EXPECT_DOUBLE_EQ((*pg)[0].TotalTokensPerS(), 2 * 15432.35);
}

TEST(ServePublishedTest, RejectsBadHeaders) {
  EXPECT_EQ(ServeError("# only comments\n"), "t.tsv: no header line");
  EXPECT_EQ(ServeError("release\t\tchip\n"),
            "t.tsv:1: column 2: empty name (expected a column name)");
  EXPECT_EQ(ServeError("release\tchip\trelease\n"),
            "t.tsv:1: column 3: \"release\" named twice (expected one column each)");
  std::string no_unit = kServeHeader;
  no_unit.replace(no_unit.find("unit"), 4, "unis");
  EXPECT_EQ(ServeError(no_unit), "t.tsv:1: no column unit");
}

TEST(ServePublishedTest, RejectsBadLines) {
  EXPECT_EQ(ServeError(kServeHeader + "v0.20.0\t2025-06-12\n"),
            "t.tsv:2: 2 fields, the header has 14");
  auto with = [&](const std::string& from, const std::string& to) {
    std::string row = kServeRow;
    row.replace(row.find(from), from.size(), to);
    return ServeError(kServeHeader + row);
  };
  EXPECT_EQ(with("nvfp4", "int4"), "t.tsv:2: column dtype: \"int4\" (expected bf16, fp8 or nvfp4)");
  EXPECT_EQ(with("2025-06-12", "June 2025"),
            "t.tsv:2: column release_date: \"June 2025\" (expected a date YYYY-MM-DD)");
  EXPECT_EQ(with("15432.35", "-3"),
            "t.tsv:2: column output_tokens_per_s: \"-3\" (expected tokens/s above 0)");
  EXPECT_EQ(with("total\t2", "total\t3"),
            "t.tsv:2: column gpus: \"3\" (expected a multiple of tp x pp = 2)");
  EXPECT_EQ(with("total", "tok/s"), "t.tsv:2: column unit: \"tok/s\" (expected total or per_gpu)");
  EXPECT_EQ(with("b200", "-"), "t.tsv:2: column chip: \"-\" (expected a value)");
  EXPECT_EQ(with("\t2\t-", "\t0\t-"), "t.tsv:2: column tp: \"0\" (expected 1..1024)");
}

}  // namespace
}  // namespace ys::predict
