#include "validate/validation_archive.h"

#include <unistd.h>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "core/build_info.h"
#include "core/document_schemas.h"
#include "core/json_document.h"
#include "core/json_fields.h"
#include "core/json_schema.h"
#include "validate/archive.h"
#include "validate/scorecard_json.h"

namespace ys::validate {

namespace fs = std::filesystem;

namespace {

std::string Dump(const nlohmann::ordered_json& j) {
  return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

// What one job ran on, from its llmb-config.
struct ArchivedJob {
  const std::optional<LlmbConfig>& config;
};

template <typename V>
void Fields(V& v, ArchivedJob& j) {
  if (j.config) {
    v("job_id", j.config->job_id);
    v("framework", j.config->framework);
    v("container_tag", j.config->fw_version);
    v("gpu_type", j.config->gpu_type);
    v("scale", j.config->scale);
  } else {
    v.computed("config", [] { return "no llmb-config beside the log"; });
  }
}

// environment.json: what the jobs ran on and where the archive was made. Only written.
struct Environment {
  std::string recipe_release;
  std::string tool;
  std::string archived_on;
  std::vector<std::pair<std::string, ArchivedJob>> jobs;
  // The archiving host's driver, when it has one (the jobs' own nodes are in their logs).
  std::vector<std::pair<std::string, std::string>> driver;
  std::vector<std::pair<std::string, std::string>> env;
};

template <typename V>
void Fields(V& v, Environment& e) {
  v("recipe_release", e.recipe_release);
  v("tool", e.tool);
  v("archived_on", e.archived_on);
  v("jobs", e.jobs);
  v.optional("driver", e.driver);
  v.optional("env", e.env);
}

// The schema walks a job with its llmb-config and one without.
std::vector<ArchivedJob> JsonSchemaSamples(const ArchivedJob*) {
  static const std::optional<LlmbConfig> kWith = LlmbConfig{}, kWithout;
  return {ArchivedJob{kWith}, ArchivedJob{kWithout}};
}

YS_DOCUMENT_SCHEMA("environment", Environment,
                   "yardstick validation archive environment (environment.json)",
                   "What the archived jobs ran on (each job's llmb-config) and where the archive "
                   "was made: the recipe release, the tool, the host's driver and job "
                   "environment.");

Environment EnvironmentOf(const ValidationResult& r) {
  Environment env{.recipe_release = r.suite.recipe_release,
                  .tool = std::string("yardstick ") + kVersion + " (" + kGitDescribe + ")"};
  char host[256] = {0};
  ::gethostname(host, sizeof host - 1);
  env.archived_on = host;
  for (const auto& [id, run] : r.runs) env.jobs.emplace_back(id, ArchivedJob{run.config});
  for (const char* f : {"/sys/module/nvidia/version", "/proc/driver/nvidia/version"}) {
    std::ifstream in(f);
    std::string line;
    if (in && std::getline(in, line) && !line.empty()) env.driver.emplace_back(f, line);
  }
  for (const char* v : {"SLURM_JOB_NODELIST", "SLURM_CLUSTER_NAME", "NCCL_VERSION", "CUDA_VERSION",
                        "NVIDIA_DRIVER_VERSION"}) {
    if (const char* val = std::getenv(v)) env.env.emplace_back(v, val);
  }
  return env;
}

}  // namespace

Status WriteValidationArchive(const ValidationResult& r, const ValidationInputs& in,
                              const std::string& out_path, const std::string& sign_key) {
  ArchiveInput a;
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
  a.name = "yardstick-validation-" + r.suite.chip + "-" + stamp;
  a.files_inline["validation.json"] = Dump(*r.document);
  a.files_inline["environment.json"] = Dump(json_fields::Write(EnvironmentOf(r)));
  a.files_from_disk["suite.toml"] = in.suite_path;
  if (!in.spec_path.empty()) a.files_from_disk["spec.toml"] = in.spec_path;
  // Every reference file the loaded set came from (not only the matched ones: a verifier must
  // see that no better-matching reference was left out).
  std::set<std::string> ref_files;
  for (const auto& ref : r.references.all()) ref_files.insert(ref.provenance.path);
  for (const auto& ref : r.references.serving()) ref_files.insert(ref.provenance.path);
  int n = 0;
  for (const auto& f : ref_files) {
    std::string prefix = (n < 10 ? "0" : "") + std::to_string(n) + "-";
    ++n;
    a.files_from_disk["references/" + prefix + fs::path(f).filename().string()] = f;
  }
  for (const auto& [id, run] : r.discovery.runs) {
    std::string dir = "runs/" + id + "/";
    a.files_from_disk[dir + fs::path(run.log).filename().string()] = run.log;
    for (const auto& s : run.superseded)
      a.files_from_disk[dir + fs::path(s.path).filename().string()] = s.path;
    for (const auto& f : run.side_files)
      a.files_from_disk[dir + fs::path(f).filename().string()] = f;
  }
  // A serving phase's files keep their place under its folder (a sweep: one folder per point).
  for (const ScoredPhase& p : r.card.phases) {
    for (const std::string& f : p.files) {
      std::string rel = fs::path(f).lexically_relative(p.dir).generic_string();
      if (rel.empty() || rel.rfind("..", 0) == 0) rel = fs::path(f).filename().string();
      a.files_from_disk["runs/" + p.phase.id + "/" + rel] = f;
    }
  }
  return WriteArchive(a, out_path, sign_key);
}

Result<VerificationReport> VerifyValidationArchive(const std::string& archive_path,
                                                   const std::string& pubkey,
                                                   const std::string& work_dir) {
  auto opened = OpenArchive(archive_path, work_dir, pubkey);
  if (!opened.ok()) return opened.status();
  VerificationReport rep;
  rep.signature = opened->signature_summary;
  rep.signature_ok = opened->signature_checked && opened->signature_ok;
  rep.files_checked = opened->manifest.files.size();
  rep.problems = opened->problems;
  const std::string root = opened->root_dir;
  struct Cleanup {
    std::string dir;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } cleanup{work_dir};

  auto claimed_text = ReadDocumentFile(root + "/validation.json", DocumentKind::kJson);
  if (!claimed_text.ok()) {
    rep.problems.push_back(claimed_text.status().code() == StatusCode::kNotFound
                               ? "validation.json: missing from the archive"
                               : "validation.json: cannot be read");
    return rep;
  }
  auto parsed = ParseJsonDocument(*claimed_text, "validation.json");
  if (!parsed.ok()) {
    rep.problems.push_back(parsed.status().message());
    return rep;
  }
  const nlohmann::json& claimed = *parsed;
  ValidationInputs in;
  in.suite_path = root + "/suite.toml";
  in.reference_paths = {root + "/references"};
  if (fs::exists(root + "/spec.toml")) in.spec_path = root + "/spec.toml";
  in.runs_dir = root + "/runs";
  if (!fs::exists(in.runs_dir)) fs::create_directories(in.runs_dir);  // a suite with no runs at all
  auto again = RunValidation(in);
  if (!again.ok()) {
    rep.problems.push_back("re-deriving the validation failed: " + again.status().message());
    return rep;
  }
  rep.recomputed_pass = again->card.pass;
  rep.recomputed_verdict = again->card.verdict;
  nlohmann::json recomputed(*again->document);
  rep.differences = CompareValidation(claimed, recomputed);
  return rep;
}

}  // namespace ys::validate
