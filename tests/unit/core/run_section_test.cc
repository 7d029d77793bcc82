// The registry of run document sections (core/run_section.h): a registered codec is found by its
// key, an unknown key finds none.
#include "core/run_section.h"

#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>

namespace ys {
namespace {

Result<std::shared_ptr<const RunSection>> ReadNothingForTest(const nlohmann::json&,
                                                             const json_fields::Path&,
                                                             json_fields::Style) {
  return Status::Invalid("not read");
}
nlohmann::ordered_json SchemaOfNothingForTest(
    json_fields::BasicSchemaWriter<nlohmann::ordered_json>&) {
  return nlohmann::ordered_json::object();
}

TEST(RunSection, RegisteredCodecIsFoundByItsKey) {
  // Once per process, as a section's registration line runs (a second registration aborts).
  static const bool registered = RegisterRunSection(
      "run_section_test.key", {.read = &ReadNothingForTest, .schema = &SchemaOfNothingForTest});
  ASSERT_TRUE(registered);
  const RunSectionCodec* codec = FindRunSection("run_section_test.key");
  ASSERT_NE(codec, nullptr);
  EXPECT_EQ(codec->read, &ReadNothingForTest);
  EXPECT_EQ(codec->schema, &SchemaOfNothingForTest);
  EXPECT_EQ(FindRunSection("run_section_test"), nullptr);
}

}  // namespace
}  // namespace ys
