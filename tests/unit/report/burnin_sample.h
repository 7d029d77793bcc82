// A burn-in report built in memory for the report tests (HTML section and console): two entities
// on one node with windows (one with a hostile name and no temperature sensor), two faults (one
// fail still present, one warn cleared), a kill-and-resume, and a planted fault.
#ifndef YARDSTICK_TESTS_UNIT_REPORT_BURNIN_SAMPLE_H_
#define YARDSTICK_TESTS_UNIT_REPORT_BURNIN_SAMPLE_H_

#include <memory>

#include "burnin_report/burnin_report.h"
#include "burnin_report/burnin_section.h"
#include "core/run_document.h"

namespace ys::testing {

inline constexpr char kHostileEntity[] = "gpu0<script>alert(1)</script>";

inline BurninReport SampleBurnin() {
  BurninReport r;
  r.profile = "compute";
  r.duration_s = 14400;
  r.elapsed_s = 7200;
  r.complete = false;
  r.cycle_s = 30;
  r.window_s = 2400;
  r.warmup_s = 300;
  r.baseline_s = 2400;
  r.temp_threshold_c = 2;
  r.drift_threshold = 0.05;
  r.checkpoint_interval_s = 300;
  r.cycles = 240;
  r.started_at = "2026-11-30T00:00:00Z";
  r.telemetry_source = "recorded: timeline.json";
  r.planted = {"gpu1 miscompare at 754 s"};
  r.interruptions = {{.at_s = 1500,
                      .stopped_at = "2026-11-30T00:25:00Z",
                      .resumed_at = "2026-11-30T00:30:00Z",
                      .gap_s = 300,
                      .how = "killed",
                      .redone_s = 45}};
  r.faults = {{.at_s = 754,
               .at = "2026-11-30T00:12:34Z",
               .node = "node1",
               .entity = "gpu1",
               .kind = "miscompare",
               .severity = Severity::kFail,
               .message = "3 of 1200 GEMMs differed from the reference",
               .evidence = {{"first_bad_iteration", "17"}}},
              {.at_s = 2000,
               .at = "2026-11-30T00:38:20Z",
               .node = "node1",
               .entity = kHostileEntity,
               .kind = "perf_drift",
               .severity = Severity::kWarn,
               .message = "window rate 93.0% of baseline",
               .cleared_at_s = 2100}};
  BurninEntity gpu1{.node = "node1",
                    .entity = "gpu1",
                    .kind = "gpu",
                    .metric = "sgemm",
                    .unit = "GFLOPS",
                    .cycles = 240,
                    .iterations = 2400,
                    .miscompares = 3,
                    .perf_baseline = 50000,
                    .perf_median = 49000,
                    .perf_min_window = 45000,
                    .perf_last_window = 45500,
                    .temp_steady_c = 70,
                    .temp_min_c = 68,
                    .temp_max_c = 74.5,
                    .temp_max_dev_c = 4.5,
                    .throttle_events = 1,
                    .faults = 1,
                    .observed_s = 7200,
                    .unavailable_s = 6446,
                    .availability = 0.1047,
                    .stable = false};
  gpu1.windows = {{.start_s = 0, .perf = 50000, .temp_min_c = 68, .temp_max_c = 71},
                  {.start_s = 2400, .perf = 48000, .temp_min_c = 69, .temp_max_c = 72},
                  {.start_s = 4800, .perf = 45500, .temp_min_c = 70, .temp_max_c = 74.5}};
  BurninEntity hostile{.node = "node1",
                       .entity = kHostileEntity,
                       .kind = "gpu",
                       .metric = "sgemm",
                       .unit = "GFLOPS",
                       .cycles = 240,
                       .iterations = 2400,
                       .perf_baseline = 50000,
                       .perf_median = 50000,
                       .perf_min_window = 46500,
                       .perf_last_window = 50000,
                       .faults = 1,
                       .observed_s = 7200,
                       .unavailable_s = 100,
                       .availability = 0.9861,
                       .stable = false,
                       .note = "no temperature sensor: the recorded timeline has none"};
  hostile.windows = {{.start_s = 0, .perf = 50000},
                     {.start_s = 2400, .perf = 46500, .faults = 1},
                     {.start_s = 4800, .perf = 50000}};
  r.entities = {gpu1, hostile};
  r.nodes = {{.node = "node1", .entities = 2, .faults = 2, .availability = 0.1}};
  r.entity_hours = 4;
  r.mtbf_h = 2;
  r.availability = 0.9875;
  return r;
}

inline RunDocument BurninDocument(BurninReport r) {
  RunDocument doc;
  doc.command = "burnin";
  doc.started_at = "2026-11-30T00:00:00Z";
  doc.host.hostname = "node1";
  SetBurnin(doc, std::move(r));
  return doc;
}

}  // namespace ys::testing

#endif  // YARDSTICK_TESTS_UNIT_REPORT_BURNIN_SAMPLE_H_
