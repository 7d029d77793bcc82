#include "report/phase_prediction_console.h"

#include <fmt/format.h>

#include "core/text.h"

namespace ys::report {
namespace {

std::string PredictedFigure(const std::optional<double>& v, double scale, const char* f) {
  return v ? fmt::format(fmt::runtime(f), *v * scale) : std::string("-");
}

// The lines under a predicted phase: each reference figure scored, then the expected error.
std::string PredictedPhaseDetail(const predict::PhasePrediction& p, const std::string& indent) {
  std::string out;
  for (const predict::PredictedServeMetric& m : p.metrics) {
    out += indent +
           fmt::format(
               "{:<22} reference {:.2f} {}, predicted {:.2f} (score {:.1f}%{}); the model's own "
               "{:.2f} ({:.1f}% of the reference)\n",
               m.name, m.reference, m.unit, m.predicted, 100 * m.score, m.under ? ", UNDER" : "",
               m.model, 100 * m.model / m.reference);
  }
  if (p.expected_error) out += indent + p.expected_error->Line() + "\n";
  return out;
}

}  // namespace

std::string ServingPredictionBlock(const predict::PhasePrediction& p, const std::string& indent) {
  if (!p.reason.empty()) {
    return indent + "predicted: none: " + SanitizeForDisplay(p.reason) + "\n";
  }
  std::string out =
      indent + fmt::format(
                   "predicted at {}: {} tok/s/GPU, TTFT {} s, TPOT {} ms, {} tok/s/user; "
                   "score {}: {}{}\n",
                   p.point, PredictedFigure(p.output_tokens_per_s_per_gpu, 1, "{:.1f}"),
                   PredictedFigure(p.ttft_s, 1, "{:.3f}"), PredictedFigure(p.tpot_s, 1e3, "{:.2f}"),
                   PredictedFigure(p.tokens_per_s_per_user, 1, "{:.1f}"),
                   PredictedFigure(p.predicted_score, 100, "{:.1f}%"), p.under ? "UNDER: " : "",
                   SanitizeForDisplay(p.why));
  return out + PredictedPhaseDetail(p, indent + "  ");
}

std::string ServingPredictionConsole(const std::vector<predict::PhasePrediction>& phases,
                                     double threshold, bool at_reference_rates) {
  std::string out = fmt::format(
      "serving phases predicted before the runs (serving model at each phase's point, its "
      "reference's where there is one; "
      "score = the model at this cluster's rates against the reference rates, as the rule scores "
      "a run{}):\n",
      at_reference_rates ? "; no --measured or --set: 100% by construction" : "");
  out += fmt::format("{:<32} {:<18} {:>10} {:>8} {:>9} {:>10} {:>7}  {}\n", "phase", "point",
                     "tok/s/GPU", "TTFT s", "TPOT ms", "tok/s/user", "score", "why");
  int under = 0;
  for (const predict::PhasePrediction& p : phases) {
    under += p.under;
    out += fmt::format("{:<32} {:<18} {:>10} {:>8} {:>9} {:>10} {:>7}  {}{}\n", p.id, p.point,
                       PredictedFigure(p.output_tokens_per_s_per_gpu, 1, "{:.1f}"),
                       PredictedFigure(p.ttft_s, 1, "{:.3f}"),
                       PredictedFigure(p.tpot_s, 1e3, "{:.2f}"),
                       PredictedFigure(p.tokens_per_s_per_user, 1, "{:.1f}"),
                       PredictedFigure(p.predicted_score, 100, "{:.1f}%"), p.under ? "UNDER: " : "",
                       SanitizeForDisplay(p.reason.empty() ? p.why : p.reason));
    if (p.reason.empty()) out += PredictedPhaseDetail(p, "    ");
  }
  out += fmt::format("predicted: {} of {} serving phases under {:.0f}%\n", under, phases.size(),
                     100 * threshold);
  return out;
}

}  // namespace ys::report
