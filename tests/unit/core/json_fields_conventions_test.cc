// The Style flags and the adaptor hooks of core/json_fields.h that older documents need: the
// workload run's non-finite strings and quoted paths, nvml.json's ", got <kind>" wording and its
// {"value"}/{"error"} fields, the archive manifest's ": "-joined, labelled paths and its unknown
// keys (gpu_snapshot_json_test.cc, inference_json_test.cc and manifest_test.cc test the documents
// themselves).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/json_fields.h"

namespace ys {
namespace json_fields_conventions_test {
namespace {

using nlohmann::json;

constexpr json_fields::Style kRunLike{.name_found_type = false,
                                      .non_finite_as_string = true,
                                      .quote_path = true,
                                      .name_scalar_arrays = true,
                                      .enum_expects_string = true};
constexpr json_fields::Style kGotLike{.reject_unknown_keys = true, .say_got = true};

enum class Mode { kFast, kSlow };
auto JsonNames(Mode) {
  return std::array{std::pair{Mode::kFast, "fast"}, std::pair{Mode::kSlow, "slow"}};
}

struct Sample {
  double value = 0;
  std::optional<double> extra;  // optional: left out when unset
  std::vector<std::string> notes;
  std::vector<int64_t> steps;
  Mode mode = Mode::kFast;
};
template <typename V>
void Fields(V& v, Sample& s) {
  v("value", s.value);
  v.optional("extra", s.extra);
  v("notes", s.notes);
  v("steps", s.steps);
  v("mode", s.mode);
}

// A value with a shape of its own: {"v": X} or {"why": "..."}; absent, "unknown".
struct Maybe {
  std::optional<uint32_t> v;
  std::string why;
};
template <typename W>
typename W::ojson JsonWrite(W*, const Maybe& m, json_fields::Style s) {
  typename W::ojson j = W::ojson::object();
  if (m.v) {
    j["v"] = W::Value(*m.v, s);
  } else {
    j["why"] = m.why;
  }
  return j;
}
template <typename R>
Status JsonRead(R*, const typename R::json& j, const json_fields::Path& at, json_fields::Style s,
                Maybe& out) {
  if (!j.is_object()) return json_fields::Expected(at, "{\"v\": X} or {\"why\": ...}", &j, s);
  if (auto it = j.find("v"); it != j.end()) {
    uint32_t x = 0;
    YS_RETURN_IF_ERROR(R::Read(*it, json_fields::Path{&at, "v"}, s, x));
    out.v = x;
    return Status::Ok();
  }
  return R::Read(j.value("why", json()), json_fields::Path{&at, "why"}, s, out.why);
}
void JsonAbsent(Maybe& m) { m.why = "unknown"; }

struct Device {
  int index = 0;
  bool on = false;
  Maybe temperature;
};
template <typename V>
void Fields(V& v, Device& d) {
  v("index", d.index);
  v.defaulted("on", d.on);
  v.defaulted("temperature", d.temperature);
  v.ignored("telemetry");
}

TEST(JsonFieldsConventionsTest, NonFiniteNumbersAsStringsRoundTrip) {
  Sample s{.value = std::numeric_limits<double>::quiet_NaN(),
           .extra = -std::numeric_limits<double>::infinity()};
  auto j = json_fields::Write(s, kRunLike);
  EXPECT_EQ(j.dump(), R"({"value":"nan","extra":"-inf","notes":[],"steps":[],"mode":"fast"})");
  auto back = json_fields::Parse<Sample>(json::parse(j.dump()), "", kRunLike);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_TRUE(std::isnan(back->value));
  ASSERT_TRUE(back->extra.has_value());
  EXPECT_EQ(*back->extra, -std::numeric_limits<double>::infinity());
  // Without the flag an optional non-finite number is left out, as before.
  EXPECT_FALSE(json_fields::Write(s).contains("extra"));
}

TEST(JsonFieldsConventionsTest, RunLikeMessagesQuoteThePath) {
  json good = json_fields::Write(Sample{}, kRunLike);
  struct Case {
    const char* key;
    json value;  // null with erase: the key is removed
    bool erase;
    std::string want;
  } cases[] = {
      {"value", "slow", false, R"('value': expected a number (or "nan", "inf", "-inf"))"},
      {"value", nullptr, true, "'value': expected present"},
      {"notes", json::array({"a", 1}), false, "'notes': expected an array of strings"},
      {"steps", "x", false, "'steps': expected an array of integers"},
      {"mode", 3, false, "'mode': expected a string"},
      {"mode", "medium", false, "'mode': expected fast or slow"},
  };
  for (const Case& c : cases) {
    json bad = good;
    if (c.erase) {
      bad.erase(c.key);
    } else {
      bad[c.key] = c.value;
    }
    auto r = json_fields::Parse<Sample>(bad, "", kRunLike);
    ASSERT_FALSE(r.ok()) << c.want;
    EXPECT_EQ(r.status().message(), c.want);
  }
}

TEST(JsonFieldsConventionsTest, GotWordingNamesKindsAndIntegerRanges) {
  json good = json::parse(R"({"index": 1, "on": true, "temperature": {"v": 40}})");
  struct Case {
    json::json_pointer at;
    json value;
    std::string want;
  } cases[] = {
      {json::json_pointer("/on"), "yes", "on: expected a boolean, got a string"},
      {json::json_pointer("/index"), 1.5,
       "index: expected an integer from -2147483648 to 2147483647, got a number with a fraction "
       "or exponent"},
      {json::json_pointer("/temperature/v"), -1,
       "temperature.v: expected an integer from 0 to 4294967295, got -1"},
      {json::json_pointer("/temperature"), json::array(),
       R"(temperature: expected {"v": X} or {"why": ...}, got an array)"},
      {json::json_pointer("/fan"), 1, "fan: unknown key"},
  };
  for (const Case& c : cases) {
    json bad = good;
    bad[c.at] = c.value;
    auto r = json_fields::Parse<Device>(bad, "", kGotLike);
    ASSERT_FALSE(r.ok()) << c.want;
    EXPECT_EQ(r.status().message(), c.want);
  }
}

TEST(JsonFieldsConventionsTest, AdaptorsWriteReadAndSayWhatAbsenceMeans) {
  Device d{.index = 2, .on = true, .temperature = {.v = 61}};
  EXPECT_EQ(json_fields::Write(d, kGotLike).dump(),
            R"({"index":2,"on":true,"temperature":{"v":61}})");
  d.temperature = {.why = "no sensor"};
  EXPECT_EQ(json_fields::Write(d, kGotLike).dump(),
            R"({"index":2,"on":true,"temperature":{"why":"no sensor"}})");

  // An ignored key is accepted by a strict reader; an absent adapted value takes JsonAbsent's.
  auto r = json_fields::Parse<Device>(json::parse(R"({"index": 4, "telemetry": {"x": 1}})"), "",
                                      kGotLike);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->index, 4);
  EXPECT_FALSE(r->temperature.v.has_value());
  EXPECT_EQ(r->temperature.why, "unknown");
}

TEST(JsonFieldsConventionsTest, AnEmptyRootStartsPathsAtItsKeys) {
  json bad = json::parse(R"({"index": 1, "temperature": {"v": "hot"}})");
  auto unnamed = json_fields::Parse<Device>(bad, "", kGotLike);
  auto named = json_fields::Parse<Device>(bad, "gpu", kGotLike);
  ASSERT_FALSE(unnamed.ok());
  ASSERT_FALSE(named.ok());
  EXPECT_EQ(unnamed.status().message().rfind("temperature.v: ", 0), 0u)
      << unnamed.status().message();
  EXPECT_EQ(named.status().message().rfind("gpu.temperature.v: ", 0), 0u)
      << named.status().message();
}

// The archive manifest's conventions: "doc: items[0] ("a"): count: ...", an unknown key named
// first with the keys expected, an absent key read as null, a validator's own message.
constexpr json_fields::Style kManifestLike{.name_found_type = false,
                                           .reject_unknown_keys = true,
                                           .key_separator = ": ",
                                           .unknown_keys_first = true,
                                           .unknown_key_lists_expected = true,
                                           .absent_reads_as_null = true};

struct Item {
  std::string name;
  uint32_t count = 0;
};
template <typename V>
void Fields(V& v, Item& i) {
  v("name", i.name);
  v.label(" (\"" + i.name + "\")");
  v.check("name", i.name.empty() ? Status::Invalid("empty name") : Status::Ok());
  v("count", i.count);
}
struct Items {
  std::vector<Item> items;
};
template <typename V>
void Fields(V& v, Items& d) {
  v("items", d.items);
}

TEST(JsonFieldsConventionsTest, ManifestLikePathsLabelsAndUnknownKeys) {
  auto message = [](const char* text, json_fields::Style style) {
    auto r = json_fields::Parse<Items>(json::parse(text), "doc", style);
    return r.ok() ? std::string("ok") : r.status().message();
  };
  const char* bad_count = R"({"items": [{"name": "a", "count": -1}]})";
  const char* no_count = R"({"items": [{"name": "a"}]})";
  const char* empty_name = R"({"items": [{"name": "", "count": 1}]})";
  const char* unknown_too = R"({"items": [{"name": "a", "count": -1, "x": 1}]})";
  EXPECT_EQ(message(bad_count, kManifestLike),
            R"(doc: items[0] ("a"): count: expected an integer >= 0)");
  EXPECT_EQ(message(no_count, kManifestLike),
            R"(doc: items[0] ("a"): count: expected an integer >= 0)");
  EXPECT_EQ(message(empty_name, kManifestLike), R"(doc: items[0] (""): name: empty name)");
  EXPECT_EQ(message(unknown_too, kManifestLike),
            R"(doc: items[0]: unknown key "x"; expected name, count)");
  EXPECT_EQ(message(R"({"items": [], "y": 1})", kManifestLike),
            R"(doc: unknown key "y"; expected items)");
  EXPECT_EQ(message(R"({"items": [{"name": 1, "count": 1}]})", kManifestLike),
            "doc: items[0]: name: expected a string");

  // Without the flags a label still follows the element, and nothing else changes: ".", "missing",
  // the field's problem before an unknown key, which is named by its path.
  constexpr json_fields::Style kPlain{.reject_unknown_keys = true};
  EXPECT_EQ(message(no_count, kPlain), R"(doc.items[0] ("a").count: missing)");
  EXPECT_EQ(message(unknown_too, kPlain)
                .rfind(R"(doc.items[0] ("a").count: expected an integer >= 0)", 0),
            0u);
  EXPECT_EQ(message(R"({"items": [{"name": "a", "count": 1, "x": 1}]})", kPlain),
            "doc.items[0].x: unknown key");

  // The writer ignores labels and checks.
  Items d{{{"a", 2}}};
  EXPECT_EQ(json_fields::Write(d, kManifestLike).dump(), R"({"items":[{"name":"a","count":2}]})");
}

}  // namespace
}  // namespace json_fields_conventions_test
}  // namespace ys
