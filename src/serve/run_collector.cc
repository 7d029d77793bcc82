// The run collector (collectors.h): the latest run's results as metrics.
#include <fmt/format.h>

#include <cmath>
#include <ctime>
#include <filesystem>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/figure_spec.h"
#include "core/run_document_json.h"
#include "core/validation_document.h"
#include "serve/collectors.h"

namespace ys::serve {

namespace {

// 0 pass 1 warn 2 fail 3 skip 4 error: worse is larger, except skip (not applicable) after fail.
int StatusCode(Outcome o) {
  switch (o) {
    case Outcome::kPass:
      return 0;
    case Outcome::kWarn:
      return 1;
    case Outcome::kFail:
      return 2;
    case Outcome::kSkip:
      return 3;
    case Outcome::kError:
      return 4;
  }
  return 4;
}

// A measurement's unit that makes it a ratio, and the divisor to a fraction of 1; nullopt for
// any other unit.
std::optional<double> RatioDivisor(const std::string& unit) {
  if (unit == "fraction" || unit == "ratio" || unit == "share") return 1;
  if (unit == "%" || unit == "percent" || unit == "pct") return 100;
  return std::nullopt;
}

// Bytes per second for a bandwidth unit; nullopt for a unit that is not one.
std::optional<double> BytesPerSecond(const std::string& unit) {
  if (unit == "B/s") return 1;
  if (unit == "KB/s") return 1e3;
  if (unit == "MB/s") return 1e6;
  if (unit == "GB/s") return 1e9;
  if (unit == "TB/s") return 1e12;
  if (unit == "KiB/s") return 1024.0;
  if (unit == "MiB/s") return 1024.0 * 1024;
  if (unit == "GiB/s") return 1024.0 * 1024 * 1024;
  return std::nullopt;
}

// The params that may be labels of a measurement's series: the identity params its benchmark
// declares (core/figure_spec.h). A measured or derived param (STREAM's best rate, a proxy's time
// breakdown, a method string with measured times, a peak) would start a new series on every run,
// so it is never a label. A figure no benchmark declares keeps no param.
Labels IdentityLabels(const Measurement& m) {
  Labels out;
  auto d = FindFigure(m.name);
  if (!d) return out;
  for (const auto& [k, v] : m.params) {
    if (d->measures->IsIdentity(k)) out.emplace_back(SanitizeLabelName(k), v);
  }
  return out;
}

// A serving phase metric's figures as series: the measured and the reference value, each in the
// base unit its name says (a latency in seconds, the document's milliseconds / 1000).
struct ServingPhaseFigure {
  const char* key;     // ValidationPhaseMetric::key
  const char* suffix;  // the series name after yardstick_serving_phase_{measured,reference}_
  const char* what;    // for HELP
  double scale;        // document unit -> the series' unit
};
constexpr ServingPhaseFigure kServingPhaseFigures[] = {
    {"output_tokens_per_s_per_gpu", "output_tokens_per_second_per_gpu",
     "output tokens/s per GPU (over the reference's GPU denominator)", 1},
    {"ttft_ms", "ttft_seconds", "time to first token, seconds, at the statistic in `stat`", 1e-3},
    {"tpot_ms", "tpot_seconds", "time per output token, seconds, at the statistic in `stat`", 1e-3},
};

void RenderServingPhaseMetric(const ValidationPhaseMetric& m, const Labels& phase, Exposition& e) {
  Labels l = phase;
  l.emplace_back("metric", m.key.empty() ? m.name : m.key);
  if (m.score) {
    e.Add("yardstick_serving_phase_score_ratio", MetricType::kGauge,
          "Score of a serving phase's metric in the latest validation, as a fraction of the "
          "reference: measured / reference for throughput, reference / measured for a latency "
          "(1 = the reference; above 1 when better, so not bounded by 1)",
          l, *m.score);
  }
  for (const ServingPhaseFigure& f : kServingPhaseFigures) {
    if (m.key != f.key) continue;
    Labels fl = phase;
    if (!m.stat.empty()) fl.emplace_back("stat", m.stat);
    for (const auto& [side, value] :
         {std::pair{"measured", m.measured}, {"reference", m.reference}}) {
      if (!value) continue;
      e.Add(fmt::format("yardstick_serving_phase_{}_{}", side, f.suffix), MetricType::kGauge,
            fmt::format("The {} {} of a serving phase in the latest validation", side, f.what), fl,
            *value * f.scale);
    }
  }
}

// One serving phase: its metrics, and its state as one series per state (1 for its own).
void RenderServingPhase(const ValidationPhase& p, const std::string& suite, Exposition& e) {
  const Labels phase = {{"suite", suite}, {"phase", p.id}};
  for (const ValidationPhaseMetric& m : p.metrics) RenderServingPhaseMetric(m, phase, e);
  AddStates(e, "yardstick_serving_phase_state",
            "1 for the state of a serving phase in the latest validation (pass, fail or "
            "inconclusive), 0 for the others",
            phase, {"pass", "fail", "inconclusive"}, p.outcome);
}

class RunCollector : public Collector {
 public:
  RunCollector(std::string run_path, std::string validation)
      : run_path_(std::move(run_path)), validation_(std::move(validation)) {}
  std::string_view name() const override { return "run"; }

