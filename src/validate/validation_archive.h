// A validation as an archive anyone can re-derive: the validation document, the suite, the
// references the scores used, the spec, every raw log with its job's config and sbatch output,
// and an environment capture, under a manifest of SHA-256 hashes (optionally signed). Layout:
//
//   <name>/validation.json  suite.toml  spec.toml  environment.json
//   <name>/references/<n>-<file>.toml
//   <name>/runs/<workload id>/<log, older retries, llmb-config, sbatch output>
//   <name>/manifest.json  manifest.sig
//
// VerifyValidationArchive extracts it safely, checks every hash and the signature, runs the
// validation again on the archived copy and compares the result with the claimed document.
#ifndef YARDSTICK_VALIDATE_VALIDATION_ARCHIVE_H_
#define YARDSTICK_VALIDATE_VALIDATION_ARCHIVE_H_

#include <string>
#include <vector>

#include "core/status.h"
#include "validate/validation.h"

namespace ys::validate {

// Writes `result` (with its inputs) to `out_path`; `sign_key` may be empty. Never overwrites.
Status WriteValidationArchive(const ValidationResult& result, const ValidationInputs& inputs,
                              const std::string& out_path, const std::string& sign_key);

struct VerificationReport {
  std::string signature;      // "unsigned", "signature valid (key ...)", ...
  bool signature_ok = false;  // checked against the public key given, and valid
  size_t files_checked = 0;
  std::vector<std::string> problems;     // integrity: hashes, added/removed files, signature
  std::vector<std::string> differences;  // claimed document vs recomputed
  bool recomputed_pass = false;
  std::string recomputed_verdict;
  bool ok() const { return problems.empty() && differences.empty(); }
};

// Errors: unreadable or unsafe archive (an entry with an absolute path, "..", a link), or an
// unusable public key. `work_dir` must not exist; it is removed afterwards.
Result<VerificationReport> VerifyValidationArchive(const std::string& archive_path,
                                                   const std::string& pubkey,
                                                   const std::string& work_dir);

}  // namespace ys::validate

#endif  // YARDSTICK_VALIDATE_VALIDATION_ARCHIVE_H_
