// The run document (docs/design.md §vocabulary) and its parts: check outcomes, findings,
// measurements, benchmark results, the diagnosis. Plain value types; the field lists are in
// run_document_fields.h, JSON conversion in run_document_json.{h,cc}, and src/report/ renders the
// document (console, JUnit, HTML).
#ifndef YARDSTICK_CORE_RUN_DOCUMENT_H_
#define YARDSTICK_CORE_RUN_DOCUMENT_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/run_section.h"
#include "core/status.h"

namespace ys {

// Order matters: a higher value is worse; a unit's outcome is the worst of its parts.
enum class Outcome { kPass = 0, kSkip = 1, kWarn = 2, kFail = 3, kError = 4 };
const char* OutcomeName(Outcome o);
std::optional<Outcome> ParseOutcome(std::string_view name);

enum class Severity { kWarn = 0, kFail = 1 };
const char* SeverityName(Severity s);

// Ordered key -> observed value pairs, as the operator would read them.
using Evidence = std::vector<std::pair<std::string, std::string>>;

// What a warn or fail carries. `code` must be in the finding-code table (core/finding_codes.h).
struct Finding {
  std::string code;  // "YS-CPU-011"
  Severity severity = Severity::kWarn;
  std::string entity;   // "cpu12", "gpu3", "mlx5_0/1", "0000:1b:00.0", "node"
  std::string message;  // one line
  Evidence evidence;
  std::string fix;                // a concrete command or setting
  std::string expected_recovery;  // "about 4% of step time"; empty when unknown
  std::string reference;          // where the rule comes from
};

// The result of one check unit.
struct CheckResult {
  std::string unit_id;
  Outcome outcome = Outcome::kPass;
  // For pass: a one-line summary of what was seen. For skip and error: the reason.
  std::string summary;
  std::vector<Finding> findings;
  Evidence evidence;  // observed values, kept on pass too
  double duration_ms = 0;
  // Host path -> content that lets a recorded tree replay a live measurement (e.g. the measured
  // busy-core clock). `yardstick capture` writes these; they are not part of the run document.
  std::map<std::string, std::string> recordings;

  // Helpers for units. The outcome of a result with findings is derived by Finalize().
  static CheckResult Skip(std::string reason);
  static CheckResult Error(const Status& status);
  void Add(Finding f) { findings.push_back(std::move(f)); }
  void Note(std::string key, std::string value) {
    evidence.emplace_back(std::move(key), std::move(value));
  }
  // Sets outcome from the findings unless the unit already chose skip or error.
  void Finalize();
  // What a runner does to every unit's result: sets the id, turns a finding code that is not in
  // the table into an error, keeps messages printable (they may quote bytes of a malformed host
  // file) and short, and calls Finalize().
  void Seal(std::string_view id);
};

struct SampleStats {
  int64_t n = 0;
  double min = 0, median = 0, max = 0, mean = 0, stdev = 0;
  bool operator==(const SampleStats&) const = default;
};
SampleStats ComputeStats(std::vector<double> samples);
// The median (the mean of the two middle values for an even count); 0 for no values. O(n).
double MedianOf(std::vector<double> values);

enum class Better { kHigher, kLower };

struct Measurement {
  std::string name;  // "coll.all_gather.busbw", "cpu.busy_clock"
  double value = 0;
  std::string unit;  // "MHz", "GB/s"
  Better better = Better::kHigher;
  std::map<std::string, std::string> params;
  SampleStats stats;
  std::vector<double> samples;
};

// A table as a benchmark prints it (the nccl-tests size sweep, STREAM's four kernels). Derived
// from the measurements; kept so that the console, the JSON and the HTML report show the same.
struct ResultTable {
  std::string title;
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;  // each row has columns.size() cells
  std::vector<std::string> footer;             // "# Avg bus bandwidth    : 11.2 GB/s"
  bool operator==(const ResultTable&) const = default;
};

// The result of one benchmark unit: a check result (outcome, summary or skip reason, evidence,
// findings such as a failed data check) plus what it measured.
struct BenchmarkResult : CheckResult {
  std::vector<Measurement> measurements;
  std::vector<ResultTable> tables;

