// JSON of the burn-in report: one field list per struct (Fields below), walked by a writer and
// by a strict reader, so the two directions cannot drift apart.
#include "core/burnin_json.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <type_traits>

#include "core/report_json.h"

namespace ys {

namespace {

using ojson = nlohmann::ordered_json;

template <typename V>
void Fields(V& v, BurninFault& f) {
  v("at_s", f.at_s);
  v("at", f.at);
  v("node", f.node);
  v("entity", f.entity);
  v("kind", f.kind);
  v("severity", f.severity);
  v("message", f.message);
  v("evidence", f.evidence);
  v("cleared_at_s", f.cleared_at_s);
}

template <typename V>
void Fields(V& v, BurninWindow& w) {
  v("start_s", w.start_s);
  v("perf", w.perf);
  v("temp_min_c", w.temp_min_c);
  v("temp_max_c", w.temp_max_c);
  v("faults", w.faults);
}

template <typename V>
void Fields(V& v, BurninEntity& e) {
  v("node", e.node);
  v("entity", e.entity);
  v("kind", e.kind);
  v("metric", e.metric);
  v("unit", e.unit);
  v("cycles", e.cycles);
  v("iterations", e.iterations);
  v("miscompares", e.miscompares);
  v("perf_baseline", e.perf_baseline);
  v("perf_median", e.perf_median);
  v("perf_min_window", e.perf_min_window);
  v("perf_last_window", e.perf_last_window);
  v("temp_steady_c", e.temp_steady_c);
  v("temp_min_c", e.temp_min_c);
  v("temp_max_c", e.temp_max_c);
  v("temp_max_dev_c", e.temp_max_dev_c);
  v("throttle_events", e.throttle_events);
  v("faults", e.faults);
  v("observed_s", e.observed_s);
  v("unavailable_s", e.unavailable_s);
  v("availability", e.availability);
  v("stable", e.stable);
  v("note", e.note);
  v("windows", e.windows);
}

template <typename V>
void Fields(V& v, BurninInterruption& i) {
  v("at_s", i.at_s);
  v("stopped_at", i.stopped_at);
  v("resumed_at", i.resumed_at);
  v("gap_s", i.gap_s);
  v("how", i.how);
  v("redone_s", i.redone_s);
}

template <typename V>
void Fields(V& v, BurninNode& n) {
  v("node", n.node);
  v("entities", n.entities);
  v("faults", n.faults);
  v("availability", n.availability);
}

template <typename V>
void Fields(V& v, BurninReport& r) {
  v("profile", r.profile);
  v("duration_s", r.duration_s);
  v("elapsed_s", r.elapsed_s);
  v("complete", r.complete);
  v("cycle_s", r.cycle_s);
  v("window_s", r.window_s);
  v("warmup_s", r.warmup_s);
  v("baseline_s", r.baseline_s);
  v("temp_threshold_c", r.temp_threshold_c);
  v("drift_threshold", r.drift_threshold);
  v("checkpoint_interval_s", r.checkpoint_interval_s);
  v("cycles", r.cycles);
  v("started_at", r.started_at);
  v("telemetry_source", r.telemetry_source);
  v("planted", r.planted);
  v("interruptions", r.interruptions);
  v("faults", r.faults);
  v("entities", r.entities);
  v("nodes", r.nodes);
  v("entity_hours", r.entity_hours);
  v("mtbf_h", r.mtbf_h);
  v("availability", r.availability);
}

// A JSON number that is not finite cannot be written; the report never holds one, but a
// division by zero upstream must not produce an unreadable document.
double Finite(double x) { return std::isfinite(x) ? x : 0.0; }

struct Writer {
  ojson& j;
  template <typename T>
  void operator()(const char* key, T& value) {
    j[key] = Write(value);
  }
  static ojson Write(double x) { return Finite(x); }
  static ojson Write(std::optional<double>& x) { return x ? ojson(Finite(*x)) : ojson(nullptr); }
  static ojson Write(Severity s) { return SeverityName(s); }
  static ojson Write(Evidence& e) { return ToJson(e); }
  template <typename T>
  static ojson Write(std::vector<T>& items) {
    ojson a = ojson::array();
    for (auto& item : items) a.push_back(Write(item));
    return a;
  }
  static ojson Write(std::vector<std::string>& items) { return items; }
  template <typename T>
  static ojson Write(T& value) {
    if constexpr (std::is_class_v<T> && !std::is_same_v<T, std::string>) {
      ojson o = ojson::object();
      Writer w{o};
      Fields(w, value);
      return o;
    } else {
      return value;
    }
  }
};

struct Reader {
  const nlohmann::json& j;
  std::string where;
  Status status = Status::Ok();

