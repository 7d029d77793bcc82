// ReadRunInput: what a user's run argument names (a run document, a validation document, a run
// directory, a recorded run id) and the errors that name the file and what was expected.
#include "history/run_input.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/run_document_json.h"

namespace ys::history {
namespace {

namespace fs = std::filesystem;

std::string Scratch(const std::string& name) {
  std::string dir = ::testing::TempDir() + "/ys-run-input-test/" + name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string Write(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
  return path;
}

std::string RunJson() {
  RunDocument d;
  d.command = "preflight";
  d.started_at = "2026-12-01T10:00:00Z";
  d.host.hostname = "node1";
  return DumpJson(ToJson(d));
}

constexpr char kValidation[] =
    R"({"kind": "yardstick-validation", "verdict": {"pass": true}, "workloads": []})";

TEST(RunInputTest, TellsARunDocumentFromAValidationDocumentByKind) {
  std::string dir = Scratch("kinds");
  auto run = ReadRunInput(Write(dir + "/a.json", RunJson()));
  ASSERT_TRUE(run.ok()) << run.status().message();
  ASSERT_TRUE(run->run.has_value());
  EXPECT_EQ(run->run->host.hostname, "node1");
  EXPECT_EQ(run->run_path, dir + "/a.json");
  EXPECT_FALSE(run->validation.has_value());
  auto val = ReadRunInput(Write(dir + "/b.json", kValidation));
  ASSERT_TRUE(val.ok()) << val.status().message();
  EXPECT_TRUE(val->validation.has_value());
  EXPECT_EQ(val->validation_path, dir + "/b.json");
  EXPECT_FALSE(val->run.has_value());
}

TEST(RunInputTest, DirectoryOnlyWhereTheCommandTakesOne) {
  std::string dir = Scratch("dir");
  Write(dir + "/run.json", RunJson());
  Write(dir + "/validation.json", kValidation);
  auto both = ReadRunInput(dir, {.directory = true});
  ASSERT_TRUE(both.ok()) << both.status().message();
  EXPECT_TRUE(both->run.has_value());
  EXPECT_TRUE(both->validation.has_value());
  EXPECT_EQ(both->validation_path, (fs::path(dir) / "validation.json").string());
  // Without the directory form a directory is a file that cannot be read.
  EXPECT_FALSE(ReadRunInput(dir).ok());
  std::string empty = Scratch("empty");
  auto none = ReadRunInput(empty, {.directory = true});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kNotFound);
  EXPECT_NE(none.status().message().find("needs run.json or validation.json"), std::string::npos);
}

TEST(RunInputTest, RecordedRunIdOnlyWhenNoSuchFile) {
  auto id = ReadRunInput("42", {.recorded_id = true});
  ASSERT_TRUE(id.ok()) << id.status().message();
  ASSERT_TRUE(id->recorded_id.has_value());
  EXPECT_EQ(*id->recorded_id, 42);
  EXPECT_FALSE(ReadRunInput("42").ok());  // not taken: a file named 42, which is absent
  EXPECT_FALSE(IsRecordedRunId("4x"));
  EXPECT_FALSE(IsRecordedRunId(""));
  EXPECT_FALSE(IsRecordedRunId("123456789012345678"));  // past int64 comfort: a file name
  // A file that exists under a numeric name is read as a file.
  std::string dir = Scratch("numeric");
  Write(dir + "/7", RunJson());
  auto file = ReadRunInput(dir + "/7", {.recorded_id = true});
  ASSERT_TRUE(file.ok()) << file.status().message();
  EXPECT_TRUE(file->run.has_value());
}

TEST(RunInputTest, ErrorsNameTheFileAndWhatWasExpected) {
  std::string dir = Scratch("errors");
  auto other = ReadRunInput(Write(dir + "/other.json", R"({"hello": 1})"));
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(other.status().message().find("other.json: not a run document (nor a validation"),
            std::string::npos)
      << other.status().message();
  auto garbage = ReadRunInput(Write(dir + "/garbage.json", "not json {"));
  ASSERT_FALSE(garbage.ok());
  EXPECT_NE(garbage.status().message().find("garbage.json: not JSON"), std::string::npos)
      << garbage.status().message();
  auto missing = ReadRunInput(dir + "/none.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("none.json"), std::string::npos);
}

TEST(RunInputTest, ValidationInputRefusesOtherDocuments) {
  std::string dir = Scratch("validation");
  auto ok = ReadValidationInput(Write(dir + "/v.json", kValidation), "--validation");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  auto run = ReadValidationInput(Write(dir + "/r.json", RunJson()), "--validation");
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.status().message().find("r.json: --validation expects a validation document"),
            std::string::npos)
      << run.status().message();
}

}  // namespace
}  // namespace ys::history