  static BenchmarkResult Skip(std::string reason);
  static BenchmarkResult Error(const Status& status);
};

struct HostInfo {
  std::string hostname;
  std::string kernel;
  std::string arch;
  std::string root;  // "/" or the fixture tree the run read
  std::string cpu_model;
  int logical_cpus = 0;
  // Where the GPU units' state came from: "nvml" (live), "recorded: FILE", or "none: <why>".
  // Empty when no unit looked at the GPUs (then neither key is written).
  std::string gpu_source;
  std::string gpu_driver;  // NVIDIA driver version, "550.127.05"; empty when unknown
};

struct ToolInfo {
  std::string name = "yardstick";
  std::string version;
  std::string build_type;
  std::string compiler;
};

// One node of a multi-rank run: the checks and node-local benchmarks its first rank ran.
struct NodeReport {
  std::string hostname;
  std::vector<int> ranks;  // every rank of the job on this node
  std::vector<CheckResult> checks;
  std::vector<BenchmarkResult> benchmarks;
};

// One rank of a multi-rank run and how it ended.
struct RankStatus {
  int rank = 0;
  std::string hostname;
  int local_rank = 0;
  std::string state = "ok";  // "ok"; "lost": stopped answering (died or hung); "unknown"
  std::string detail;        // for a lost rank: when and how it was noticed
};

// What `yardstick diagnose` concludes (docs/design.md §diagnosis): a cause, the evidence it
// rests on, how sure it is, the fix, and what the fix is expected to recover. Made by the typed
// rules of the diagnose layer; kept in the run document so a report and a later reader see the
// same ranking.
enum class Confidence { kLow = 0, kMedium = 1, kHigh = 2 };
const char* ConfidenceName(Confidence c);
std::optional<Confidence> ParseConfidence(std::string_view name);

// Expected recovery as a share of throughput (0.12: the workload runs 12% faster once fixed),
// a range because the published cases give ranges; `basis` says where the figures come from
// (a published case, a measured share of stolen CPU time, a score gap).
struct Recovery {
  double low = 0;
  double high = 0;
  std::string basis;
  // Why the figures are estimates rather than measured on the workload they speak for (a
  // scaled-down proxy on this machine's CPUs); empty when they are. Estimates are printed to two
  // significant figures: the evidence cannot support a tenth of a percent.
  std::string estimate;
  double Midpoint() const { return (low + high) / 2; }
  bool operator==(const Recovery&) const = default;
};

struct Diagnosis {
  std::string rule;    // stable id: "host.core_sharing"
  std::string layer;   // "host", "virtualisation", "container", "fabric", "gpu", "workload"
  std::string cause;   // one line
  std::string entity;  // "node", "cpu0-1", "gpu3", "node7", "coll.all_reduce"
  Evidence evidence;   // what the rule used, key -> observed value
  Confidence confidence = Confidence::kMedium;
  std::string fix;  // a concrete command or setting
  Recovery recovery;
  std::vector<std::string> finding_codes;  // the findings it rests on, if any
  std::string reference;
  bool operator==(const Diagnosis&) const = default;
};

inline constexpr int kRunSchemaVersion = 1;

// One invocation.
struct RunDocument {
  int schema_version = kRunSchemaVersion;
  std::string command;     // "preflight", "run"
  std::string started_at;  // UTC, ISO 8601
  double duration_ms = 0;
  bool incomplete = false;
  std::string incomplete_reason;  // why, when incomplete: "rank 2 on node7 stopped answering ..."
  ToolInfo tool;
  HostInfo host;
  std::vector<std::string> warnings;  // conditions that make numbers untrustworthy
  std::vector<CheckResult> checks;
  std::vector<Measurement> measurements;
  std::vector<BenchmarkResult> benchmarks;  // single node: all; multi-rank: the job-wide ones
  // Multi-rank runs only (empty for one process): every rank, and per node what ran there.
  std::vector<RankStatus> ranks;
  std::vector<NodeReport> nodes;
  // Ranked by expected recovery, largest first; empty when nothing was diagnosed (or diagnosis
  // did not run: `diagnosis_ran` tells the two apart).
  std::vector<Diagnosis> diagnosis;
  bool diagnosis_ran = false;
  // `yardstick burnin` only: faults, stability, MTBF and availability, a section the burn-in
  // report's layer defines (burnin_report/burnin_section.h: BurninOf, SetBurnin).
  std::shared_ptr<const RunSection> burnin;

  // Every unit result: checks, benchmarks, then each node's checks and benchmarks.
  std::vector<const CheckResult*> AllUnits() const;
  // Worst outcome over all units (pass when there are none).
  Outcome Verdict() const;
  std::map<Outcome, int> Counts() const;
};

// A new document for `command`: started_at now, the tool's version and build, and the warning
// that a debug build's timings are not representative. The caller fills host and results.
RunDocument StartRunDocument(std::string command);

// "2026-11-29T16:40:03Z"
std::string UtcNowIso8601();

}  // namespace ys

#endif  // YARDSTICK_CORE_RUN_DOCUMENT_H_
