#include "report/serving_scorecard_console.h"

#include <fmt/format.h>

#include "core/text.h"
#include "report/phase_prediction_console.h"

namespace ys::report {
namespace {

std::string OutcomeWord(validate::PhaseOutcome o, bool color) {
  using validate::PhaseOutcome;
  std::string word = o == PhaseOutcome::kPass   ? "PASS"
                     : o == PhaseOutcome::kFail ? "FAIL"
                                                : "INCONCLUSIVE";
  if (!color) return word;
  const char* c = o == PhaseOutcome::kPass   ? "\033[32m"
                  : o == PhaseOutcome::kFail ? "\033[31m"
                                             : "\033[33m";
  return c + word + "\033[0m";
}

std::string Topology(const validate::ServingPhase& p) {
  if (p.disaggregated()) {
    return fmt::format("{} prefill x TP{} + {} decode x TP{}", p.prefill_workers, p.prefill_tp,
                       p.decode_workers, p.decode_tp);
  }
  return fmt::format("TP{}{}{}", p.tp, p.ep > 1 ? fmt::format(" EP{}", p.ep) : "",
                     p.dp > 1 ? fmt::format(" DP{}", p.dp) : "");
}

void WriteMetric(const validate::ScoredMetric& m, bool color, std::ostream& out) {
  auto num = [](const std::optional<double>& v) {
    return v ? fmt::format("{:.2f}", *v) : std::string("-");
  };
  std::string score = m.score ? fmt::format("{:.1f}%", 100 * *m.score) : std::string("-");
  out << fmt::format("    {:<22} {:>12} {:>12}  {:>7}  {}{}\n", m.name + " (" + m.unit + ")",
                     num(m.measured), num(m.reference), score, OutcomeWord(m.outcome, color),
                     m.note.empty() ? "" : "  " + m.note);
}

}  // namespace

void WriteServingPhases(const std::vector<validate::ScoredPhase>& phases, double threshold,
                        bool color, std::ostream& out) {
  if (phases.empty()) return;
  out << fmt::format(
      "serving phases, pass rule: tokens/s/GPU above {0:.0f}% of the reference, TTFT and TPOT "
      "below reference / {1:.2f} (a phase passes only when every metric does)\n",
      threshold * 100, threshold);
  for (const validate::ScoredPhase& s : phases) {
    const validate::ServingPhase& p = s.phase;
    out << fmt::format("  {}  {} {} {}, ISL/OSL {}/{}, {} GPU{} ({}), {} {}: {}  {}\n", p.id,
                       p.phase, p.model, p.precision, p.isl, p.osl, p.gpus, p.gpus == 1 ? "" : "s",
                       Topology(p), p.stack, p.stack_version, OutcomeWord(s.outcome, color),
                       SanitizeForDisplay(s.reason));
    if (s.reference) {
      const auto& prov = s.reference->provenance;
      out << fmt::format("    reference: {} {} ({}), {} at {}, per GPU over {}\n", prov.kind,
                         prov.release, SanitizeForDisplay(prov.source), s.reference->mode,
                         s.reference->concurrency
                             ? fmt::format("concurrency {}", s.reference->concurrency)
                             : std::string("max throughput"),
                         s.reference->gpu_denominator);
    }
    if (!s.metrics.empty()) {
      out << fmt::format("    {:<22} {:>12} {:>12}  {:>7}  {}\n", "metric", "measured", "reference",
                         "score", "result");
    }
    for (const validate::ScoredMetric& m : s.metrics) WriteMetric(m, color, out);
    for (const std::string& r : s.refused) {
      out << "    refused: " << SanitizeForDisplay(r) << "\n";
    }
    if (s.prediction) out << ServingPredictionBlock(*s.prediction, "    ");
  }
}

}  // namespace ys::report
