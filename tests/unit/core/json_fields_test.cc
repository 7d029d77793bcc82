#include "core/json_fields.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <limits>
#include <nlohmann/json.hpp>

namespace ys {
namespace json_fields_test {
namespace {

using nlohmann::json;

enum class Colour { kRed, kGreen, kBlue };
auto JsonNames(Colour) {
  return std::array{std::pair{Colour::kRed, "red"}, std::pair{Colour::kGreen, "green"},
                    std::pair{Colour::kBlue, "blue"}};
}

struct Part {
  std::string name;
  int64_t count = 0;
  bool operator==(const Part&) const = default;
};

template <typename V>
void Fields(V& v, Part& p) {
  v("name", p.name);
  v("count", p.count);
}

struct Thing {
  std::string id;
  double value = 0;
  int small = 0;
  bool on = false;
  Colour colour = Colour::kRed;
  std::optional<double> limit;  // written as null when unset
  std::optional<double> spare;  // omitted when unset
  std::string note;             // omitted when empty
  std::vector<std::string> tags;
  std::vector<Part> parts;
  std::vector<std::pair<std::string, std::string>> evidence;
  std::map<std::string, double> rates;
  std::shared_ptr<const Part> extra;
  bool extra_list_ran = false;
  std::vector<int> extra_list;
  double low = 0, high = 1;
  bool operator==(const Thing& o) const {
    return id == o.id && value == o.value && small == o.small && on == o.on && colour == o.colour &&
           limit == o.limit && spare == o.spare && note == o.note && tags == o.tags &&
           parts == o.parts && evidence == o.evidence && rates == o.rates &&
           (extra ? o.extra && *extra == *o.extra : !o.extra) &&
           extra_list_ran == o.extra_list_ran && extra_list == o.extra_list && low == o.low &&
           high == o.high;
  }
};

template <typename V>
void Fields(V& v, Thing& t) {
  v("id", t.id);
  v("value", t.value);
  v("small", t.small);
  v("on", t.on);
  v("colour", t.colour);
  v("limit", t.limit);
  v.optional("spare", t.spare);
  v.optional("note", t.note);
  v.computed("tag_count", [&] { return t.tags.size(); });
  v.defaulted("tags", t.tags);
  v("parts", t.parts);
  v("evidence", t.evidence);
  v.defaulted("rates", t.rates);
  v.optional("extra", t.extra);
  v.optional("extra_list", t.extra_list, t.extra_list_ran);
  v("low", t.low);
  v("high", t.high);
  v.check("", t.low <= t.high, "low <= high");
}

Thing Full() {
  Thing t;
  t.id = "a";
  t.value = 2.5;
  t.small = -3;
  t.on = true;
  t.colour = Colour::kBlue;
  t.limit = 7;
  t.spare = 0.25;
  t.note = "n";
  t.tags = {"x", "y"};
  t.parts = {{"p", 1}, {"q", 1LL << 40}};
  t.evidence = {{"z", "1"}, {"a", "2"}};  // order kept, not sorted
  t.rates = {{"r", 0.5}};
  t.extra = std::make_shared<const Part>(Part{"e", 2});
  t.extra_list_ran = true;  // present although empty
  return t;
}

std::string Error(const json& j) {
  auto r = json_fields::Parse<Thing>(j, "doc");
  return r.ok() ? "(ok)" : r.status().message();
}

TEST(JsonFieldsTest, WritesKeysInListOrder) {
  EXPECT_EQ(json_fields::Write(Full()).dump(),
            R"({"id":"a","value":2.5,"small":-3,"on":true,"colour":"blue","limit":7.0,)"
            R"("spare":0.25,"note":"n","tag_count":2,"tags":["x","y"],)"
            R"("parts":[{"name":"p","count":1},{"name":"q","count":1099511627776}],)"
            R"("evidence":{"z":"1","a":"2"},"rates":{"r":0.5},"extra":{"name":"e","count":2},)"
            R"("extra_list":[],"low":0.0,"high":1.0})");
}

// What is read back from nlohmann::json: its objects keep their keys sorted.
Thing SortedEvidence(Thing t) {
  std::sort(t.evidence.begin(), t.evidence.end());
  return t;
}

TEST(JsonFieldsTest, RoundTrips) {
  Thing t = SortedEvidence(Full());
  auto back = json_fields::Parse<Thing>(json::parse(json_fields::Write(Full()).dump()), "doc");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_TRUE(*back == t) << json_fields::Write(*back).dump();
}

TEST(JsonFieldsTest, OptionalOmittedAndNullAreDifferent) {
  Thing t = SortedEvidence(Full());
  t.limit.reset();
  t.spare.reset();
  t.note.clear();
  t.extra.reset();
  t.extra_list_ran = false;
  auto j = json::parse(json_fields::Write(t).dump());
  EXPECT_TRUE(j.contains("limit"));
  EXPECT_TRUE(j["limit"].is_null());
  for (const char* key : {"spare", "note", "extra", "extra_list"}) EXPECT_FALSE(j.contains(key));
  auto back = json_fields::Parse<Thing>(j, "doc");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_TRUE(*back == t) << json_fields::Write(*back).dump();
  // A key written as null must be there; one that is omitted when empty may be absent.
  j.erase("limit");
  EXPECT_EQ(Error(j), "doc.limit: missing");
  j = json::parse(json_fields::Write(Full()).dump());
  j["spare"] = nullptr;
  EXPECT_TRUE(json_fields::Parse<Thing>(j, "doc").ok());
  j["note"] = nullptr;
  EXPECT_EQ(Error(j), "doc.note: expected a string, found null");
}

TEST(JsonFieldsTest, DefaultedKeysMayBeAbsentComputedOnesAreNotRead) {
  auto j = json::parse(json_fields::Write(Full()).dump());
  j.erase("tags");
  j.erase("rates");
  j["tag_count"] = "not read";
  auto back = json_fields::Parse<Thing>(j, "doc");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_TRUE(back->tags.empty());
  EXPECT_TRUE(back->rates.empty());
}

TEST(JsonFieldsTest, MissingKeyNamesThePath) {
  auto j = json::parse(json_fields::Write(Full()).dump());
  j["parts"][1].erase("count");
  EXPECT_EQ(Error(j), "doc.parts[1].count: missing");
  j.erase("id");
  EXPECT_EQ(Error(j), "doc.id: missing");  // the first problem in list order
}

TEST(JsonFieldsTest, WrongTypeNamesThePathAndWhatWasFound) {
  const json good = json::parse(json_fields::Write(Full()).dump());
  struct Case {
    const char* key;
    json value;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {"id", 3, "doc.id: expected a string, found a number"},
           {"value", "2", "doc.value: expected a number, found a string"},
           {"small", 1.5, "doc.small: expected an integer, found a number"},
           {"small", 1LL << 40, "doc.small: expected an integer, found a number"},
           {"on", 1, "doc.on: expected true or false, found a number"},
           {"colour", "pink", "doc.colour: expected red, green or blue"},
           {"colour", 2, "doc.colour: expected red, green or blue, found a number"},
           {"tags", json::array({"x", 1}), "doc.tags[1]: expected a string, found a number"},
           {"parts", json::object(), "doc.parts: expected an array, found an object"},
           {"parts", json::array({1}), "doc.parts[0]: expected an object, found a number"},
           {"evidence", json{{"k", 1}}, "doc.evidence.k: expected a string, found a number"},
           {"rates", json{{"r", "x"}}, "doc.rates.r: expected a number, found a string"},
           {"extra", nullptr, "doc.extra: expected an object, found null"},
           {"low", 2, "doc: expected low <= high"},
       }) {
    json j = good;
    j[c.key] = c.value;
    EXPECT_EQ(Error(j), c.message) << c.key;
  }
  EXPECT_EQ(Error(json::array()), "doc: expected an object, found an array");
}

TEST(JsonFieldsTest, StyleCanWriteNonFiniteAsZeroAndLeaveTheFoundTypeOut) {
  Thing t = Full();
  t.value = std::numeric_limits<double>::quiet_NaN();
  t.limit = std::numeric_limits<double>::infinity();
  EXPECT_EQ(json_fields::Write(t)["value"].dump(), "null");  // nlohmann's way
  json_fields::Style zero{.non_finite_as_zero = true, .name_found_type = false};
  auto j = json_fields::Write(t, zero);
  EXPECT_EQ(j["value"], 0.0);
  EXPECT_EQ(j["limit"], 0.0);
  json bad = json::parse(j.dump());
  bad["id"] = 3;
  EXPECT_EQ(json_fields::Parse<Thing>(bad, "doc", zero).status().message(),
            "doc.id: expected a string");
}

struct Sample {
  std::string name;
  int64_t count = 0;  // a count kept signed
  std::optional<double> rate;
  std::map<std::string, uint64_t> counters;
};

constexpr json_fields::Style JsonStyle(const Sample*) { return {.reject_unknown_keys = true}; }

template <typename V>
void Fields(V& v, Sample& s) {
  v("name", s.name);
  v.optional("count", json_fields::NonNegative{s.count});
  v.optional("rate", s.rate);
  v.optional("counters", s.counters);
  v.computed("version", [] { return 1; });
}

TEST(JsonFieldsTest, OptionalLeavesOutZeroCountsAndNonFiniteNumbers) {
  Sample s{.name = "a", .count = 0, .rate = std::numeric_limits<double>::quiet_NaN()};
  EXPECT_EQ(json_fields::Write(s).dump(), R"({"name":"a","version":1})");
  s.count = 3;
  s.rate = 2.5;
  s.counters = {{"xid", 1}};
  auto j = json_fields::Write(s);
  EXPECT_EQ(j.dump(), R"({"name":"a","count":3,"rate":2.5,"counters":{"xid":1},"version":1})");
  auto back = json_fields::Parse<Sample>(json::parse(j.dump()), "s");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->count, 3);
  EXPECT_EQ(back->counters, s.counters);
}

TEST(JsonFieldsTest, CountsAreNonNegativeIntegersAndUnknownKeysAreRefused) {
  auto message = [](const std::string& text) {
    auto r = json_fields::Parse<Sample>(json::parse(text), "s");
    return r.ok() ? "(ok)" : r.status().message();
  };
  EXPECT_EQ(message(R"({"name": "a", "count": -1})"),
            "s.count: expected an integer >= 0, found a number");
  EXPECT_EQ(message(R"({"name": "a", "count": 1.5})"),
            "s.count: expected an integer >= 0, found a number");
  EXPECT_EQ(message(R"({"name": "a", "counters": {"xid": -2}})"),
            "s.counters.xid: expected an integer >= 0, found a number");
  EXPECT_EQ(message(R"({"name": "a", "rate_": 1})"), "s.rate_: unknown key");
  EXPECT_EQ(message(R"({"name": "a", "version": 1})"), "(ok)");  // written, so known
  // Without the style, an unknown key is ignored.
  EXPECT_TRUE(
      json_fields::Parse<Part>(json::parse(R"({"name": "p", "count": 1, "x": 0})"), "p").ok());
}

}  // namespace
}  // namespace json_fields_test
}  // namespace ys
