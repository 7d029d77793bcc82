#include "validate/serving_score.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "validate/serving_validity.h"

namespace ys::validate {
namespace {

// A point's interactivity: the tool's output tokens/s per user, else 1000 / mean TPOT (the
// per-user decode rate).
std::optional<double> PerUserOf(const ServingPoint& p) {
  if (p.output_tokens_per_s_per_user) return p.output_tokens_per_s_per_user;
  if (auto tpot = StatOf(p.tpot_ms, "mean"); tpot && *tpot > 0) return 1000 / *tpot;
  return std::nullopt;
}

ScoredMetric Compare(std::string key, std::string stat, std::string name, std::string unit,
                     bool larger_is_better, std::optional<double> measured,
                     std::optional<double> reference, double threshold) {
  ScoredMetric m{.key = std::move(key),
                 .stat = std::move(stat),
                 .name = std::move(name),
                 .unit = std::move(unit),
                 .larger_is_better = larger_is_better,
                 .measured = measured,
                 .reference = reference};
  if (!reference) {
    m.note = "the reference gives none";
    return m;
  }
  if (!measured || *measured <= 0) {
    m.note = "the run's files give none";
    return m;
  }
  m.score = larger_is_better ? *measured / *reference : *reference / *measured;
  m.outcome = *m.score > threshold ? PhaseOutcome::kPass : PhaseOutcome::kFail;
  return m;
}

// The per-GPU throughput of a point, over the GPUs the reference divides by; or why not.
struct PerGpu {
  std::optional<double> value;
  std::string problem;
};
PerGpu PerGpuOf(const ServingPoint& p, const ServingPhase& phase, const ServingReference& ref) {
  if (!p.output_throughput) return {std::nullopt, "the file gives no output token throughput"};
  if (ref.gpu_denominator != phase.gpu_denominator) {
    return {std::nullopt,
            fmt::format("the reference divides by {}, the phase by {}: not the same per-GPU "
                        "figure",
                        ref.gpu_denominator, phase.gpu_denominator)};
  }
  int gpus = phase.gpus;
  if (ref.gpu_denominator == "decode GPUs") {
    if (!phase.disaggregated()) {
      return {std::nullopt, "the reference counts decode GPUs; the phase is not disaggregated"};
    }
    gpus = phase.decode_workers * phase.decode_tp;
  }
  if (p.gpus && *p.gpus != gpus) {
    return {std::nullopt,
            fmt::format("the file says {} GPUs{} served it; the reference's "
                        "denominator is {} ({})",
                        *p.gpus, p.gpu_denominator.empty() ? "" : " (" + p.gpu_denominator + ")",
                        gpus, ref.gpu_denominator)};
  }
  return {*p.output_throughput / gpus, ""};
}

// Why a point's requests do not show a complete phase: fewer completed than the phase sends, or
// no count at all (lost requests cannot be ruled out); "" when they do. LoadGen's VALID covers
// its own query count.
std::string RequestProblem(const ServingPoint& p, const ServingPhase& phase) {
  if (p.loadgen_valid == true) return {};
  if (!p.completed) {
    return "the file does not say how many requests completed: lost requests cannot be ruled out";
  }
  if (!p.num_prompts && *p.completed < phase.requests) {
    return fmt::format("{} requests completed of the {} the phase sends", *p.completed,
                       phase.requests);
  }
  return {};
}

// Why a point is not of this phase (its lengths, its mode), or "".
std::string ShapeProblem(const ServingPoint& p, const ServingPhase& phase,
                         const ServingReference& ref) {
  auto off = [](double got, int want) { return std::abs(got - want) > 0.1 * want; };
  if ((p.isl_asked && *p.isl_asked != phase.isl) || (p.osl_asked && *p.osl_asked != phase.osl)) {
    return fmt::format("asked ISL/OSL {}/{}, the phase is {}/{}",
                       p.isl_asked ? fmt::format("{:g}", *p.isl_asked) : "?",
                       p.osl_asked ? fmt::format("{:g}", *p.osl_asked) : "?", phase.isl, phase.osl);
  }
  if (auto isl = StatOf(p.isl_tokens, "mean"); isl && off(*isl, phase.isl)) {
    return fmt::format(
        "inputs average {:.0f} tokens, the phase's ISL is {}: another phase was "
        "measured",
        *isl, phase.isl);
  }
  if (auto osl = StatOf(p.osl_tokens, "mean"); osl && *osl > 1.1 * phase.osl) {
    return fmt::format(
        "outputs average {:.0f} tokens, the phase's OSL is {}: another phase was "
        "measured",
        *osl, phase.osl);
  }
  const bool ref_offline = ref.mode == "offline";
  if (p.mode == ServingMode::kOffline && !ref_offline) {
    return "an offline max-throughput run (every request queued at once) against a serving "
           "reference: its throughput and TTFT are not serving figures";
  }
  if (ref_offline && (p.mode == ServingMode::kServing || p.mode == ServingMode::kLatency)) {
    return "a serving run against an offline max-throughput reference";
  }
  return {};
}

ServingLimits LimitsOf(const ServingPhase& phase) {
  ServingLimits l;
  l.ttft_limit_ms = phase.ttft_limit_ms;
  return l;
}

// Why a point is not a measure of this phase to compare: its flaws under the phase's limits, its
// requests, its shape; "" when it is one.
std::string WhyRefused(const ServingPoint& p, const ServingPhase& phase,
                       const ServingReference& ref) {
  std::string why = DescribeFlaws(FindServingFlaws(p, LimitsOf(phase)));
  if (why.empty()) why = RequestProblem(p, phase);
  if (why.empty()) why = ShapeProblem(p, phase, ref);
  return why;
}

// The measured figures at the reference's point: one point's, or interpolated on the sweep.
struct AtReference {
  std::optional<double> per_gpu, ttft, tpot, per_user;
  std::vector<const ServingPoint*> used;  // the point compared, or the two interpolated between
  std::string note;
  std::string problem;
};

AtReference Interpolate(const std::vector<std::pair<const ServingPoint*, double>>& curve,
                        const ServingPhase& phase, const ServingReference& ref) {
  AtReference out;
  const double u = *ref.tokens_per_s_per_user;
  for (size_t i = 0; i + 1 < curve.size(); ++i) {
    auto [a, ua] = curve[i];
    auto [b, ub] = curve[i + 1];
    if (u < ua || u > ub || ub <= ua) continue;
    const double f = (u - ua) / (ub - ua);
    auto lerp = [&](std::optional<double> x, std::optional<double> y) -> std::optional<double> {
      if (!x || !y) return std::nullopt;
      return *x + f * (*y - *x);
    };
    PerGpu ga = PerGpuOf(*a, phase, ref), gb = PerGpuOf(*b, phase, ref);
    if (!ga.problem.empty() || !gb.problem.empty()) {
      out.problem = ga.problem.empty() ? gb.problem : ga.problem;
      return out;
    }
    out.per_gpu = lerp(ga.value, gb.value);
    out.ttft = lerp(StatOf(a->ttft_ms, ref.ttft_stat), StatOf(b->ttft_ms, ref.ttft_stat));
    out.tpot = lerp(StatOf(a->tpot_ms, ref.tpot_stat), StatOf(b->tpot_ms, ref.tpot_stat));
    out.per_user = u;
    out.used = {a, b};
    out.note = fmt::format(
        "interpolated at the reference's {:.1f} tok/s/user between {} "
        "({:.1f}) and {} ({:.1f})",
        u, ServingPointName(*a), ua, ServingPointName(*b), ub);
    return out;
  }
  out.problem = fmt::format(
      "the reference's interactivity {:.1f} tok/s/user is outside the "
      "measured curve ({:.1f} to {:.1f})",
      u, curve.front().second, curve.back().second);
  return out;
}

// Picks the figures to compare from the valid points; `s.refused` gets the others.
AtReference FiguresAtReference(const std::vector<const ServingPoint*>& valid,
                               const ServingPhase& phase, const ServingReference& ref,
                               ScoredPhase& s) {
  std::vector<std::pair<const ServingPoint*, double>> curve;
  for (const ServingPoint* p : valid) {
    if (auto u = PerUserOf(*p)) curve.emplace_back(p, *u);
  }
  std::sort(curve.begin(), curve.end(), [](auto& x, auto& y) { return x.second < y.second; });
  if (ref.tokens_per_s_per_user && curve.size() >= 2) return Interpolate(curve, phase, ref);
  const ServingPoint* chosen = nullptr;
  for (const ServingPoint* p : valid) {
    const bool same = ref.concurrency == 0 ? p->mode == ServingMode::kOffline || valid.size() == 1
                                           : p->max_concurrency == ref.concurrency;
    if (same) chosen = p;
  }
  AtReference out;
  if (chosen == nullptr) {
    std::string measured;
    for (const ServingPoint* p : valid)
      measured += (measured.empty() ? "" : ", ") + ServingPointName(*p);
    out.problem = fmt::format("no valid measured point at the reference's {} (valid: {})",
                              ref.concurrency ? fmt::format("concurrency {}", ref.concurrency)
                                              : std::string("offline point"),
                              measured.empty() ? "none" : measured);
    return out;
  }
  s.point = *chosen;
  out.used = {chosen};
  out.per_user = PerUserOf(*chosen);
  PerGpu g = PerGpuOf(*chosen, phase, ref);
  out.problem = g.problem;
  out.per_gpu = g.value;
  out.ttft = StatOf(chosen->ttft_ms, ref.ttft_stat);
  out.tpot = StatOf(chosen->tpot_ms, ref.tpot_stat);
  return out;
}

// Every measured point as the rule saw it (the curve a report draws).
void SummarisePoints(const std::vector<ServingPoint>& points, const ServingPhase& phase,
                     const ServingReference& ref, const std::vector<const ServingPoint*>& used,
                     ScoredPhase& s) {
  for (const ServingPoint& p : points) {
    PhasePointSummary sum{.point = ServingPointName(p)};
    PerGpu g = PerGpuOf(p, phase, ref);
    sum.output_tokens_per_s_per_gpu = g.value;
    sum.tokens_per_s_per_user = PerUserOf(p);
    sum.ttft_ms = StatOf(p.ttft_ms, ref.ttft_stat);
    sum.tpot_ms = StatOf(p.tpot_ms, ref.tpot_stat);
    sum.used = std::find(used.begin(), used.end(), &p) != used.end();
    if (!sum.used) {
      sum.why = WhyRefused(p, phase, ref);
      if (sum.why.empty()) sum.why = !g.problem.empty() ? g.problem : "not the reference's point";
    }
    s.points.push_back(std::move(sum));
  }
}

void Conclude(ScoredPhase& s) {
  std::string failed, open, passed;
  for (const ScoredMetric& m : s.metrics) {
    std::string what = m.score ? fmt::format("{} {:.1f}%", m.name, 100 * *m.score)
                               : fmt::format("{} ({})", m.name, m.note);
    std::string& into = m.outcome == PhaseOutcome::kFail   ? failed
                        : m.outcome == PhaseOutcome::kPass ? passed
                                                           : open;
    into += (into.empty() ? "" : ", ") + what;
  }
  if (!failed.empty()) {
    s.outcome = PhaseOutcome::kFail;
    s.reason = "below the rule: " + failed;
  } else if (!open.empty()) {
    s.outcome = PhaseOutcome::kInconclusive;
    s.reason = "not compared: " + open + (passed.empty() ? "" : "; above it: " + passed);
  } else {
    s.outcome = PhaseOutcome::kPass;
    s.reason = "above the rule: " + passed;
  }
  if (s.reference && s.reference->provenance.kind == "proxy") {
    s.reason += " (against a public proxy, not an Exemplar reference)";
  }
}

}  // namespace

const char* PhaseOutcomeName(PhaseOutcome o) {
  switch (o) {
    case PhaseOutcome::kPass:
      return "pass";
    case PhaseOutcome::kFail:
      return "fail";
    case PhaseOutcome::kInconclusive:
      break;
  }
  return "inconclusive";
}

ScoredPhase ScoreServingPhase(const ServingPhase& phase, const ServingReference* ref,
                              const PhaseRun& run, double threshold) {
  ScoredPhase s{.phase = phase, .dir = run.dir, .files = run.files, .format = run.format};
  if (!run.problem.empty() || run.points.empty()) {
    s.outcome = PhaseOutcome::kFail;
    s.reason = run.problem.empty() ? "no serving point in " + run.dir : run.problem;
    return s;
  }
  if (ref == nullptr) {
    s.outcome = PhaseOutcome::kInconclusive;
    s.reason = fmt::format(
        "no serving reference for {} ({} {}, ISL/OSL {}/{}, {} GPUs): supply "
        "the site's figures (--reference FILE, metric \"serving\")",
        phase.id, phase.model, phase.precision, phase.isl, phase.osl, phase.gpus);
    return s;
  }
  s.reference = *ref;
  std::vector<const ServingPoint*> valid;
  for (const ServingPoint& p : run.points) {
    std::string why = WhyRefused(p, phase, *ref);
    if (why.empty()) {
      valid.push_back(&p);
    } else {
      s.refused.push_back(ServingPointName(p) + ": " + why);
    }
  }
  AtReference at = FiguresAtReference(valid, phase, *ref, s);
  SummarisePoints(run.points, phase, *ref, at.used, s);
  s.point_tokens_per_s_per_user = at.per_user;
  if (!at.problem.empty()) {
    s.outcome = PhaseOutcome::kInconclusive;
    s.reason = at.problem;
    for (const std::string& r : s.refused) s.reason += "; " + r;
    return s;
  }
  s.metrics.push_back(Compare("output_tokens_per_s_per_gpu", "", "output throughput", "tok/s/GPU",
                              true, at.per_gpu, ref->output_tokens_per_s_per_gpu, threshold));
  s.metrics.push_back(Compare("ttft_ms", ref->ttft_stat, "TTFT " + ref->ttft_stat, "ms", false,
                              at.ttft, ref->ttft_ms, threshold));
  s.metrics.push_back(Compare("tpot_ms", ref->tpot_stat, "TPOT " + ref->tpot_stat, "ms", false,
                              at.tpot, ref->tpot_ms, threshold));
  if (!at.note.empty()) s.metrics.front().note = at.note;
  // A latency the reference does not state is not part of its rule.
  s.metrics.erase(std::remove_if(s.metrics.begin(), s.metrics.end(),
                                 [](const ScoredMetric& m) { return !m.reference; }),
                  s.metrics.end());
  Conclude(s);
  return s;
}

}  // namespace ys::validate
