// Diagnosis rules: typed functions from evidence to a cause, its fix and what the fix is expected
// to recover (docs/design.md §diagnosis). No string evaluation: a rule is C++ over the run
// document's findings and measurements, the step-time series of the workloads (proxies and ingested
// logs) and the validation scores.
//
// A rule is one file under src/diagnose/rules/, registered in one line:
//
//   YS_REGISTER(SmmuCmdqvRule, {.id = "virt.smmu_cmdqv", .summary = "..."});
//
// Evaluate() returns zero or more Diagnoses (zero: the rule does not apply, or its evidence is
// absent: a rule never guesses). It must not throw; the engine turns anything thrown into a
// "not evaluated" line for that rule alone. Rules are stateless and const.
//
// Expected recovery is a share of throughput (0.12 = 12% faster once fixed). Where a published
// case gives the figure (the four Exemplar cases), the rule uses it and says so in `basis`;
// where the evidence measures it (a share of CPU time taken by another process, a score gap), the
// rule computes it and says how.
#ifndef YARDSTICK_DIAGNOSE_RULE_H_
#define YARDSTICK_DIAGNOSE_RULE_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/registry.h"
#include "core/run_document.h"
#include "diagnose/serving_evidence.h"
#include "workloads/step_time.h"

namespace ys::diagnose {

// One workload's step times and scores: a proxy measured by this run, or a recipe log ingested
// by `validate` / `ingest`.
struct WorkloadEvidence {
  std::string id;      // "proxy.llama3.1_8b", "pretrain_llama3.1_70b_fp8"
  std::string source;  // "proxy measurement proxy.llama3.1_8b.step_time", "log /runs/.../log.txt"
  std::vector<workloads::StepSample> steps;             // in step order; may be empty
  std::optional<workloads::StepTimeAnalysis> analysis;  // of `steps` (filled by the engine)
  std::optional<double> predicted_step_s;               // a proxy's roofline prediction
  std::optional<double> score;          // validation: reference step time / measured
  std::optional<double> threshold;      // the suite's pass threshold (0.95)
  std::optional<double> mfu;            // measured model FLOPs utilisation, 0..1
  std::optional<double> reference_mfu;  // the reference's MFU at the same shape
  // Validated against a suite's reference: the suite fixes the recipe (parallelism, micro batch,
  // recompute), so tuning them is not a fix the operator can make.
  bool fixed_recipe = false;
  // A proxy's share of the job cores' CPU time that processes outside the job took while it ran
  // (0..1), and those processes ("pid 4242 (stress) on cpus 0-1: 46%"), largest first.
  std::optional<double> foreign_cpu_share;
  std::vector<std::string> foreign_processes;
};

// Everything the rules may read. Borrowed; the caller keeps it alive while rules run.
struct DiagnosisInput {
  const RunDocument* run = nullptr;  // run / preflight / bench document; may be null
  std::vector<WorkloadEvidence> workloads;
  // The serving phases of a validation document that did not pass, with what their folders hold.
  std::vector<ServingPhaseEvidence> serving;
  std::string data_dir;  // holds specs/ (physical peaks), models/
};

// Every finding of the run document (job-wide units and each node's), with where it came from.
struct LocatedFinding {
  const Finding* finding;
  const CheckResult* unit;
  std::string node;  // hostname of the node section; the document's host for job-wide units
};
std::vector<LocatedFinding> FindingsWithCode(const DiagnosisInput& in, std::string_view code);
// Every measurement of the run document whose name matches the glob, with its node.
struct LocatedMeasurement {
  const Measurement* measurement;
  std::string node;
};
std::vector<LocatedMeasurement> MeasurementsMatching(const DiagnosisInput& in,
                                                     std::string_view glob);

// Helpers shared by the rules (one place for each piece of arithmetic and wording).

// Findings with any of `codes`, in document order.
std::vector<LocatedFinding> FindingsWithAnyCode(const DiagnosisInput& in,
                                                const std::vector<std::string_view>& codes);
// A diagnosis resting on `found` (non-empty): finding codes (sorted, unique), evidence (each
// finding's message under "CODE node/entity", then its own evidence), and the first finding's
// entity, fix and reference. The rule sets cause, recovery and confidence.
Diagnosis DiagnosisFromFindings(std::string_view rule, std::string_view layer,
                                const std::vector<LocatedFinding>& found);
// The value of `key` in `evidence`, if present.
std::optional<std::string> EvidenceValue(const Evidence& evidence, std::string_view key);
// "12.3%" -> 0.123; nullopt unless the text is a finite number followed by '%'.
std::optional<double> ParsePercent(std::string_view text);
// 0.123 -> "12.3%".
std::string Percent(double share);
// What closing a gap (or giving back a share of the time) is worth in throughput: a step that
// runs at (1 - share) of its speed recovers 1 / (1 - share) - 1 once fixed. share in [0, 1).
double RecoveryFromShare(double share);
// A published figure (or range) with the case it comes from.
Recovery Published(double low, double high, std::string basis);
// The evidence shows the cause but not what fixing it is worth for the workload: 0..0 with why.
// Ranked after every quantified diagnosis.
Recovery NotQuantified(std::string why);
bool IsNotQuantified(const Recovery& r);

// Step-time symptoms, as the rules quote them (workloads/step_time.h defines each verdict).
// A tail: p99 at least kTailRatio x the median, or a coefficient of variation of at least kTailCv.
inline constexpr double kTailRatio = 1.2;
inline constexpr double kTailCv = 0.1;
bool HasTail(const workloads::StepTimeAnalysis& a);
// "median 1.203 s, p99 1.951 s (1.62x), CV 0.18" for evidence.
std::string DescribeSpread(const workloads::StepTimeAnalysis& a);
// "12 spikes of +61 ms every 10 steps"
std::string DescribeStalls(const workloads::StepTimeAnalysis& a);
// Step times slowing down over the run (drift beyond noise, upwards), and what going back to the
// first steps' pace recovers: the run ended p slower than it began and averaged p / 2 slower, so
// p / 2 .. p (w must have an analysis).
bool SlowingDown(const workloads::StepTimeAnalysis& a);
Recovery DriftRecovery(const WorkloadEvidence& w);
// The least evidence a rule that extrapolates from step times needs before it speaks; below it the
// rule says "too few steps" (Unjudged) instead of a cause (docs/verdict.md "Too few steps").
// Drift: a slope quoted per 100 steps from n steps multiplies the steps' noise by about 100 / n,
// and Theil-Sen needs some 30 points before its slope is steadier than the noise floor.
inline constexpr int kMinDriftSteps = 30;
// Periodic stalls: three spikes at least, and enough steps for three periods of a
// ten-step cadence (checkpoints, logging).
inline constexpr int kMinStallSteps = 30;
// Slow rank: every rank's median over at least this many of its own steps.
inline constexpr int kMinRankSteps = 10;
// The steps behind `a`: the job series, or for `per_rank` the fewest steps of any rank.
int StepsBehind(const workloads::StepTimeAnalysis& a, bool per_rank);
// For each analysed workload with fewer than `min_steps` steps: "proxy.x: too few steps to judge
// drift (8; at least 30 needed)". With `per_rank`, only workloads with rank ids count.
std::vector<std::string> TooFewSteps(const DiagnosisInput& in, int min_steps, std::string_view what,
                                     bool per_rank = false);
// Workloads whose analysis satisfies `pred`, in input order.
std::vector<const WorkloadEvidence*> WorkloadsWhere(
    const DiagnosisInput& in, const std::function<bool(const workloads::StepTimeAnalysis&)>& pred);

// Measured against a physical peak: the % of peak a benchmark stated (params pct_of_peak), or for
// an NCCL collective (params backend "nccl") on one node without it, busbw against the GPU's
// NVLink bandwidth per direction from specs/<chip>.toml under the data dir, the GPU matched by
// the params gpu_name of the node's GPU benchmarks.
struct PeakShare {
  const Measurement* measurement;
  std::string node;
  double share;             // of the peak, 0..
  std::string peak_source;  // where the peak came from
};
// Collective bus bandwidth at the largest size each collective measured, when that size is at
// least kMinCollectiveBytes (below it latency, not bandwidth, bounds busbw), where a peak is known.
// MPI collectives on CPUs carry no stated peak and are left out: nothing to judge them against.
inline constexpr double kMinCollectiveBytes = 64.0 * 1024 * 1024;
std::vector<PeakShare> CollectivePeakShares(const DiagnosisInput& in);
// GEMM rates with a stated pct_of_peak (gemm.*).
std::vector<PeakShare> GemmPeakShares(const DiagnosisInput& in);

class Rule : public Unit {
 public:
  static constexpr UnitKind kKind = UnitKind::kRule;
  virtual std::vector<Diagnosis> Evaluate(const DiagnosisInput& in) const = 0;
  // Evidence present that the rule cannot judge, and why ("coll.all_reduce (mpi): no stated peak
  // to judge its bus bandwidth against"): reported as "not evaluated" so that silence is not
  // mistaken for health. Most rules judge everything they read.
  virtual std::vector<std::string> Unjudged(const DiagnosisInput& /*in*/) const { return {}; }
};

}  // namespace ys::diagnose

#endif  // YARDSTICK_DIAGNOSE_RULE_H_
