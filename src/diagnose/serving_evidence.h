// What the serving diagnosis rules (rules/serving/) read about one serving phase that did not pass:
// its row of the validation document (topology, concurrency, each metric against its reference)
// and what its folder, <runs>/<phase id>/, holds besides the serving exports:
//   - GPU telemetry (serving_telemetry.h): nvidia-smi query CSVs, the telemetry of AIPerf's
//     CSV and JSON exports;
//   - NVRM Xid lines in any log there (a kernel log, the server's log);
//   - the KV-transfer environment the logs print (UCX_*, NIXL_*);
//   - per-worker rates from the workers' own logs, named prefill_<i>.log / decode_<i>.log as
//     yardstick's serving script writes them: vLLM's "Avg prompt throughput: X tokens/s, Avg
//     generation throughput: Y tokens/s" and SGLang's "input throughput (token/s): X" /
//     "gen throughput (token/s): Y".
// A file that cannot be read, or a telemetry file that is malformed, is kept in `problems` with
// why; the rest is still read.
#ifndef YARDSTICK_DIAGNOSE_SERVING_EVIDENCE_H_
#define YARDSTICK_DIAGNOSE_SERVING_EVIDENCE_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/validation_document.h"
#include "diagnose/serving_telemetry.h"
#include "gpu/xid.h"

namespace ys::diagnose {

struct ServingXidSeen {
  std::string file;
  int line = 0;
  gpu::XidEvent xid;
};

struct ServingTransferSetting {
  std::string name;   // "UCX_TLS"
  std::string value;  // "rc,cuda_copy"
  std::string file;
};

// A worker's rate over the run: the mean of its non-zero samples.
struct ServingWorkerRate {
  std::string worker;  // "prefill_0", "decode_1"
  bool prefill = false;
  double tokens_per_s = 0;
  int samples = 0;
  std::string file;
};

struct ServingPhaseEvidence {
  ValidationPhase row;
  std::optional<double> threshold;  // the suite's, for a metric's score
  std::string dir;                  // empty: the runs folder is not known
  std::vector<GpuRunReadings> gpus;
  std::vector<std::string> telemetry_files;
  std::vector<std::string> logs;  // the text files scanned for XIDs, settings and rates
  std::vector<ServingXidSeen> xids;
  std::vector<ServingTransferSetting> transfer;
  std::vector<ServingWorkerRate> workers;
  std::vector<std::string> problems;

  // The concurrency of the compared point ("concurrency 8"), else the phase's one concurrency.
  std::optional<int> Concurrency() const;
  // Did not pass: "fail" or "inconclusive".
  bool FellShort() const;
  bool Disaggregated() const;
  // The largest tensor-parallel size of the phase (tp, prefill_tp, decode_tp).
  int LargestTp() const;
};

// The phase's evidence; `dir` empty reads no folder (the row's metrics alone).
ServingPhaseEvidence ReadServingPhaseEvidence(const ValidationPhase& row, const std::string& dir);

// Helpers the rules share.
// The metric of `key` ("ttft_ms", "tpot_ms", "output_tokens_per_s_per_gpu") when it failed.
const ValidationPhaseMetric* FailedMetric(const ServingPhaseEvidence& e, std::string_view key);
// The metric of `key` when it passed (measured within its reference).
const ValidationPhaseMetric* PassedMetric(const ServingPhaseEvidence& e, std::string_view key);
// "812 ms measured, 240 ms reference (score 0.30, fail)".
std::string DescribeMetric(const ValidationPhaseMetric& m);
// "phase deepseek-r1_fp4_chat".
std::string PhaseEntity(const ServingPhaseEvidence& e);
// The GPUs whose readings show an SM clock held below its maximum or a power/thermal limit
// holding it (power at the limit with a slowdown reason, DCGM's violation counters), each with
// one line of why. The throttle threshold: a slowdown reason in kSlowdownShare of the samples.
inline constexpr double kSlowdownShare = 0.1;
struct HeldGpu {
  const GpuRunReadings* gpu;
  std::string why;
  std::optional<double> clock_loss;  // max / clock - 1, when both are known
};
std::vector<HeldGpu> GpusHeldDown(const ServingPhaseEvidence& e);
// Whether the telemetry can tell a held clock at all: a GPU with its SM clock and maximum, its
// throttle reasons, or DCGM's violation counters.
bool TelemetryJudgesClocks(const ServingPhaseEvidence& e);

}  // namespace ys::diagnose

#endif  // YARDSTICK_DIAGNOSE_SERVING_EVIDENCE_H_
