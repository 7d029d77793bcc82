#include "core/json_schema.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <typeinfo>
#include <vector>

#include "core/document_schemas.h"
#include "core/json_fields.h"
#include "core/json_fields_values.h"

namespace ys {
namespace json_schema_test {
namespace {

using ojson = nlohmann::ordered_json;

enum class Shade { kLight, kDark };
auto JsonNames(Shade) {
  return std::array{std::pair{Shade::kLight, "light"}, std::pair{Shade::kDark, "dark"}};
}

struct Leaf {
  std::string name;
};

template <typename V>
void Fields(V& v, Leaf& l) {
  v("name", l.name);
}

struct Tree {
  std::string id;
  int64_t count = 0;
  uint32_t size = 0;
  double ratio = 0;
  bool on = false;
  Shade shade = Shade::kLight;
  std::optional<double> limit;
  std::string note;
  std::vector<Leaf> leaves;
  std::vector<std::pair<std::string, std::string>> evidence;
  std::map<std::string, int> counts;
  std::shared_ptr<const Leaf> extra;
  bool extra_ran = false;
};

template <typename V>
void Fields(V& v, Tree& t) {
  v("id", t.id);
  v("count", t.count);
  v("size", t.size);
  v("ratio", t.ratio);
  v.defaulted("on", t.on);
  v("shade", t.shade);
  v("limit", t.limit);
  v.optional("note", t.note);
  v("leaves", t.leaves);
  v.defaulted("evidence", t.evidence);
  v("counts", t.counts);
  v.optional("extra", t.extra, t.extra_ran);
  v.computed("total", [&] { return t.count + 1; });
  v.computed("kind", [] { return "tree"; });
  v("version", json_fields::Exactly<int>{2});
  v.ignored("telemetry");
  v.check("count", t.count >= 0, "a count");
}

// A view: references only, walked over a sample.
struct LeafView {
  const Leaf& leaf;
  const std::string& where;
};

template <typename V>
void Fields(V& v, LeafView& x) {
  v("name", x.leaf.name);
  v("where", x.where);
}

// A key listed under a condition, and a key whose name depends on a value.
struct Branchy {
  bool gpu = false;
};

template <typename V>
void Fields(V& v, Branchy& b) {
  v("label", std::string("x"));
  if (b.gpu) v("uuid", std::string("u"));
  v(b.gpu ? "source" : "reason", std::string("r"));
}

std::vector<Branchy> JsonSchemaSamples(const Branchy*) { return {Branchy{true}, Branchy{false}}; }

struct Outer {
  std::vector<LeafView> views;
  Branchy branchy;
};

template <typename V>
void Fields(V& v, Outer& o) {
  v("views", o.views);
  v("branchy", o.branchy);
}

ojson SchemaOf(const char* name) {
  return json_fields::DocumentSchema<Tree>(name, "a tree", "for the test");
}

TEST(JsonSchema, DocumentHeader) {
  ojson s = SchemaOf("tree");
  EXPECT_EQ(s["$schema"], "https://json-schema.org/draft/2020-12/schema");
  EXPECT_EQ(s["$id"], "https://yardstick.invalid/schemas/tree.schema.json");
  EXPECT_EQ(s["title"], "a tree");
  EXPECT_EQ(s["description"], "for the test");
  EXPECT_EQ(s["type"], "object");
  EXPECT_EQ(s["additionalProperties"], false);
}

TEST(JsonSchema, TypesOfValues) {
  ojson p = SchemaOf("tree")["properties"];
  EXPECT_EQ(p["id"], ojson({{"type", "string"}}));
  EXPECT_EQ(p["count"], ojson({{"type", "integer"}}));
  EXPECT_EQ(p["size"], ojson({{"type", "integer"}, {"minimum", 0}}));
  EXPECT_EQ(p["ratio"], ojson({{"type", {"number", "null"}}}));  // NaN is written as null
  EXPECT_EQ(p["on"], ojson({{"type", "boolean"}}));
  EXPECT_EQ(p["shade"], ojson({{"enum", {"light", "dark"}}}));
  EXPECT_EQ(p["limit"], ojson({{"type", {"number", "null"}}}));
  EXPECT_EQ(p["leaves"], ojson({{"type", "array"}, {"items", {{"$ref", "#/$defs/leaf"}}}}));
  EXPECT_EQ(p["evidence"],
            ojson({{"type", "object"}, {"additionalProperties", {{"type", "string"}}}}));
  EXPECT_EQ(p["counts"],
            ojson({{"type", "object"}, {"additionalProperties", {{"type", "integer"}}}}));
  EXPECT_EQ(p["extra"], ojson({{"anyOf", {{{"$ref", "#/$defs/leaf"}}, {{"type", "null"}}}}}));
  EXPECT_EQ(p["total"], ojson({{"type", "integer"}}));
  EXPECT_EQ(p["kind"], ojson({{"type", "string"}}));
  EXPECT_EQ(p["version"], ojson({{"const", 2}}));
  EXPECT_EQ(p["telemetry"], ojson::object());
}

TEST(JsonSchema, RequiredIsWhatTheWriterAlwaysWrites) {
  ojson s = SchemaOf("tree");
  EXPECT_EQ(s["required"], ojson({"id", "count", "size", "ratio", "on", "shade", "limit", "leaves",
                                  "evidence", "counts", "total", "kind", "version"}));
  EXPECT_EQ(s["$defs"]["leaf"]["required"], ojson({"name"}));
}

TEST(JsonSchema, StylesSayHowNonFiniteNumbersAreWritten) {
  json_fields::BasicSchemaWriter<>::Defs defs;
  ojson unused;
  json_fields::BasicSchemaWriter<> w(defs, unused, {});
  EXPECT_EQ(w.Value(1.0, {.non_finite_as_zero = true}), ojson({{"type", "number"}}));
  EXPECT_EQ(w.Value(1.0, {.non_finite_as_string = true}),
            ojson({{"anyOf", {{{"type", "number"}}, {{"enum", {"nan", "inf", "-inf"}}}}}}));
}

TEST(JsonSchema, ViewsAndBranches) {
  ojson s = json_fields::DocumentSchema<Outer>("outer", "views", "");
  EXPECT_FALSE(s.contains("description"));
  const ojson& defs = s["$defs"];
  EXPECT_EQ(defs["leaf_view"]["required"], ojson({"name", "where"}));
  // Each branch walked: every key listed, required only when every walk writes it.
  const ojson& branchy = defs["branchy"];
  for (const char* key : {"label", "uuid", "source", "reason"})
    EXPECT_TRUE(branchy["properties"].contains(key)) << key;
  EXPECT_EQ(branchy["required"], ojson({"label"}));
}

TEST(JsonSchema, DefinitionNamesAreSnakeCase) {
  EXPECT_EQ(json_fields::SchemaDefName(typeid(LeafView)), "leaf_view");
  EXPECT_EQ(json_fields::SchemaDefName(typeid(Tree)), "tree");
  EXPECT_EQ(json_fields::SchemaDefName(typeid(json_fields::Path)), "path");
}

// Every document the program writes registers its schema; the run document's says what the field
// lists cannot (core/run_document_schema.cc).
TEST(JsonSchema, TheDocumentsAreRegistered) {
  std::vector<std::string> names;
  for (const RegisteredSchema* s : DocumentSchemas()) names.push_back(s->name);
  for (const char* name : {"run", "validation", "diagnosis", "fleet", "predict", "topo", "cost",
                           "compare", "history", "ingest", "workload_run", "manifest", "nvml"})
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
  for (const RegisteredSchema* s : DocumentSchemas()) {
    if (s->name != "run") continue;
    ojson run = s->make();
    EXPECT_EQ(run["properties"]["schema_version"], ojson({{"const", 1}}));
    EXPECT_EQ(run["$defs"]["check_result"]["properties"]["id"]["pattern"],
              "^[a-z0-9_]+(\\.[a-z0-9_]+)+$");
    EXPECT_TRUE(run["$defs"]["check_result"].contains("allOf"));
  }
}

}  // namespace
}  // namespace json_schema_test
}  // namespace ys