  template <typename T>
  void operator()(const char* key, T& value) {
    if (!status.ok()) return;
    std::string at = where + "." + key;
    if (!j.contains(key)) {
      status = Status::Invalid(at + ": missing");
      return;
    }
    status = Read(j.at(key), at, value);
  }

  static Status Expect(bool ok, const std::string& at, const char* what) {
    return ok ? Status::Ok() : Status::Invalid(at + ": expected " + what);
  }
  static Status Read(const nlohmann::json& v, const std::string& at, double& out) {
    if (!v.is_number()) return Expect(false, at, "a number");
    out = v.get<double>();
    return Status::Ok();
  }
  static Status Read(const nlohmann::json& v, const std::string& at, int& out) {
    if (!v.is_number_integer()) return Expect(false, at, "an integer");
    out = v.get<int>();
    return Status::Ok();
  }
  static Status Read(const nlohmann::json& v, const std::string& at, int64_t& out) {
    if (!v.is_number_integer()) return Expect(false, at, "an integer");
    out = v.get<int64_t>();
    return Status::Ok();
  }
  static Status Read(const nlohmann::json& v, const std::string& at, bool& out) {
    if (!v.is_boolean()) return Expect(false, at, "true or false");
    out = v.get<bool>();
    return Status::Ok();
  }
  static Status Read(const nlohmann::json& v, const std::string& at, std::string& out) {
    if (!v.is_string()) return Expect(false, at, "a string");
    out = v.get<std::string>();
    return Status::Ok();
  }
  static Status Read(const nlohmann::json& v, const std::string& at, std::optional<double>& out) {
    if (v.is_null()) {
      out.reset();
      return Status::Ok();
    }
    double x = 0;
    YS_RETURN_IF_ERROR(Read(v, at, x));
    out = x;
    return Status::Ok();
  }
  static Status Read(const nlohmann::json& v, const std::string& at, Severity& out) {
    if (v == "warn") {
      out = Severity::kWarn;
    } else if (v == "fail") {
      out = Severity::kFail;
    } else {
      return Expect(false, at, "warn or fail");
    }
    return Status::Ok();
  }
  static Status Read(const nlohmann::json& v, const std::string& at, Evidence& out) {
    if (!v.is_object()) return Expect(false, at, "an object");
    out.clear();
    for (const auto& [k, x] : v.items()) {
      if (!x.is_string()) return Expect(false, at + "." + k, "a string");
      out.emplace_back(k, x.get<std::string>());
    }
    return Status::Ok();
  }
  template <typename T>
  static Status Read(const nlohmann::json& v, const std::string& at, std::vector<T>& out) {
    if (!v.is_array()) return Expect(false, at, "an array");
    out.clear();
    for (size_t i = 0; i < v.size(); ++i) {
      T item{};
      YS_RETURN_IF_ERROR(Read(v[i], at + "[" + std::to_string(i) + "]", item));
      out.push_back(std::move(item));
    }
    return Status::Ok();
  }
  template <typename T>
  static Status Read(const nlohmann::json& v, const std::string& at, T& out) {
    if (!v.is_object()) return Expect(false, at, "an object");
    Reader r{v, at};
    Fields(r, out);
    return r.status;
  }
};

template <typename T>
Result<T> Parse(const nlohmann::json& j, const std::string& where) {
  T value;
  YS_RETURN_IF_ERROR(Reader::Read(j, where, value));
  return value;
}

}  // namespace

ojson ToJson(const BurninEntity& e) {
  BurninEntity copy = e;  // the field lists take non-const references
  return Writer::Write(copy);
}

Result<BurninEntity> BurninEntityFromJson(const nlohmann::json& j, const std::string& where) {
  return Parse<BurninEntity>(j, where);
}

ojson ToJson(const BurninReport& r) {
  BurninReport copy = r;  // the field lists take non-const references
  return Writer::Write(copy);
}

Result<BurninReport> BurninReportFromJson(const nlohmann::json& j, const std::string& where) {
  return Parse<BurninReport>(j, where);
}

}  // namespace ys
