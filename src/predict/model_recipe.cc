// The [[parallelism]] lookups of predict/model_spec.h: the current recipe for a chip, dtype and
// GPU count, and a release's recipe for a published row.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "predict/model_spec.h"
#include "predict/release_cases.h"

namespace ys::predict {

Result<Parallelism> FindParallelism(const ModelSpec& spec, std::string_view chip,
                                    std::string_view dtype, int gpus) {
  std::string known;
  std::vector<std::string> listed;          // each chip/dtype/gpus once
  const Parallelism* of_release = nullptr;  // without a current entry: the newest release's
  for (const Parallelism& p : spec.parallelism) {
    if (p.chip == chip && p.dtype == dtype && p.gpus == gpus) {
      if (p.IsCurrent()) return p;
      if (of_release == nullptr || predict::ReleaseBefore(of_release->release, p.release))
        of_release = &p;
    }
    const std::string k = p.chip + "/" + p.dtype + "/" + std::to_string(p.gpus);
    if (std::find(listed.begin(), listed.end(), k) != listed.end()) continue;
    listed.push_back(k);
    known += (known.empty() ? "" : ", ") + k;
  }
  if (of_release != nullptr) return *of_release;
  return Status::NotFound(spec.path + ": no parallelism for " + std::string(chip) + "/" +
                          std::string(dtype) + "/" + std::to_string(gpus) +
                          " (known: " + (known.empty() ? "none" : known) + ")");
}

Result<Parallelism> WeakScaledParallelism(const ModelSpec& spec, std::string_view chip,
                                          std::string_view dtype, int gpus) {
  const Parallelism* best = nullptr;
  double best_score = 0;
  for (const Parallelism& p : spec.parallelism) {
    if (p.chip != chip || p.dtype != dtype || p.gpus <= 0 || p.gpus == gpus) continue;
    const int64_t layout = int64_t{p.tp} * p.pp * p.cp;
    const int64_t experts = int64_t{p.ep} * p.etp.value_or(p.tp) * p.pp;
    if (gpus % layout != 0 || gpus % experts != 0) continue;
    // Nearest on a log scale; a current recipe before a release's; the larger count on a tie.
    const double score = std::fabs(std::log2(static_cast<double>(gpus) / p.gpus)) +
                         (p.IsCurrent() ? 0 : 0.5) - (p.gpus > gpus ? 1e-9 : 0);
    if (best == nullptr || score < best_score) {
      best = &p;
      best_score = score;
    }
  }
  if (best == nullptr) {
    return Status::NotFound(spec.path + ": no parallelism for " + std::string(chip) + "/" +
                            std::string(dtype) + " at any GPU count that divides " +
                            std::to_string(gpus));
  }
  Parallelism out = *best;
  out.gpus = gpus;
  out.global_batch =
      static_cast<int>(std::llround(static_cast<double>(best->global_batch) * gpus / best->gpus));
  out.weak_scaled_from = best->gpus;
  out.source = best->source + "; its parallelism at " + std::to_string(gpus) + " GPUs (from " +
               std::to_string(best->gpus) + ", data parallelism and global batch scaled)";
  return out;
}

Result<Parallelism> FindRecipe(const ModelSpec& spec, std::string_view chip, std::string_view dtype,
                               int gpus, std::string_view release, int global_batch) {
  std::string known;
  for (const Parallelism& p : spec.parallelism) {
    if (p.chip != chip) continue;
    if (p.dtype == dtype && p.gpus == gpus && p.release == release &&
        p.global_batch == global_batch) {
      return p;
    }
    known += (known.empty() ? "" : ", ") + p.dtype + "/" + std::to_string(p.gpus) + "/" +
             (p.release.empty() ? "current" : p.release) + "/gbs " + std::to_string(p.global_batch);
  }
  return Status::NotFound(spec.path + ": no [[parallelism]] for " + std::string(chip) + "/" +
                          std::string(dtype) + "/" + std::to_string(gpus) + " of release " +
                          std::string(release) + " at global_batch " +
                          std::to_string(global_batch) + " (" + std::string(chip) +
                          " has: " + (known.empty() ? "none" : known) + ")");
}

}  // namespace ys::predict
