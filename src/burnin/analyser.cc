#include "burnin/analyser.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "burnin/analyser_state.h"
#include "burnin/fault_kinds.h"
#include "burnin_report/burnin_json.h"
#include "core/finding_codes.h"
#include "gpu/gpu_snapshot.h"

namespace ys::burnin {

namespace {

using nlohmann::json;

// Clock reasons that are faults under load (SW power cap is not: see analyser.h).
constexpr uint64_t kThrottleMask =
    gpu::kClocksEventHwSlowdown | gpu::kClocksEventSwThermalSlowdown |
    gpu::kClocksEventHwThermalSlowdown | gpu::kClocksEventHwPowerBrakeSlowdown;

std::string Num(double x, int digits = 1) { return fmt::format("{:.{}f}", x, digits); }

std::string ReasonNames(uint64_t bits) {
  std::vector<std::string> names;
  if (bits & gpu::kClocksEventHwSlowdown) names.push_back("hw_slowdown");
  if (bits & gpu::kClocksEventSwThermalSlowdown) names.push_back("sw_thermal_slowdown");
  if (bits & gpu::kClocksEventHwThermalSlowdown) names.push_back("hw_thermal_slowdown");
  if (bits & gpu::kClocksEventHwPowerBrakeSlowdown) names.push_back("hw_power_brake_slowdown");
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

void SetEvidence(Evidence& e, const std::string& key, std::string value) {
  for (auto& [k, v] : e) {
    if (k == key) {
      v = std::move(value);
      return;
    }
  }
  e.emplace_back(key, std::move(value));
}

// The window being filled for one entity.
}  // namespace

int Analyser::State::MinWindowCycles() const {
  return std::max(1, static_cast<int>(std::floor(o.window_s / std::max(o.cycle_s, 1e-9) / 2)));
}

int Analyser::State::Open(EntityState& e, const std::string& key, double at_s,
                          const std::string& at, std::string kind, Severity sev,
                          std::string message, Evidence ev) {
  BurninFault f;
  f.at_s = at_s;
  f.at = at;
  f.node = e.info.node;
  f.entity = e.info.entity;
  f.kind = std::move(kind);
  f.severity = sev;
  f.message = std::move(message);
  f.evidence = std::move(ev);
  faults.push_back(std::move(f));
  int index = static_cast<int>(faults.size()) - 1;
  if (!key.empty()) e.open[key] = index;
  e.win.faults++;
  e.info.faults++;
  return index;
}

int Analyser::State::OpenOnce(EntityState& e, const std::string& key, double at_s,
                              const std::string& at, std::string kind, Severity sev,
                              std::string message, Evidence ev) {
  auto it = e.open.find(key);
  if (it != e.open.end()) return it->second;
  return Open(e, key, at_s, at, std::move(kind), sev, std::move(message), std::move(ev));
}

void Analyser::State::Close(EntityState& e, const std::string& key, double at_s) {
  auto it = e.open.find(key);
  if (it == e.open.end()) return;
  faults[it->second].cleared_at_s = at_s;
  e.open.erase(it);
}

bool Analyser::State::FailOpen(const EntityState& e) const {
  for (const auto& [key, index] : e.open) {
    if (faults[index].severity == Severity::kFail) return true;
  }
  return false;
}

void Analyser::State::CloseWindow(EntityState& e) {
  if (!e.win.open) return;
  BurninWindow w;
  w.start_s = e.win.start_s;
  if (!e.win.perf.empty()) w.perf = MedianOf(e.win.perf);
  w.temp_min_c = e.win.temp_min;
  w.temp_max_c = e.win.temp_max;
  w.faults = e.win.faults;
  e.info.windows.push_back(w);
  double foreign = 0;
  for (double f : e.win.foreign) foreign += f / static_cast<double>(e.win.foreign.size());
  NoteForeign(e, foreign, e.win.foreign_who);
  // Drift: a full enough window after a baseline long enough to judge it (analyser_drift.cc).
  if (e.baseline_done && e.info.perf_baseline && e.baseline_spread >= 0 && w.perf &&
      w.start_s >= o.baseline_s && e.win.cycles >= MinWindowCycles()) {
    JudgeDrift(e, w, static_cast<int>(e.win.perf.size()), foreign);
  }
  e.win = OpenWindow{};
}

// The load's figures: performance into the window (and the baseline), miscompares against the
// output and the reference digest, a load that failed.
void Analyser::State::JudgeLoad(EntityState& e, const EntitySample& s, double start_s,
                                const std::string& at) {
  if (!s.metric.empty() && s.perf) {
    e.win.perf.push_back(*s.perf);
    if (s.foreign_share) {
      e.win.foreign.push_back(*s.foreign_share);
      if (*s.foreign_share >= e.win.foreign_max && !s.foreign_who.empty()) {
        e.win.foreign_max = *s.foreign_share;
        e.win.foreign_who = s.foreign_who;
      }
    }
    if (!e.baseline_done) e.baseline_perf.push_back(*s.perf);
  }
  e.info.iterations += s.iterations;
  e.info.miscompares += s.miscompares;
  if (s.miscompares > 0) {
    int i = OpenOnce(e, "miscompare", start_s, at, "miscompare", Severity::kFail,
                     fmt::format("{} {}: {} of {} results differed from the reference output",
                                 e.info.entity, s.metric, s.miscompares, s.iterations),
                     {{"first", s.miscompare_detail}});
    e.sticky = true;
    SetEvidence(faults[i].evidence, "miscompares", std::to_string(e.info.miscompares));
  }
  if (!s.digest.empty() && !s.metric.empty()) {
    std::string dkey = (s.kind == "cpu" ? s.node + "/" : std::string()) + s.metric;
    auto [it, inserted] = digests.emplace(dkey, std::make_pair(s.digest, e.info.entity));
    if (!inserted && it->second.first != s.digest) {
      OpenOnce(e, "miscompare_digest", start_s, at, "miscompare", Severity::kFail,
               fmt::format("{} {}: the reference output differs from {}'s (SHA-256)", e.info.entity,
                           s.metric, it->second.second),
               {{"digest", s.digest},
                {"reference_digest", it->second.first},
                {"reference_entity", it->second.second}});
      e.sticky = true;
    }
  }
  if (!s.load_error.empty()) {
    OpenOnce(e, "load_error", start_s, at, "load_error", Severity::kFail,
             fmt::format("{}: the load failed: {}", e.info.entity, s.load_error),
             {{"error", s.load_error}});
  } else if (!s.metric.empty()) {
    Close(e, "load_error", start_s);
  }
}

// Temperature: the steady state after warm-up, then a fault for a reading outside its band.
void Analyser::State::JudgeTemperature(EntityState& e, const EntitySample& s, double end_s,
                                       const std::string& at) {
  if (s.temp_c) {
    double t = *s.temp_c;
    e.win.temp_min = e.win.temp_min ? std::min(*e.win.temp_min, t) : t;
    e.win.temp_max = e.win.temp_max ? std::max(*e.win.temp_max, t) : t;
    if (end_s > o.warmup_s) {
      if (!e.temp_ref_done && end_s <= o.warmup_s + o.temp_ref_s) {
        e.temp_ref_samples.push_back(t);
      } else {
        if (!e.temp_ref_done) {
          e.temp_ref_done = true;
          e.info.temp_steady_c = e.temp_ref_samples.empty() ? t : MedianOf(e.temp_ref_samples);
          e.temp_ref_samples.clear();
        }
        double ref = *e.info.temp_steady_c;
        double dev = t - ref;
        e.info.temp_min_c = e.info.temp_min_c ? std::min(*e.info.temp_min_c, t) : t;
        e.info.temp_max_c = e.info.temp_max_c ? std::max(*e.info.temp_max_c, t) : t;
        if (!e.info.temp_max_dev_c || std::abs(dev) > *e.info.temp_max_dev_c) {
          e.info.temp_max_dev_c = std::abs(dev);
        }
        if (std::abs(dev) > o.temp_threshold_c) {
          int i =
              OpenOnce(e, "temperature", end_s, at, "temperature", Severity::kWarn,
                       fmt::format("{} at {} °C, {} °C {} its steady state of {} °C (band ±{} °C)",
                                   e.info.entity, Num(t), Num(std::abs(dev)),
                                   dev > 0 ? "above" : "below", Num(ref), Num(o.temp_threshold_c)),
                       {{"steady_c", Num(ref)}, {"reading_c", Num(t)}});
          double peak = std::abs(dev);
          for (const auto& [k, v] : faults[i].evidence) {
            if (k == "peak_deviation_c") peak = std::max(peak, std::stod(v));
          }
          SetEvidence(faults[i].evidence, "peak_deviation_c", Num(peak));
        } else {
          Close(e, "temperature", end_s);
        }
      }
    }
  }
}

// GPU clocks event reasons: a throttle fault while a fault reason is set.
void Analyser::State::JudgeClocks(EntityState& e, const EntitySample& s, double end_s,
                                  const std::string& at) {
  if (s.clocks_event_reasons) {
    uint64_t bits = *s.clocks_event_reasons & kThrottleMask;
    if (bits) {
      if (!e.open.count("throttle")) e.info.throttle_events++;
      OpenOnce(e, "throttle", end_s, at, "throttle", Severity::kFail,
               fmt::format("{} clocks held down: {}", e.info.entity, ReasonNames(bits)),
               {{"clocks_event_reasons", fmt::format("0x{:x}", *s.clocks_event_reasons)}});
    } else {
      Close(e, "throttle", end_s);
    }
  }
}

// Cumulative counters: a rise over the previous reading is a fault (fault_kinds.h); true when a
// point fault of fail severity makes this cycle unavailable.
bool Analyser::State::JudgeCounters(EntityState& e, const EntitySample& s, double end_s,
                                    const std::string& at) {
  bool point_fail = false;
  for (const auto& [name, value] : s.counters) {
    const CounterInfo* info = LookupCounter(name);
    if (!info) {
      e.notes.insert("unknown counter ignored: " + name);
      continue;
    }
    auto it = e.counters.find(name);
    if (it == e.counters.end() || value < it->second) {
      e.counters[name] = value;  // the base, or a reset
      continue;
    }
    uint64_t before = it->second;
    it->second = value;
    if (value == before) continue;
    uint64_t added = value - before;
    if (name == "thermal_throttle") e.info.throttle_events += static_cast<int>(added);
    Evidence ev = {
        {"counter", name}, {"before", std::to_string(before)}, {"now", std::to_string(value)}};
    for (size_t k = 0; k < s.events.size() && k < 5; ++k)
      ev.emplace_back("event" + std::to_string(k + 1), s.events[k]);
    int i = Open(e, info->sticky ? name : std::string(), end_s, at, std::string(info->kind),
                 info->severity, fmt::format("{}: {} new {}", e.info.entity, added, info->what),
                 std::move(ev));
    if (info->sticky && info->severity == Severity::kFail) e.sticky = true;
    if (!info->sticky) {
      faults[i].cleared_at_s = end_s;
      if (info->severity == Severity::kFail) point_fail = true;
    }
  }
  return point_fail;
}

void Analyser::State::AddSample(const EntitySample& s, double start_s, double end_s,
                                const std::string& at,
                                std::map<std::string, bool>& node_unavailable) {
  // One row per entity and load metric (mixed rotates loads over the same cores); telemetry
  // of a cycle without load goes to the entity's last loaded row.
  std::string base = s.node + "/" + s.entity;
  std::string metric = s.metric;
  if (metric.empty()) {
    auto lm = last_metric.find(base);
    if (lm != last_metric.end()) metric = lm->second;
  } else {
    last_metric[base] = metric;
  }
  EntityState& e = entities[base + "/" + metric];
  if (e.info.entity.empty()) {
    e.info.node = s.node;
    e.info.entity = s.entity;
    e.info.kind = s.kind;
  }
  if (e.info.metric.empty() && !s.metric.empty()) {
    e.info.metric = s.metric;
    e.info.unit = s.unit;
  }
  double dur = std::max(0.0, end_s - start_s);
  double window_start = std::floor(start_s / o.window_s) * o.window_s;
  if (e.win.open && e.win.start_s != window_start) CloseWindow(e);
  if (!e.win.open) {
    e.win.open = true;
    e.win.start_s = window_start;
  }
  e.win.cycles++;
  e.info.cycles++;
  e.info.observed_s += dur;

  // The baseline is complete once load time passes baseline_s.
  if (!e.baseline_done && start_s >= o.baseline_s) EndBaseline(e);

  JudgeLoad(e, s, start_s, at);
  JudgeTemperature(e, s, end_s, at);
  JudgeClocks(e, s, end_s, at);
  bool point_fail = JudgeCounters(e, s, end_s, at);
  if (!s.telemetry_note.empty()) e.notes.insert(s.telemetry_note);

  bool unavailable = e.sticky || point_fail || FailOpen(e);
  if (unavailable) e.info.unavailable_s += dur;
  bool& node_bad = node_unavailable[s.node];
  node_bad = node_bad || unavailable;
}

AnalyserOptions DefaultTiming(double duration_s, double cycle_s) {
  AnalyserOptions o;
  o.duration_s = duration_s;
  o.cycle_s = cycle_s;
  o.window_s = std::clamp(duration_s / 240, 5.0, 900.0);
  o.warmup_s = std::min(600.0, duration_s / 10);
  o.temp_ref_s = std::min(600.0, duration_s / 10);
  o.baseline_s = std::min(3600.0, duration_s / 4);
  return o;
}

Analyser::Analyser(AnalyserOptions options) : s_(std::make_unique<State>()) {
  s_->o = std::move(options);
}
Analyser::~Analyser() = default;
Analyser::Analyser(Analyser&&) noexcept = default;
Analyser& Analyser::operator=(Analyser&&) noexcept = default;

const AnalyserOptions& Analyser::options() const { return s_->o; }
double Analyser::elapsed_s() const { return s_->elapsed_s; }
int64_t Analyser::cycles() const { return s_->cycles; }

void Analyser::SetSource(std::string telemetry_source, std::vector<std::string> planted) {
  s_->o.telemetry_source = std::move(telemetry_source);
  s_->o.planted = std::move(planted);
}

void Analyser::Add(const CycleObservation& c) {
  s_->last_at = c.at;
  std::map<std::string, bool> node_unavailable;
  for (const auto& sample : c.samples)
    s_->AddSample(sample, c.start_s, c.end_s, c.at, node_unavailable);
  double dur = std::max(0.0, c.end_s - c.start_s);
  for (const auto& [node, bad] : node_unavailable) {
    NodeState& n = s_->nodes[node];
    n.observed_s += dur;
    if (bad) n.unavailable_s += dur;
  }
  s_->elapsed_s = std::max(s_->elapsed_s, c.end_s);
  s_->cycles++;
}

void Analyser::AddInterruption(const BurninInterruption& i) {
  s_->interruptions.push_back(i);
  if (i.how != "reboot") return;
  for (auto& [node, n] : s_->nodes) {
    n.observed_s += i.gap_s;
    n.unavailable_s += i.gap_s;
  }
  std::set<std::string> nodes;
  for (auto& [key, e] : s_->entities) {
    e.info.observed_s += i.gap_s;
    e.info.unavailable_s += i.gap_s;
    nodes.insert(e.info.node);
  }
  for (const auto& node : nodes) {
    EntityState& node_entity = s_->entities[node + "/node/"];
    if (node_entity.info.entity.empty()) {
      node_entity.info.node = node;
      node_entity.info.entity = "node";
      node_entity.info.kind = "node";
    }
    int f = s_->Open(node_entity, "", i.at_s, i.resumed_at, "reboot", Severity::kFail,
                     fmt::format("{} rebooted during the burn-in: down {} s of wall time", node,
                                 Num(i.gap_s, 0)),
                     {{"stopped_at", i.stopped_at}, {"resumed_at", i.resumed_at}});
    s_->faults[f].cleared_at_s = i.at_s;
  }
}

BurninReport Analyser::Report() const {
  const State& s = *s_;
  BurninReport r;
  const AnalyserOptions& o = s.o;
  r.profile = o.profile;
  r.duration_s = o.duration_s;
  r.elapsed_s = s.elapsed_s;
  r.complete = s.elapsed_s >= o.duration_s;
  r.cycle_s = o.cycle_s;
  r.window_s = o.window_s;
  r.warmup_s = o.warmup_s;
  r.baseline_s = o.baseline_s;
  r.temp_threshold_c = o.temp_threshold_c;
  r.drift_threshold = o.drift_threshold;
  r.checkpoint_interval_s = o.checkpoint_interval_s;
  r.cycles = s.cycles;
  r.started_at = o.started_at;
  r.telemetry_source = o.telemetry_source;
  r.planted = o.planted;
  r.interruptions = s.interruptions;
  r.faults = s.faults;
  std::stable_sort(r.faults.begin(), r.faults.end(),
                   [](const BurninFault& a, const BurninFault& b) { return a.at_s < b.at_s; });
  double observed = 0, available = 0;
  for (const auto& [key, st] : s.entities) {
    BurninEntity e = st.info;
    if (st.win.open) {  // the partial last window, shown but not judged
      BurninWindow w;
      w.start_s = st.win.start_s;
      if (!st.win.perf.empty()) w.perf = MedianOf(st.win.perf);
      w.temp_min_c = st.win.temp_min;
      w.temp_max_c = st.win.temp_max;
      w.faults = st.win.faults;
      e.windows.push_back(w);
    }
    if (!st.baseline_done && !st.baseline_perf.empty())
      e.perf_baseline = MedianOf(st.baseline_perf);
    if (!e.metric.empty()) e.drift_judged = st.baseline_done && st.baseline_spread >= 0;
    std::vector<double> medians;
    for (const auto& w : e.windows) {
      if (w.perf) medians.push_back(*w.perf);
    }
    if (!medians.empty()) {
      e.perf_median = MedianOf(medians);
      e.perf_min_window = *std::min_element(medians.begin(), medians.end());
      e.perf_last_window = medians.back();
    }
    e.stable = e.faults == 0;
    e.availability = e.observed_s > 0 ? 1 - e.unavailable_s / e.observed_s : 1;
    for (const auto& n : st.notes) e.note += (e.note.empty() ? "" : "; ") + n;
    if (std::string d = State::DisturbanceNote(st); !d.empty())
      e.note += (e.note.empty() ? "" : "; ") + d;
    observed += e.observed_s;
    available += e.observed_s - e.unavailable_s;
    r.entities.push_back(std::move(e));
  }
  for (const auto& [name, n] : s.nodes) {
    BurninNode bn;
    bn.node = name;
    for (const auto& e : r.entities) {
      if (e.node == name) bn.entities++;
    }
    for (const auto& f : r.faults) {
      if (f.node == name) bn.faults++;
    }
    bn.availability = n.observed_s > 0 ? 1 - n.unavailable_s / n.observed_s : 1;
    r.nodes.push_back(bn);
  }
  r.entity_hours = observed / 3600;
  if (!r.faults.empty()) r.mtbf_h = r.entity_hours / static_cast<double>(r.faults.size());
  r.availability = observed > 0 ? available / observed : 1;
  return r;
}

CheckResult BurninCheckResult(const BurninReport& r) {
  CheckResult c;
  c.unit_id = "burnin." + r.profile;
  for (const auto& f : r.faults) {
    const FaultKindInfo* k = LookupFaultKind(f.kind);
    Finding finding =
        MakeFinding(k ? k->code : "YS-BURN-008", f.entity,
                    fmt::format("at {} s of load ({}): {}", Num(f.at_s, 0), f.at, f.message));
    finding.severity = f.severity;
    finding.evidence = f.evidence;
    if (!f.node.empty()) finding.evidence.insert(finding.evidence.begin(), {"node", f.node});
    if (k) finding.fix = std::string(k->fix);
    finding.reference = "yardstick burnin (docs/design.md §burnin)";
    c.Add(std::move(finding));
  }
  c.Note("load_time_s", Num(r.elapsed_s, 0));
  c.Note("entities", std::to_string(r.entities.size()));
  c.Note("availability", Num(r.availability * 100, 2) + "%");
  std::vector<std::string> unjudged;
  for (const BurninEntity& e : r.entities)
    if (e.drift_judged == false) unjudged.push_back(e.entity);
  if (r.faults.empty() && !unjudged.empty()) {
    // No fault seen, but the rate's stability was not judged: too little evidence to pass.
    c.outcome = Outcome::kError;
    c.summary = fmt::format(
        "{} s of {} load on {} entities: no fault, but drift not judged on {}: the baseline was "
        "too short (run longer)",
        Num(r.elapsed_s, 0), r.profile, r.entities.size(), fmt::join(unjudged, ", "));
  } else if (r.faults.empty()) {
    c.summary = fmt::format("{} s of {} load on {} entities: no fault", Num(r.elapsed_s, 0),
                            r.profile, r.entities.size());
  } else {
    c.summary = fmt::format("{} faults in {} s of {} load", r.faults.size(), Num(r.elapsed_s, 0),
                            r.profile);
  }
  c.Finalize();
  return c;
}

}  // namespace ys::burnin
