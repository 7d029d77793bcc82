#include "diagnose/engine.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <map>
#include <nlohmann/json.hpp>

#include "core/text.h"
#include "core/unit_runner.h"
#include "core/validation_document.h"

namespace ys::diagnose {

namespace {

// Whether a diagnosis rests on the workload `id`: its entity, an evidence key or value names it.
bool RestsOn(const Diagnosis& d, const std::string& id) {
  if (d.entity.find(id) != std::string::npos) return true;
  for (const auto& [key, value] : d.evidence) {
    if (key.find(id) != std::string::npos || value.find(id) != std::string::npos) return true;
  }
  return false;
}

// A diagnosis resting on a proxy's measurements speaks for the proxy: a scaled-down model on this
// machine's CPUs. Its recovery is the proxy's, an estimate for the real recipe.
void MarkProxyEstimates(const DiagnosisInput& in, std::vector<Diagnosis>& found) {
  for (const WorkloadEvidence& w : in.workloads) {
    if (!StartsWith(w.source, "proxy measurement ")) continue;
    for (Diagnosis& d : found) {
      if (!d.recovery.estimate.empty() || !RestsOn(d, w.id)) continue;
      d.recovery.estimate = fmt::format(
          "measured on {}, a scaled-down proxy of the model on this machine's CPUs: the recovery "
          "is the proxy's, an estimate for the real recipe",
          w.id);
    }
  }
}

}  // namespace

DiagnosisReport Diagnose(const DiagnosisInput& in) {
  DiagnosisReport report;
  for (const RegisteredUnit* r : UnitRegistry::Global().List(UnitKind::kRule)) {
    ++report.rules_run;
    // The one runner's guard: a rule declares no need the evidence could answer, so a declared
    // one refuses it with the reason; an exception is that rule's alone.
    std::optional<UnitStop> stop = GuardUnit(r->info, UnitGate{}, [&] {
      std::unique_ptr<Unit> made = r->factory();
      const auto* rule = dynamic_cast<const Rule*>(made.get());
      if (rule == nullptr) {
        report.not_evaluated.push_back(fmt::format("{}: not a diagnosis rule", r->info.id));
        return;
      }
      std::vector<Diagnosis> found = rule->Evaluate(in);
      for (auto& d : found) report.ranked.push_back(std::move(d));
      for (const auto& why : rule->Unjudged(in)) {
        report.not_evaluated.push_back(fmt::format("{}: {}", r->info.id, why));
      }
    });
    if (stop) {
      report.not_evaluated.push_back(
          fmt::format("{}: {}", r->info.id,
                      stop->refused      ? stop->status.message()
                      : stop->thrown_std ? stop->thrown
                                         : std::string("failed with an unknown exception")));
    }
  }
  MarkProxyEstimates(in, report.ranked);
  // Largest expected recovery first; a quantified diagnosis before one that is not; then the
  // surer one; then by id, entity and cause so that the order never depends on rule order.
  std::stable_sort(report.ranked.begin(), report.ranked.end(),
                   [](const Diagnosis& a, const Diagnosis& b) {
                     bool qa = !IsNotQuantified(a.recovery), qb = !IsNotQuantified(b.recovery);
                     if (qa != qb) return qa;
                     if (a.recovery.Midpoint() != b.recovery.Midpoint()) {
                       return a.recovery.Midpoint() > b.recovery.Midpoint();
                     }
                     if (a.confidence != b.confidence) return a.confidence > b.confidence;
                     if (a.rule != b.rule) return a.rule < b.rule;
                     if (a.entity != b.entity) return a.entity < b.entity;
                     return a.cause < b.cause;
                   });
  return report;
}

namespace {

constexpr std::string_view kProxyPrefix = "proxy.";

// "proxy.llama3.1_8b.step_time" -> "proxy.llama3.1_8b" for quantity "step_time".
std::optional<std::string> ProxyId(std::string_view name, std::string_view quantity) {
  std::string suffix = "." + std::string(quantity);
  if (!StartsWith(name, kProxyPrefix) || name.size() <= kProxyPrefix.size() + suffix.size()) {
    return std::nullopt;
  }
  if (name.substr(name.size() - suffix.size()) != suffix) return std::nullopt;
  return std::string(name.substr(0, name.size() - suffix.size()));
}

// The proxies of one benchmark result (normally one): its measurements by quantity.
void AddProxies(const BenchmarkResult& b, const std::string& node, bool several_nodes,
                std::map<std::string, WorkloadEvidence>& out) {
  auto workload = [&](const std::string& id) -> WorkloadEvidence& {
    std::string key = several_nodes ? id + " on " + node : id;
    WorkloadEvidence& w = out[key];
    if (w.id.empty()) {
      w.id = key;
      w.source = "proxy measurement " + id + ".step_time";
      for (const auto& [k, v] : b.evidence) {
        if (StartsWith(k, "foreign_process.")) w.foreign_processes.push_back(v);
      }
    }
    return w;
  };
  std::map<std::string, std::vector<workloads::StepSample>> ranked;
  for (const Measurement& m : b.measurements) {
    if (auto id = ProxyId(m.name, "step_time")) {
      WorkloadEvidence& w = workload(*id);
      if (w.steps.empty() || !w.steps.front().rank) {
        w.steps.clear();
        for (double s : m.samples) w.steps.push_back({s, std::nullopt});
      }
    } else if (auto id = ProxyId(m.name, "rank_step_time")) {
      auto rank = m.params.find("rank");
      if (rank == m.params.end()) continue;
      auto r = ParseInt(rank->second);
      if (!r) continue;
      for (double s : m.samples) ranked[*id].push_back({s, static_cast<int>(*r)});
    } else if (auto id = ProxyId(m.name, "predicted_step_time")) {
      workload(*id).predicted_step_s = m.value;
    } else if (auto id = ProxyId(m.name, "foreign_cpu_share")) {
      workload(*id).foreign_cpu_share = m.value;
    } else if (auto id = ProxyId(m.name, "model_tflops_per_gpu")) {
      auto pct = m.params.find("pct_of_peak");
      if (pct == m.params.end()) continue;
      if (auto v = ParseDouble(pct->second); v && std::isfinite(*v)) workload(*id).mfu = *v / 100;
    }
  }
  // Per-rank series, when the proxy kept them, say which rank is slow; they replace the job series
  // (whose step k is the slowest rank's step k, which the analysis recomputes).
  for (auto& [id, samples] : ranked) workload(id).steps = std::move(samples);
}

// The serving phases that did not pass, each with what its folder under `runs_dir` holds.
void AddServingPhases(const ValidationDocument& v, const std::string& runs_dir,
                      std::vector<ServingPhaseEvidence>& out) {
  for (const ValidationPhase& row : v.phases) {
    if (row.outcome != "fail" && row.outcome != "inconclusive") continue;
    out.push_back(ReadServingPhaseEvidence(row, runs_dir.empty() ? "" : runs_dir + "/" + row.id));
    out.back().threshold = v.threshold;
  }
}

Status AddValidation(const nlohmann::json& doc, const std::string& runs_dir,
                     std::vector<WorkloadEvidence>& out,
                     std::vector<ServingPhaseEvidence>& serving) {
  auto v = ValidationDocumentFromJson(doc, "validation document");
  if (!v.ok()) return v.status();
  AddServingPhases(*v, runs_dir, serving);
  for (const ValidationWorkload& row : v->workloads) {
    WorkloadEvidence w;
    w.id = row.id;
    w.source = row.log.empty() ? "validation workload " + w.id : "log " + row.log;
    w.threshold = v->threshold;
    w.score = row.score;
    w.fixed_recipe = true;
    w.mfu = row.mfu;
    // The reference's MFU at the same shape: MFU scales with TFLOPS/GPU at a fixed peak.
    if (w.mfu && row.measured_tflops_per_gpu && row.reference_tflops_per_gpu &&
        *row.measured_tflops_per_gpu > 0) {
      // Not shown when it is not a finite figure (a denormal measured TFLOPS divides to inf).
      double reference_mfu = *w.mfu * *row.reference_tflops_per_gpu / *row.measured_tflops_per_gpu;
      if (std::isfinite(reference_mfu)) w.reference_mfu = reference_mfu;
    }
    for (double s : row.step_times_s) w.steps.push_back({s, std::nullopt});
    out.push_back(std::move(w));
  }
  return Status::Ok();
}

}  // namespace

Result<DiagnosisInput> DiagnosisInputFor(const RunDocument* run, const nlohmann::json* validation,
                                         std::string data_dir, const std::string& runs_dir) {
  DiagnosisInput in;
  in.run = run;
  in.data_dir = std::move(data_dir);
  if (run != nullptr) {
    std::map<std::string, WorkloadEvidence> proxies;
    for (const auto& b : run->benchmarks) AddProxies(b, run->host.hostname, false, proxies);
    for (const auto& n : run->nodes) {
      for (const auto& b : n.benchmarks) AddProxies(b, n.hostname, run->nodes.size() > 1, proxies);
    }
    for (auto& [id, w] : proxies) in.workloads.push_back(std::move(w));
  }
  if (validation != nullptr) {
    YS_RETURN_IF_ERROR(AddValidation(*validation, runs_dir, in.workloads, in.serving));
  }
  for (auto& w : in.workloads) {
    if (w.steps.size() < 4) continue;  // too few steps to say anything about their spread
    auto a = workloads::AnalyzeStepTimes(w.steps);
    if (a.ok()) w.analysis = std::move(*a);
  }
  return in;
}

}  // namespace ys::diagnose
