// The analyser's checkpoint: its whole state to JSON and back (analyser.h SaveState/LoadState),
// through the field lists below. Keys come out sorted (nlohmann::json), as they always have.
#include "burnin/analyser_state.h"

#include <nlohmann/json.hpp>
#include <set>

#include "burnin/analyser.h"
#include "burnin_report/burnin_fields.h"
#include "core/json_fields.h"

namespace ys::burnin {

using nlohmann::json;

template <typename V>
void Fields(V& v, AnalyserOptions& o) {
  v("profile", o.profile);
  v("duration_s", o.duration_s);
  v("cycle_s", o.cycle_s);
  v("window_s", o.window_s);
  v("warmup_s", o.warmup_s);
  v("temp_ref_s", o.temp_ref_s);
  v("baseline_s", o.baseline_s);
  v("temp_threshold_c", o.temp_threshold_c);
  v("drift_threshold", o.drift_threshold);
  v("checkpoint_interval_s", o.checkpoint_interval_s);
  v("started_at", o.started_at);
  v("telemetry_source", o.telemetry_source);
  v("planted", o.planted);
  v.check("", o.window_s > 0 && o.cycle_s > 0, "window_s > 0 and cycle_s > 0");
}

template <typename V>
void Fields(V& v, OpenWindow& w) {
  v("open", w.open);
  v("start_s", w.start_s);
  v("cycles", w.cycles);
  v("perf", w.perf);
  v.optional("foreign", w.foreign);
  v.optional("foreign_who", w.foreign_who);
  v.optional("foreign_max", w.foreign_max);
  v("temp_min", w.temp_min);
  v("temp_max", w.temp_max);
  v("faults", w.faults);
}

namespace {

// One entity's state; its notes (a set) as a sorted array.
struct EntityDocument {
  EntityState e;
  std::vector<std::string> notes;
};

template <typename V>
void Fields(V& v, EntityDocument& d) {
  EntityState& e = d.e;
  v("info", e.info);
  v("baseline_perf", e.baseline_perf);
  v("baseline_done", e.baseline_done);
  v.optional("baseline_spread", e.baseline_spread);
  v.optional("baseline_cycles", e.baseline_cycles);
  v.optional("low_windows", e.low_windows);
  v.optional("low_since_s", e.low_since_s);
  v.optional("disturbed_windows", e.disturbed_windows);
  v.optional("disturbed_share", e.disturbed_share);
  v.optional("shared_windows", e.shared_windows);
  v.optional("shared_share", e.shared_share);
  v.optional("unexplained_windows", e.unexplained_windows);
  v.optional("shared_judged", e.shared_judged);
  v.optional("foreign_who", e.foreign_who);
  v("temp_ref_samples", e.temp_ref_samples);
  v("temp_ref_done", e.temp_ref_done);
  v("counters", e.counters);
  v("open", e.open);
  v("sticky", e.sticky);
  v("notes", d.notes);
  v("window", e.win);
}

// The checkpoint. Pairs are two-element arrays: a digest as [digest, entity], a node as
// [observed_s, unavailable_s]. The faults and interruptions go through the report's own
// fields (the rest of that report keeps its defaults).
struct StateDocument {
  AnalyserOptions options;
  double elapsed_s = 0;
  int64_t cycles = 0;
  BurninReport report;
  std::map<std::string, std::string> last_metric;
  std::map<std::string, std::vector<std::string>> digests;
  std::map<std::string, std::vector<double>> nodes;
  std::vector<EntityDocument> entities;
};

template <typename V>
void Fields(V& v, StateDocument& d) {
  v("options", d.options);
  v("elapsed_s", d.elapsed_s);
  v("cycles", d.cycles);
  v("report", d.report);
  v("last_metric", d.last_metric);
  v("digests", d.digests);
  v("nodes", d.nodes);
  v("entities", d.entities);
  auto pairs = [](const auto& m) {
    return std::all_of(m.begin(), m.end(), [](const auto& kv) { return kv.second.size() == 2; });
  };
  v.check("digests", pairs(d.digests), "[digest, entity] for every key");
  v.check("nodes", pairs(d.nodes), "[observed_s, unavailable_s] for every node");
}

}  // namespace

json Analyser::SaveState() const {
  const State& s = *s_;
  StateDocument d{.options = s.o, .elapsed_s = s.elapsed_s, .cycles = s.cycles};
  d.report.faults = s.faults;
  d.report.interruptions = s.interruptions;
  d.last_metric = s.last_metric;
  for (const auto& [k, v] : s.digests) d.digests[k] = {v.first, v.second};
  for (const auto& [k, n] : s.nodes) d.nodes[k] = {n.observed_s, n.unavailable_s};
  for (const auto& [key, e] : s.entities)
    d.entities.push_back({e, std::vector<std::string>(e.notes.begin(), e.notes.end())});
  return json_fields::Write<StateDocument, json_fields::BasicWriter<json>>(d);
}

Result<Analyser> Analyser::LoadState(const json& j, const std::string& where) {
  auto d = json_fields::Parse<StateDocument>(j, where);
  if (!d.ok()) return d.status();
  Analyser a(d->options);
  State& s = *a.s_;
  s.elapsed_s = d->elapsed_s;
  s.cycles = d->cycles;
  s.faults = std::move(d->report.faults);
  s.interruptions = std::move(d->report.interruptions);
  s.last_metric = std::move(d->last_metric);
  for (const auto& [k, v] : d->digests) s.digests[k] = {v[0], v[1]};
  for (const auto& [k, v] : d->nodes) s.nodes[k] = NodeState{v[0], v[1]};
  for (size_t i = 0; i < d->entities.size(); ++i) {
    EntityState& e = d->entities[i].e;
    for (const auto& [key, index] : e.open) {
      if (index < 0 || static_cast<size_t>(index) >= s.faults.size()) {
        return Status::Invalid(where + ".entities[" + std::to_string(i) + "].open." + key +
                               ": no fault " + std::to_string(index));
      }
    }
    e.notes = std::set<std::string>(d->entities[i].notes.begin(), d->entities[i].notes.end());
    std::string key = e.info.node + "/" + e.info.entity + "/" + e.info.metric;
    s.entities[key] = std::move(e);
  }
  return a;
}

}  // namespace ys::burnin
