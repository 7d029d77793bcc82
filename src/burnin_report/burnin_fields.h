// The field lists of the burn-in report (burnin_report/burnin_report.h), the "burnin" object of the
// run document (schemas/run.schema.json $defs/burnin_report), walked by core/json_fields.h.
#ifndef YARDSTICK_BURNIN_REPORT_BURNIN_FIELDS_H_
#define YARDSTICK_BURNIN_REPORT_BURNIN_FIELDS_H_

#include "burnin_report/burnin_report.h"
#include "core/json_fields.h"
#include "core/run_document_fields.h"

namespace ys {

// The report's conventions since its first version: a number that is not finite (a division
// by zero upstream) is written as 0 so the document stays readable, and a wrong type is named
// without the type found ("run.burnin.faults[1].at_s: expected a number").
constexpr json_fields::Style JsonStyle(const BurninReport*) {
  return {.non_finite_as_zero = true, .name_found_type = false};
}
constexpr json_fields::Style JsonStyle(const BurninEntity*) {
  return JsonStyle(static_cast<const BurninReport*>(nullptr));
}

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
  v.optional("drift_judged", e.drift_judged);
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

}  // namespace ys

#endif  // YARDSTICK_BURNIN_REPORT_BURNIN_FIELDS_H_
