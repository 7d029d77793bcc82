#include "validate/scorecard.h"

#include <fmt/format.h>

#include <cmath>

namespace ys::validate {

namespace {

// One workload's row: its reference, its measured run, the score and the outcome with its reason.
ScoredWorkload ScoreWorkload(const Suite& suite, const SuiteWorkload& w, const ReferenceSet& refs,
                             const std::map<std::string, Measured>& measured,
                             const std::map<std::string, double>& peak_tflops) {
  ScoredWorkload row;
  row.workload = w;
  auto match = refs.Find(suite.chip, w, suite.recipe_release);
  if (match.exact != nullptr) row.reference = *match.exact;
  auto it = measured.find(w.id);
  if (it != measured.end()) {
    row.measured = it->second;
    const Measured& m = it->second;
    if (m.status == "success" && m.step_time_mean_s > 0) {
      row.tokens_per_s_per_gpu =
          static_cast<double>(w.seq_len) * w.gbs / m.step_time_mean_s / w.gpus;
      auto peak = peak_tflops.find(w.dtype);
      if (m.tflops_per_gpu && peak != peak_tflops.end() && peak->second > 0) {
        // A figure that is not finite is not shown as inf% (the peaks are range-checked where
        // they are read; a log's TFLOPS may still be absurd).
        double mfu = *m.tflops_per_gpu / peak->second;
        if (std::isfinite(mfu)) row.mfu = mfu;
      }
    }
  }

  if (!row.measured) {
    row.reason = "no log found for this workload";
  } else if (row.measured->status != "success") {
    row.reason = row.measured->status + ": " + row.measured->reason;
  } else if (!row.reference) {
    row.outcome = RowOutcome::kInconclusive;
    if (!match.other_release.empty()) {
      std::string rels;
      for (const auto* r : match.other_release) {
        rels +=
            (rels.empty() ? "" : ", ") + r->provenance.release + " (" + r->provenance.kind + ")";
      }
      row.reason = "no reference for recipe release " + suite.recipe_release +
                   "; references exist only for " + rels +
                   ", whose recipes differ: record one with `yardstick validate --record-baseline`";
    } else {
      row.reason =
          "no reference exists for this workload at this scale: record one with "
          "`yardstick validate --record-baseline` on a golden system";
    }
  } else {
    row.score = row.reference->step_time_s / row.measured->step_time_mean_s;
    if (*row.score > suite.threshold) {
      row.outcome = RowOutcome::kPass;
    } else {
      row.reason = fmt::format("{:.1f}% of the reference, not above {:.0f}%", *row.score * 100,
                               suite.threshold * 100);
    }
  }
  return row;
}

}  // namespace

Scorecard ScoreSuite(const Suite& suite, const ReferenceSet& refs,
                     const std::map<std::string, Measured>& measured,
                     const std::map<std::string, double>& peak_tflops,
                     std::vector<ScoredPhase> phases) {
  Scorecard card;
  card.chip = suite.chip;
  card.recipe_release = suite.recipe_release;
  card.threshold = suite.threshold;
  int passed = 0;
  std::vector<std::string> failed, unjudged;
  for (const SuiteWorkload& w : suite.workloads) {
    ScoredWorkload row = ScoreWorkload(suite, w, refs, measured, peak_tflops);
    if (row.outcome == RowOutcome::kPass) {
      ++passed;
    } else if (row.outcome == RowOutcome::kInconclusive) {
      unjudged.push_back(w.id);
    } else {
      failed.push_back(w.id);
    }
    card.rows.push_back(std::move(row));
  }
  for (const ScoredPhase& p : phases) {
    if (p.outcome == PhaseOutcome::kPass) {
      ++passed;
    } else if (p.outcome == PhaseOutcome::kInconclusive) {
      unjudged.push_back(p.phase.id);
    } else {
      failed.push_back(p.phase.id);
    }
  }
  card.phases = std::move(phases);
  const size_t items = suite.workloads.size() + card.phases.size();
  card.pass = items > 0 && failed.empty() && unjudged.empty();
  card.inconclusive = !card.pass && failed.empty() && !unjudged.empty();
  auto join = [](const std::vector<std::string>& ids) {
    std::string names;
    for (const auto& f : ids) names += (names.empty() ? "" : ", ") + f;
    return names;
  };
  // "5 workloads", "5 serving phases", "5 workloads and 5 serving phases".
  std::string what = card.phases.empty()       ? "workloads"
                     : suite.workloads.empty() ? "serving phases"
                                               : "workloads and serving phases";
  if (card.pass) {
    card.verdict = fmt::format("PASS: all {} {} of the {} suite above {:.0f}% of the reference",
                               passed, what, suite.chip, suite.threshold * 100);
  } else if (card.inconclusive && card.phases.empty()) {
    card.verdict = fmt::format(
        "INCONCLUSIVE: {} of {} workloads have no reference for the {} suite's release{}: {}; "
        "supply it with --reference FILE (a golden run "
        "of this release recorded with --record-baseline, or the figures the site was given)",
        unjudged.size(), suite.workloads.size(), suite.chip,
        suite.recipe_release.empty() ? "" : " (" + suite.recipe_release + ")", join(unjudged));
  } else if (card.inconclusive) {
    card.verdict = fmt::format("INCONCLUSIVE: {} of {} {} cannot be judged: {}", unjudged.size(),
                               items, what, join(unjudged));
  } else {
    card.verdict = fmt::format("FAIL: {} of {} {} not above {:.0f}%: {}", failed.size(), items,
                               what, suite.threshold * 100, join(failed));
    if (!unjudged.empty()) {
      card.verdict +=
          fmt::format("; {} {}: {}", unjudged.size(),
                      card.phases.empty() ? "without a reference" : "not judged", join(unjudged));
    }
  }
  return card;
}

}  // namespace ys::validate