  Result<Exposition> Collect() override {
    Exposition e;
    if (!run_path_.empty()) {
      auto j = ReadJsonFile(run_path_);
      if (!j.ok()) return j.status();
      auto doc = RunDocumentFromJson(*j);
      if (!doc.ok()) return Status::Invalid(run_path_ + ": " + doc.status().message());
      RenderRun(*doc, e);
    }

    std::string validation = validation_;
    if (validation.empty() && !run_path_.empty()) {
      auto beside = std::filesystem::path(run_path_).parent_path() / "validation.json";
      std::error_code ec;
      if (std::filesystem::exists(beside, ec)) validation = beside.string();
    }
    if (!validation.empty()) YS_RETURN_IF_ERROR(RenderValidation(validation, e));
    return e;
  }

 private:
  static void RenderChecks(const std::vector<CheckResult>& checks, const std::string& node,
                           Exposition& e) {
    for (const auto& c : checks) {
      const Labels l = {{"id", c.unit_id}, {kHostLabel, node}};
      e.Add("yardstick_check_status", MetricType::kGauge,
            "Outcome of a check in the latest run: 0 pass, 1 warn, 2 fail, 3 skip, 4 error", l,
            StatusCode(c.outcome));
      AddStates(e, "yardstick_check_state",
                "1 for the outcome of a check in the latest run (pass, warn, fail, skip or "
                "error), 0 for the others",
                l, {"pass", "warn", "fail", "skip", "error"}, OutcomeName(c.outcome));
    }
  }

  static void RenderMeasurement(const Measurement& m, const std::string& node, Exposition& e) {
    Labels params = IdentityLabels(m);
    // A collective's bus bandwidth in a bandwidth unit: the bus-bandwidth family.
    auto scale = BytesPerSecond(m.unit);
    auto decl = FindFigure(m.name);
    if (decl && decl->figure != nullptr && decl->measures->kind == FigureKind::kCollective &&
        decl->figure->quantity == "busbw" && scale) {
      std::string collective(decl->measures->op);
      Labels l = {{"collective", collective}, {kHostLabel, node}};
      for (const auto& p : params) {
        if (p.first != "collective" && p.first != kHostLabel) l.push_back(p);
      }
      e.Add("yardstick_busbw_bytes_per_second", MetricType::kGauge,
            "Bus bandwidth of a collective in the latest run, bytes/s (nccl-tests' busbw)", l,
            m.value * *scale);
      return;
    }
    Labels l = {{"name", m.name}, {kHostLabel, node}};
    for (const auto& p : params) {
      if (p.first != "name" && p.first != "unit" && p.first != kHostLabel) l.push_back(p);
    }
    // A measurement that is itself a ratio (a share, a percentage): a fraction of its own family.
    if (auto divisor = RatioDivisor(m.unit)) {
      e.Add("yardstick_measurement_ratio", MetricType::kGauge,
            "A measurement of the latest run that is a ratio (a share of CPU time, a utilisation), "
            "as a fraction (0..1) of the whole it is measured against",
            l, m.value / *divisor);
      return;
    }
    auto pct = m.params.find("pct_of_peak");
    if (pct != m.params.end()) {
      char* end = nullptr;
      double v = std::strtod(pct->second.c_str(), &end);
      if (end != pct->second.c_str() && *end == '\0' && std::isfinite(v)) {
        e.Add("yardstick_measurement_peak_ratio", MetricType::kGauge,
              "A measurement of the latest run as a fraction (0..1) of the hardware's peak", l,
              v / 100);
      }
    }
    l.insert(l.begin() + 1, {"unit", m.unit});
    e.Add("yardstick_measurement", MetricType::kGauge,
          "A measurement of the latest run, in the unit of its `unit` label", l, m.value);
  }

  static void RenderBenchmarks(const std::vector<BenchmarkResult>& benchmarks,
                               const std::string& node, Exposition& e) {
    for (const auto& b : benchmarks) {
      for (const auto& m : b.measurements) RenderMeasurement(m, node, e);
    }
  }

