#include "report/scorecard_reporter.h"

#include <fmt/format.h>

#include <algorithm>

#include "report/serving_scorecard_console.h"

namespace ys::report {

namespace {

void WriteWorkloadRows(const validate::Scorecard& card, bool color, std::ostream& out) {
  if (card.rows.empty()) return;
  out << fmt::format(
      "suite {} (recipes {}), pass rule: every workload above {:.0f}% of its reference\n",
      card.chip, card.recipe_release, card.threshold * 100);
  size_t idw = 8;
  for (const auto& r : card.rows) idw = std::max(idw, r.workload.id.size());
  out << fmt::format("{:<{}}  {:>5} {:>5}  {:>17}  {:>10}  {:>7}  {:>6}  {:>9} {:<20}  {:>7}  {}\n",
                     "workload", idw, "prec", "GPUs", "step s (±sd)", "tok/s/GPU", "TFLOPS", "MFU",
                     "ref s", "(reference)", "ratio", "result");
  auto num = [](const std::optional<double>& v, const char* f) {
    return v ? fmt::format(fmt::runtime(f), *v) : std::string("-");
  };
  for (const auto& r : card.rows) {
    std::string step = "-";
    std::optional<double> tflops;
    if (r.measured && r.measured->status == "success") {
      step = fmt::format("{:.3f} ±{:.3f}", r.measured->step_time_mean_s,
                         r.measured->step_time_stdev_s);
      tflops = r.measured->tflops_per_gpu;
    }
    std::string ref = "-", refsrc;
    if (r.reference) {
      ref = fmt::format("{:.3f}", r.reference->step_time_s);
      refsrc = r.reference->provenance.kind + " " + r.reference->provenance.release;
      if (!r.reference->inconsistent.empty()) refsrc += " (!)";
    }
    bool pass = r.outcome == validate::RowOutcome::kPass;
    bool unjudged = r.outcome == validate::RowOutcome::kInconclusive;
    std::string result = pass ? "PASS" : unjudged ? "INCONCLUSIVE" : "FAIL";
    if (color) {
      result = (pass ? "\033[32m" : unjudged ? "\033[33m" : "\033[31m") + result + "\033[0m";
    }
    if (!r.reason.empty()) result += "  " + r.reason;
    out << fmt::format(
        "{:<{}}  {:>5} {:>5}  {:>17}  {:>10}  {:>7}  {:>6}  {:>9} {:<20}  {:>7}  {}\n",
        r.workload.id, idw, r.workload.dtype, r.workload.gpus, step,
        num(r.tokens_per_s_per_gpu, "{:.0f}"), num(tflops, "{:.1f}"),
        r.mfu ? fmt::format("{:.1f}%", *r.mfu * 100) : "-", ref, refsrc,
        r.score ? fmt::format("{:.1f}%", *r.score * 100) : "-", result);
  }
  for (const auto& r : card.rows) {
    if (r.reference && !r.reference->inconsistent.empty()) {
      out << fmt::format("(!) {}: the published reference is inconsistent: {}\n", r.workload.id,
                         r.reference->inconsistent);
    }
  }
}

}  // namespace

void WriteScorecard(const validate::Scorecard& card, bool color, std::ostream& out) {
  WriteWorkloadRows(card, color, out);
  WriteServingPhases(card.phases, card.threshold, color, out);
  std::string verdict = card.verdict;
  if (color) {
    verdict = (card.pass           ? "\033[32m"
               : card.inconclusive ? "\033[33m"
                                   : "\033[31m") +
              verdict + "\033[0m";
  }
  out << "verdict: " << verdict << "\n";
}

}  // namespace ys::report
