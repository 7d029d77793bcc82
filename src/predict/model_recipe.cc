// The [[parallelism]] lookups of predict/model_spec.h: the current recipe for a chip, dtype and
// GPU count, and a release's recipe for a published row.
#include <string>

#include "predict/model_spec.h"

namespace ys::workloads {

Result<Parallelism> FindParallelism(const ModelSpec& spec, std::string_view chip,
                                    std::string_view dtype, int gpus) {
  std::string known;
  const Parallelism* of_release = nullptr;
  for (const Parallelism& p : spec.parallelism) {
    if (p.chip == chip && p.dtype == dtype && p.gpus == gpus) {
      if (p.release.empty()) return p;
      if (of_release == nullptr) of_release = &p;
    }
    known += (known.empty() ? "" : ", ") + p.chip + "/" + p.dtype + "/" + std::to_string(p.gpus);
  }
  if (of_release != nullptr) return *of_release;
  return Status::NotFound(spec.path + ": no parallelism for " + std::string(chip) + "/" +
                          std::string(dtype) + "/" + std::to_string(gpus) +
                          " (known: " + (known.empty() ? "none" : known) + ")");
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

}  // namespace ys::workloads