  void RenderRun(const RunDocument& doc, Exposition& e) const {
    std::string host = doc.host.hostname;
    auto t = ParseUtcTimestamp(doc.started_at);
    if (t.ok()) {
      e.Add("yardstick_run_timestamp_seconds", MetricType::kGauge,
            "Unix time the latest run started", {{"command", doc.command}, {kHostLabel, host}}, *t);
    }
    e.Add("yardstick_run_incomplete", MetricType::kGauge,
          "1 when the latest run did not finish (a rank lost, a watchdog)",
          {{"command", doc.command}, {kHostLabel, host}}, doc.incomplete ? 1 : 0);
    RenderChecks(doc.checks, host, e);
    for (const auto& m : doc.measurements) RenderMeasurement(m, host, e);
    RenderBenchmarks(doc.benchmarks, host, e);
    for (const auto& n : doc.nodes) {
      RenderChecks(n.checks, n.hostname, e);
      RenderBenchmarks(n.benchmarks, n.hostname, e);
    }
    for (const auto& g : doc.diagnosis) {
      for (const auto& [bound, v] : {std::pair{"low", g.recovery.low}, {"high", g.recovery.high}}) {
        e.Add("yardstick_diagnosis_recovery_ratio", MetricType::kGauge,
              "Expected recovery if the diagnosed cause is fixed, as a fraction (0..1) of step "
              "time or throughput (bound low or high)",
              {{"rule", g.rule}, {"entity", g.entity}, {"bound", bound}, {kHostLabel, host}}, v);
      }
    }
  }

  static Status RenderValidation(const std::string& path, Exposition& e) {
    auto j = ReadJsonFile(path);
    if (!j.ok()) return j.status();
    auto v = ValidationDocumentFromJson(*j, path);
    if (!v.ok()) return v.status();
    if (!v->has_suite) {
      return Status::Invalid(path +
                             ": expected a validation document (an object with \"suite\" "
                             "and \"workloads\" as `yardstick validate` writes)");
    }
    std::string name = v->chip;
    if (!v->recipe_release.empty()) name += "/" + v->recipe_release;
    if (v->threshold) {
      e.Add("yardstick_score_threshold_ratio", MetricType::kGauge,
            "The suite's pass threshold for a workload score, as a fraction of the reference's "
            "speed (1 = the reference; a suite may set it above 1, so not bounded by 1)",
            {{"suite", name}}, *v->threshold);
    }
    for (const ValidationWorkload& w : v->workloads) {
      const Labels l = {{"suite", name}, {"workload", w.id}};
      if (w.score) {
        e.Add("yardstick_score_ratio", MetricType::kGauge,
              "Score of a workload in the latest validation, as a fraction of the reference's "
              "speed (reference / measured step time: 1 = the reference; above 1 when faster, so "
              "not bounded by 1)",
              l, *w.score);
      }
      if (!w.outcome.empty()) {
        e.Add("yardstick_workload_pass", MetricType::kGauge,
              "1 when the workload passed the latest validation, else 0", l,
              w.outcome == "pass" ? 1 : 0);
        AddStates(e, "yardstick_workload_state",
                  "1 for the outcome of a workload in the latest validation (pass, fail or "
                  "inconclusive), 0 for the others",
                  l, {"pass", "fail", "inconclusive"}, w.outcome);
      }
    }
    for (const ValidationPhase& p : v->phases) RenderServingPhase(p, name, e);
    return Status::Ok();
  }

  std::string run_path_;
  std::string validation_;
};

}  // namespace

Result<double> ParseUtcTimestamp(const std::string& text) {
  std::tm tm{};
  int consumed = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &consumed) != 6) {
    return Status::Invalid("\"" + text +
                           "\": expected an ISO 8601 UTC time like "
                           "2026-11-20T09:14:02Z");
  }
  double fraction = 0;
  std::string rest = text.substr(static_cast<size_t>(consumed));
  if (!rest.empty() && rest[0] == '.') {
    size_t n = 1;
    while (n < rest.size() && std::isdigit(static_cast<unsigned char>(rest[n]))) ++n;
    fraction = std::stod("0" + rest.substr(0, n));
    rest = rest.substr(n);
  }
  if (rest != "Z" && rest != "+00:00") {
    return Status::Invalid("\"" + text + "\": expected a UTC time ending in Z");
  }
  if (tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 ||
      tm.tm_min > 59 || tm.tm_sec > 60) {
    return Status::Invalid("\"" + text + "\": a field is out of range");
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<double>(timegm(&tm)) + fraction;
}

std::unique_ptr<Collector> MakeRunCollector(std::string run_path, std::string validation) {
  return std::make_unique<RunCollector>(std::move(run_path), std::move(validation));
}

}  // namespace ys::serve
