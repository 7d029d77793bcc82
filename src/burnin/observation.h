// What one burn-in cycle observed, per entity: the load's result (rate, operations, result
// checks) and the telemetry sampled at the cycle's end. Loads (burnin/load.h) and the telemetry
// sampler (burnin/telemetry.h) fill these; the analyser (burnin/analyser.h) turns a stream of
// them into faults, windows and stability. Under MPI every rank fills its own and rank 0 gathers
// them (JSON below), so the analyser alone holds the burn-in's state.
#ifndef YARDSTICK_BURNIN_OBSERVATION_H_
#define YARDSTICK_BURNIN_OBSERVATION_H_

#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"

namespace ys::burnin {

struct EntitySample {
  std::string node;    // host name
  std::string entity;  // "cpu3", "gpu2", "net", "node"
  std::string kind;    // "cpu", "gpu", "net", "node"

  // The load, when this entity carried one this cycle (metric empty otherwise).
  std::string metric;          // "sgemm", "triad", "all_reduce.busbw", "gemm.bf16"
  std::string unit;            // "GFLOPS", "GB/s"
  std::optional<double> perf;  // the cycle's median rate
  // The share (0..1) of this entity's CPU time that processes outside the burn-in took during
  // the cycle (host/foreign_cpu.h); CPU entities only.
  std::optional<double> foreign_share;
  // The processes charged the most of it, largest first ("cc1plus, ninja"), at most three.
  std::string foreign_who;
  int64_t iterations = 0;         // operations whose result was checked
  int64_t miscompares = 0;        // of which differed from the reference
  std::string miscompare_detail;  // the first: "element 17: expected 0x3f800000, got 0x3f800001"
  std::string digest;             // SHA-256 (hex) of the reference output: equal on every entity
                                  // and across resumes for the same load and inputs
  std::string load_error;         // the load could not run this cycle (the error's text)

  // Telemetry at the cycle's end; absent fields were not readable (see telemetry_note).
  std::optional<double> temp_c;
  // GPU: nvmlClocksEventReasons bits (gpu_snapshot.h kClocksEvent*) now.
  std::optional<uint64_t> clocks_event_reasons;
  // Cumulative counters; the analyser reports any increase over the first reading as a fault.
  // Names (the analyser's table maps each to a fault kind and severity):
  //   gpu:  ecc_corrected, ecc_uncorrected, remapped_rows_uncorrectable, remap_failure (0/1),
  //         nvlink_replay, nvlink_recovery, nvlink_crc, nvlink_down (links inactive),
  //         pcie_replay, xid (XIDs logged for this GPU since the burn-in began)
  //   cpu:  thermal_throttle (core_throttle_count + package_throttle_count)
  //   node: edac_ce, edac_ue, aer_correctable, aer_nonfatal, aer_fatal, mce (kernel log)
  std::map<std::string, uint64_t> counters;
  // New events since the previous sample, one line each ("Xid 79 at 0000:1b:00: GPU has
  // fallen off the bus"): quoted in the fault's evidence.
  std::vector<std::string> events;
  std::string telemetry_note;  // why a reading is missing ("no hwmon sensor for cpu3")
};

struct CycleObservation {
  double start_s = 0;  // load time at the cycle's start
  double end_s = 0;
  std::string at;  // UTC of the cycle's end
  std::vector<EntitySample> samples;
};

nlohmann::json ToJson(const EntitySample& s);
Result<EntitySample> EntitySampleFromJson(const nlohmann::json& j, const std::string& where);
nlohmann::json ToJson(const std::vector<EntitySample>& samples);
Result<std::vector<EntitySample>> EntitySamplesFromJson(const nlohmann::json& j,
                                                        const std::string& where);

}  // namespace ys::burnin

#endif  // YARDSTICK_BURNIN_OBSERVATION_H_
