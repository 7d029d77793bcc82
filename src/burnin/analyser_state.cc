// The analyser's checkpoint: its whole state to JSON and back (analyser.h SaveState/LoadState).
#include "burnin/analyser_state.h"

#include <nlohmann/json.hpp>
#include <set>

#include "burnin/analyser.h"
#include "core/burnin_json.h"

namespace ys::burnin {

using nlohmann::json;

namespace {

json OptionalJson(const std::optional<double>& x) { return x ? json(*x) : json(nullptr); }

}  // namespace

json Analyser::SaveState() const {
  const State& s = *s_;
  json j;
  const AnalyserOptions& o = s.o;
  j["options"] = {{"profile", o.profile},
                  {"duration_s", o.duration_s},
                  {"cycle_s", o.cycle_s},
                  {"window_s", o.window_s},
                  {"warmup_s", o.warmup_s},
                  {"temp_ref_s", o.temp_ref_s},
                  {"baseline_s", o.baseline_s},
                  {"temp_threshold_c", o.temp_threshold_c},
                  {"drift_threshold", o.drift_threshold},
                  {"checkpoint_interval_s", o.checkpoint_interval_s},
                  {"started_at", o.started_at},
                  {"telemetry_source", o.telemetry_source},
                  {"planted", o.planted}};
  j["elapsed_s"] = s.elapsed_s;
  j["cycles"] = s.cycles;
  // Faults and interruptions through the report's own JSON.
  BurninReport part;
  part.faults = s.faults;
  part.interruptions = s.interruptions;
  j["report"] = ToJson(part);
  j["last_metric"] = s.last_metric;
  j["digests"] = json::object();
  for (const auto& [k, v] : s.digests) j["digests"][k] = {v.first, v.second};
  j["nodes"] = json::object();
  for (const auto& [k, n] : s.nodes) j["nodes"][k] = {n.observed_s, n.unavailable_s};
  j["entities"] = json::array();
  for (const auto& [key, e] : s.entities) {
    json ej;
    ej["info"] = ToJson(e.info);
    ej["baseline_perf"] = e.baseline_perf;
    ej["baseline_done"] = e.baseline_done;
    ej["temp_ref_samples"] = e.temp_ref_samples;
    ej["temp_ref_done"] = e.temp_ref_done;
    ej["counters"] = e.counters;
    ej["open"] = e.open;
    ej["sticky"] = e.sticky;
    ej["notes"] = e.notes;
    ej["window"] = {{"open", e.win.open},
                    {"start_s", e.win.start_s},
                    {"cycles", e.win.cycles},
                    {"perf", e.win.perf},
                    {"temp_min", OptionalJson(e.win.temp_min)},
                    {"temp_max", OptionalJson(e.win.temp_max)},
                    {"faults", e.win.faults}};
    j["entities"].push_back(ej);
  }
  return j;
}

Result<Analyser> Analyser::LoadState(const json& j, const std::string& where) {
  try {
    AnalyserOptions o;
    const json& oj = j.at("options");
    o.profile = oj.at("profile").get<std::string>();
    o.duration_s = oj.at("duration_s").get<double>();
    o.cycle_s = oj.at("cycle_s").get<double>();
    o.window_s = oj.at("window_s").get<double>();
    o.warmup_s = oj.at("warmup_s").get<double>();
    o.temp_ref_s = oj.at("temp_ref_s").get<double>();
    o.baseline_s = oj.at("baseline_s").get<double>();
    o.temp_threshold_c = oj.at("temp_threshold_c").get<double>();
    o.drift_threshold = oj.at("drift_threshold").get<double>();
    o.checkpoint_interval_s = oj.at("checkpoint_interval_s").get<double>();
    o.started_at = oj.at("started_at").get<std::string>();
    o.telemetry_source = oj.at("telemetry_source").get<std::string>();
    o.planted = oj.at("planted").get<std::vector<std::string>>();
    if (!(o.window_s > 0) || !(o.cycle_s > 0))
      return Status::Invalid(where + ".options: window_s and cycle_s must be > 0");
    Analyser a(o);
    State& s = *a.s_;
    s.elapsed_s = j.at("elapsed_s").get<double>();
    s.cycles = j.at("cycles").get<int64_t>();
    auto part = BurninReportFromJson(j.at("report"), where + ".report");
    if (!part.ok()) return part.status();
    s.faults = part->faults;
    s.interruptions = part->interruptions;
    s.last_metric = j.at("last_metric").get<std::map<std::string, std::string>>();
    for (const auto& [k, v] : j.at("digests").items())
      s.digests[k] = {v.at(0).get<std::string>(), v.at(1).get<std::string>()};
    for (const auto& [k, v] : j.at("nodes").items())
      s.nodes[k] = NodeState{v.at(0).get<double>(), v.at(1).get<double>()};
    size_t i = 0;
    for (const auto& ej : j.at("entities")) {
      std::string ew = where + ".entities[" + std::to_string(i++) + "]";
      auto info = BurninEntityFromJson(ej.at("info"), ew + ".info");
      if (!info.ok()) return info.status();
      EntityState e;
      e.info = std::move(*info);
      e.baseline_perf = ej.at("baseline_perf").get<std::vector<double>>();
      e.baseline_done = ej.at("baseline_done").get<bool>();
      e.temp_ref_samples = ej.at("temp_ref_samples").get<std::vector<double>>();
      e.temp_ref_done = ej.at("temp_ref_done").get<bool>();
      e.counters = ej.at("counters").get<std::map<std::string, uint64_t>>();
      e.open = ej.at("open").get<std::map<std::string, int>>();
      for (const auto& [key, index] : e.open) {
        if (index < 0 || static_cast<size_t>(index) >= s.faults.size()) {
          return Status::Invalid(ew + ".open." + key + ": no fault " + std::to_string(index));
        }
      }
      e.sticky = ej.at("sticky").get<bool>();
      e.notes = ej.at("notes").get<std::set<std::string>>();
      const json& w = ej.at("window");
      e.win.open = w.at("open").get<bool>();
      e.win.start_s = w.at("start_s").get<double>();
      e.win.cycles = w.at("cycles").get<int>();
      e.win.perf = w.at("perf").get<std::vector<double>>();
      if (!w.at("temp_min").is_null()) e.win.temp_min = w.at("temp_min").get<double>();
      if (!w.at("temp_max").is_null()) e.win.temp_max = w.at("temp_max").get<double>();
      e.win.faults = w.at("faults").get<int>();
      s.entities[e.info.node + "/" + e.info.entity + "/" + e.info.metric] = std::move(e);
    }
    return a;
  } catch (const json::exception& e) {
    return Status::Invalid(where + ": not a burn-in state: " + e.what());
  }
}

}  // namespace ys::burnin
