#include "diagnose/rule.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>

#include "bench/device_specs.h"
#include "core/text.h"

namespace ys::diagnose {

namespace {

// Every unit of the document with the node it ran on: job-wide units under the document's host.
template <typename Fn>
void ForEachUnit(const RunDocument& doc, Fn&& fn) {
  for (const auto& c : doc.checks) fn(c, doc.host.hostname);
  for (const auto& b : doc.benchmarks) fn(b, doc.host.hostname);
  for (const auto& n : doc.nodes) {
    for (const auto& c : n.checks) fn(c, n.hostname);
    for (const auto& b : n.benchmarks) fn(b, n.hostname);
  }
}

template <typename Fn>
void ForEachMeasurementIn(const RunDocument& doc, Fn&& fn) {
  for (const auto& m : doc.measurements) fn(m, doc.host.hostname);
  for (const auto& b : doc.benchmarks) {
    for (const auto& m : b.measurements) fn(m, doc.host.hostname);
  }
  for (const auto& n : doc.nodes) {
    for (const auto& b : n.benchmarks) {
      for (const auto& m : b.measurements) fn(m, n.hostname);
    }
  }
}

}  // namespace

std::vector<LocatedFinding> FindingsWithCode(const DiagnosisInput& in, std::string_view code) {
  return FindingsWithAnyCode(in, {code});
}

std::vector<LocatedFinding> FindingsWithAnyCode(const DiagnosisInput& in,
                                                const std::vector<std::string_view>& codes) {
  std::vector<LocatedFinding> out;
  if (in.run == nullptr) return out;
  ForEachUnit(*in.run, [&](const CheckResult& unit, const std::string& node) {
    for (const auto& f : unit.findings) {
      if (std::find(codes.begin(), codes.end(), f.code) != codes.end()) {
        out.push_back({&f, &unit, node});
      }
    }
  });
  return out;
}

std::vector<LocatedMeasurement> MeasurementsMatching(const DiagnosisInput& in,
                                                     std::string_view glob) {
  std::vector<LocatedMeasurement> out;
  if (in.run == nullptr) return out;
  ForEachMeasurementIn(*in.run, [&](const Measurement& m, const std::string& node) {
    if (GlobMatch(glob, m.name)) out.push_back({&m, node});
  });
  return out;
}

Diagnosis DiagnosisFromFindings(std::string_view rule, std::string_view layer,
                                const std::vector<LocatedFinding>& found) {
  Diagnosis d;
  d.rule = std::string(rule);
  d.layer = std::string(layer);
  std::set<std::string> codes;
  std::set<std::string> nodes;
  for (const auto& lf : found) nodes.insert(lf.node);
  for (const auto& lf : found) {
    const Finding& f = *lf.finding;
    codes.insert(f.code);
    // The node matters only when the document has several.
    std::string where = nodes.size() > 1 ? lf.node + "/" + f.entity : f.entity;
    d.evidence.emplace_back(f.code + " " + where, f.message);
    for (const auto& e : f.evidence) d.evidence.push_back(e);
  }
  d.finding_codes.assign(codes.begin(), codes.end());
  if (!found.empty()) {
    const LocatedFinding& first = found.front();
    d.entity = nodes.size() > 1 ? first.node + "/" + first.finding->entity : first.finding->entity;
    d.fix = first.finding->fix;
    d.reference = first.finding->reference;
  }
  return d;
}

std::optional<std::string> EvidenceValue(const Evidence& evidence, std::string_view key) {
  for (const auto& [k, v] : evidence) {
    if (k == key) return v;
  }
  return std::nullopt;
}

std::optional<double> ParsePercent(std::string_view text) {
  std::string t(Trim(text));
  if (t.empty() || t.back() != '%') return std::nullopt;
  t.pop_back();
  char* end = nullptr;
  double v = std::strtod(t.c_str(), &end);
  if (end == t.c_str() || *end != '\0' || !std::isfinite(v)) return std::nullopt;
  return v / 100;
}

std::string Percent(double share) { return fmt::format("{:.1f}%", 100 * share); }

double RecoveryFromShare(double share) {
  share = std::clamp(share, 0.0, 0.99);  // a share of 1 would be an infinite speed-up
  return 1 / (1 - share) - 1;
}

Recovery Published(double low, double high, std::string basis) {
  return {.low = low, .high = high, .basis = std::move(basis)};
}

Recovery NotQuantified(std::string why) {
  return {.low = 0, .high = 0, .basis = "not quantified: " + std::move(why)};
}

bool IsNotQuantified(const Recovery& r) {
  return r.low == 0 && r.high == 0 && StartsWith(r.basis, "not quantified");
}

bool HasTail(const workloads::StepTimeAnalysis& a) {
  return a.median_s > 0 && (a.p99_s / a.median_s >= kTailRatio || a.cv >= kTailCv);
}

std::string DescribeSpread(const workloads::StepTimeAnalysis& a) {
  return fmt::format("median {:.4g} s, p99 {:.4g} s ({:.2f}x the median), CV {:.3f} over {} steps",
                     a.median_s, a.p99_s, a.median_s > 0 ? a.p99_s / a.median_s : 0.0, a.cv,
                     a.steps);
}

std::string DescribeStalls(const workloads::StepTimeAnalysis& a) {
  std::string s =
      fmt::format("{} spikes of +{:.0f} ms", a.stalls.spikes, 1000 * a.stalls.typical_excess_s);
  if (a.stalls.period_steps) s += fmt::format(" every {:.1f} steps", *a.stalls.period_steps);
  return s;
}

bool SlowingDown(const workloads::StepTimeAnalysis& a) {
  return a.drift.drifting && a.drift.total_percent > 0;
}

Recovery DriftRecovery(const WorkloadEvidence& w) {
  double p = w.analysis->drift.total_percent / 100;
  return Published(
      p / 2, p,
      fmt::format("measured: {}'s step time rose {} over {} steps (Theil-Sen drift, "
                  "noise floor {:.1f}%): the run averaged half that slower than its "
                  "start and ended that much slower",
                  w.id, Percent(p), w.analysis->steps, w.analysis->drift.noise_floor_percent));
}

std::vector<const WorkloadEvidence*> WorkloadsWhere(
    const DiagnosisInput& in, const std::function<bool(const workloads::StepTimeAnalysis&)>& pred) {
  std::vector<const WorkloadEvidence*> out;
  for (const auto& w : in.workloads) {
    if (w.analysis && pred(*w.analysis)) out.push_back(&w);
  }
  return out;
}

int StepsBehind(const workloads::StepTimeAnalysis& a, bool per_rank) {
  if (!per_rank || a.ranks.empty()) return a.steps;
  int fewest = a.ranks.front().steps;
  for (const auto& r : a.ranks) fewest = std::min(fewest, r.steps);
  return fewest;
}

std::vector<std::string> TooFewSteps(const DiagnosisInput& in, int min_steps, std::string_view what,
                                     bool per_rank) {
  std::vector<std::string> out;
  for (const auto& w : in.workloads) {
    if (!w.analysis || (per_rank && w.analysis->ranks.empty())) continue;
    int n = StepsBehind(*w.analysis, per_rank);
    if (n >= min_steps) continue;
    out.push_back(fmt::format("{}: too few steps to judge {} ({}{}; at least {} needed)", w.id,
                              what, n, per_rank ? " per rank" : "", min_steps));
  }
  return out;
}

namespace {

std::optional<double> StatedShare(const Measurement& m) {
  auto it = m.params.find("pct_of_peak");
  if (it == m.params.end()) return std::nullopt;
  auto v = ParseDouble(it->second);
  if (!v || !std::isfinite(*v) || *v < 0) return std::nullopt;
  return *v / 100;
}

std::string Param(const Measurement& m, const std::string& key) {
  auto it = m.params.find(key);
  return it == m.params.end() ? "" : it->second;
}

// The GPU model on `node`, as the GPU benchmarks name it (params gpu_name, the CUDA device name);
// collectives do not record it. "" when no GPU unit ran there.
std::string GpuNameOn(const DiagnosisInput& in, const std::string& node) {
  for (const auto& lm : MeasurementsMatching(in, "*")) {
    if (lm.node != node) continue;
    if (std::string name = Param(*lm.measurement, "gpu_name"); !name.empty()) return name;
  }
  return "";
}

}  // namespace

std::vector<PeakShare> CollectivePeakShares(const DiagnosisInput& in) {
  // The largest size of each collective (and node, for per-node runs).
  std::map<std::string, std::vector<LocatedMeasurement>> by_collective;
  for (const auto& lm : MeasurementsMatching(in, "coll.*.busbw")) {
    if (lm.measurement->params.count("pair")) continue;  // pairwise: one pair, not the job's ring
    by_collective[lm.measurement->name + "@" + lm.node].push_back(lm);
  }
  bool one_node = in.run != nullptr && in.run->nodes.size() <= 1;
  std::vector<PeakShare> out;
  for (auto& [key, list] : by_collective) {
    double largest = 0;
    for (const auto& lm : list)
      largest = std::max(largest, ParseDouble(Param(*lm.measurement, "size")).value_or(0));
    if (largest < kMinCollectiveBytes) continue;
    for (const auto& lm : list) {
      const Measurement& m = *lm.measurement;
      if (ParseDouble(Param(m, "size")).value_or(0) != largest) continue;
      if (auto s = StatedShare(m)) {
        out.push_back({&m, lm.node, *s, Param(m, "peak_source")});
      } else if (Param(m, "backend") == "nccl" && one_node) {
        std::string gpu = GpuNameOn(in, lm.node);
        if (gpu.empty()) continue;
        auto spec = bench::FindDeviceSpec(in.data_dir, gpu);
        if (!spec.ok()) continue;
        auto peak = bench::PeakNvlinkPerDirectionGBps(*spec);
        if (!peak || peak->value <= 0) continue;
        out.push_back({&m, lm.node, m.value / peak->value, peak->source});
      }
    }
  }
  return out;
}

std::vector<PeakShare> GemmPeakShares(const DiagnosisInput& in) {
  std::vector<PeakShare> out;
  for (const auto& lm : MeasurementsMatching(in, "gemm.*")) {
    if (auto s = StatedShare(*lm.measurement)) {
      out.push_back({lm.measurement, lm.node, *s, Param(*lm.measurement, "peak_source")});
    }
  }
  return out;
}

}  // namespace ys::diagnose
