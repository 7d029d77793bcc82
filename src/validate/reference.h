// References: expected values with provenance (docs/design.md §vocabulary). Loaded from baselines/
// (published tables, recorded golden runs) and matched to a suite's workloads. A reference is
// used only for the same chip, workload, GPU count, sequence length, global batch size and recipe
// release; anything else is reported as "no comparable reference", never stretched to fit.
#ifndef YARDSTICK_VALIDATE_REFERENCE_H_
#define YARDSTICK_VALIDATE_REFERENCE_H_

#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "validate/provenance.h"
#include "validate/serving_reference.h"
#include "validate/suite.h"

namespace ys::validate {

struct Reference {
  std::string workload;  // suite workload id: "llama3.1_70b_fp8"
  std::string model, size, dtype;
  int gpus = 0;
  int seq_len = 0;
  int gbs = 0;
  double step_time_s = 0;  // the compared metric (lower is better)
  std::optional<double> tflops_per_gpu;
  std::optional<double> published_tokens_per_s;
  std::optional<double> published_mfu;
  std::string file;          // where in the source
  std::string inconsistent;  // non-empty: a known inconsistency, shown with the reference
  Provenance provenance;
};

class ReferenceSet {
 public:
  // Every *.toml below `dir` (recursively, sorted). Absent directory -> empty set.
  static Result<ReferenceSet> LoadDirectory(const std::string& dir);
  // Every *.toml below `dir`, recursively, in sorted order; an absent directory adds nothing.
  Status AddDirectory(const std::string& dir);
  Status AddFile(const std::string& path);
  Status AddText(std::string_view toml_text, const std::string& path);

  struct Match {
    const Reference* exact = nullptr;             // same release: usable
    std::vector<const Reference*> other_release;  // same workload and scale, another release
  };
  Match Find(const std::string& chip, const SuiteWorkload& w, const std::string& release) const;
  const std::vector<Reference>& all() const { return refs_; }

  // The serving reference of a phase on `chip`: a recorded one over a site one over a proxy,
  // the last loaded among equals; nullptr when none. Matched on the phase id, model, precision,
  // ISL/OSL and GPU count: anything else is no comparable reference.
  const ServingReference* FindServing(const std::string& chip, const ServingPhase& phase) const;
  const std::vector<ServingReference>& serving() const { return serving_; }

 private:
  Status AddServing(const toml::table& doc, const Provenance& p, const std::string& path);
  std::vector<Reference> refs_;
  std::vector<ServingReference> serving_;
};

}  // namespace ys::validate

#endif  // YARDSTICK_VALIDATE_REFERENCE_H_
