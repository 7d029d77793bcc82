// The Prometheus text exposition format, version 0.0.4: what `yardstick exporter` serves on
// /metrics (https://prometheus.io/docs/instrumenting/exposition_formats/).
//
// An Exposition collects samples by family. Each family is written once, with its # HELP and
// # TYPE lines, families in name order and samples in the order they were added, so that the text
// is stable (golden tests) and a scrape never sees a family twice. A sample whose labels repeat
// an earlier sample of its family exactly is dropped (Prometheus rejects a duplicated series).
// Label values and HELP text are escaped as the format requires (backslash, double quote in
// label values, newline).
//
// Thread safety: none inside; an Exposition is built by one thread and then shared read-only.
#ifndef YARDSTICK_SERVE_EXPOSITION_H_
#define YARDSTICK_SERVE_EXPOSITION_H_

#include <initializer_list>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ys::serve {

enum class MetricType { kGauge, kCounter };

using Labels = std::vector<std::pair<std::string, std::string>>;

struct Sample {
  Labels labels;
  double value = 0;
};

struct MetricFamily {
  std::string name;
  std::string help;
  MetricType type = MetricType::kGauge;
  std::vector<Sample> samples;
};

class Exposition {
 public:
  // Adds a sample to family `name`, created with `type` and `help` on first use (later type and
  // help are ignored). `name` must satisfy IsValidMetricName and every label name
  // IsValidLabelName: they are constants in our code, so a bad one is a programming error, and
  // the sample is dropped rather than written as text Prometheus would refuse.
  void Add(std::string_view name, MetricType type, std::string_view help, Labels labels,
           double value);
  // Every sample of `other`, as if added here one by one.
  void Merge(const Exposition& other);

  const MetricFamily* Find(std::string_view name) const;
  const std::map<std::string, MetricFamily, std::less<>>& families() const { return families_; }
  bool empty() const { return families_.empty(); }

  // The exposition text: for each family "# HELP", "# TYPE", then its samples.
  std::string Text() const;

 private:
  std::map<std::string, MetricFamily, std::less<>> families_;
  std::map<std::string, std::set<std::string>, std::less<>> seen_;  // family -> label keys
};

// An enumerated state as one series per state: `family`{labels..., state=S} for each of
// `states`, 1 for `current` and 0 for the others, so that an alert or a dashboard selects a state
// by name (`{state="active"} == 1`) instead of comparing numbers. Nothing when `current` is none of
// `states` (every such family then has exactly one 1 per label set).
void AddStates(Exposition& e, std::string_view family, std::string_view help, const Labels& labels,
               std::initializer_list<const char*> states, std::string_view current);

// [a-zA-Z_:][a-zA-Z0-9_:]*
bool IsValidMetricName(std::string_view name);
// [a-zA-Z_][a-zA-Z0-9_]*, not starting with "__" (reserved for Prometheus).
bool IsValidLabelName(std::string_view name);
// A label name made from free text (a measurement parameter): invalid characters become '_', a
// leading digit gets a '_' before it. "in-place" -> "in_place", "2d" -> "_2d".
std::string SanitizeLabelName(std::string_view text);

// Label value: \ -> \\, " -> \", newline -> \n.
std::string EscapeLabelValue(std::string_view value);
// HELP text: \ -> \\, newline -> \n.
std::string EscapeHelp(std::string_view help);
// A sample value: "NaN", "+Inf", "-Inf", integers without exponent up to 2^53, otherwise the
// shortest text that reads back to the same double.
std::string FormatValue(double value);

}  // namespace ys::serve

#endif  // YARDSTICK_SERVE_EXPOSITION_H_
