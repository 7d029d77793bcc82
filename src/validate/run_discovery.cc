#include "validate/run_discovery.h"

#include <algorithm>
#include <filesystem>

#include "core/text.h"
#include "validate/llmb_config.h"
#include "validate/retry_logs.h"

namespace ys::validate {

namespace fs = std::filesystem;

namespace {

constexpr int kMaxDepth = 8;
constexpr size_t kMaxFiles = 200000;

bool IsLogName(std::string_view name) {
  return (StartsWith(name, "log-") && EndsWith(name, ".out")) || EndsWith(name, ".log");
}

bool IsSideFile(std::string_view name) {
  return StartsWith(name, "llmb-config_") || StartsWith(name, "sbatch_") ||
         StartsWith(name, "slurm-") || EndsWith(name, ".sbatch") || EndsWith(name, ".sh");
}

// Job ids compare as numbers when they are numbers ("9" < "10").
bool JobIdLess(const std::string& a, const std::string& b) {
  auto x = ParseUint(a), y = ParseUint(b);
  if (x && y) return *x < *y;
  return a < b;
}

// The log that counts among a workload's candidates (newest retry of the newest job), the ones it
// supersedes and the side files of its folder.
DiscoveredRun ChooseRun(const std::vector<std::pair<std::string, std::string>>& logs) {
  std::error_code ec;
  std::vector<std::string> paths;
  for (const auto& [p, how] : logs) paths.push_back(p);
  std::sort(paths.begin(), paths.end());
  RetrySelection sel = SelectNewestRetries(paths);
  DiscoveredRun run;
  for (const auto& s : sel.superseded)
    run.superseded.push_back({s.path, "older retry of " + s.newest});
  // Several jobs of one workload: the newest job counts.
  std::vector<std::string> current = sel.current;
  std::sort(current.begin(), current.end(), [](const std::string& a, const std::string& b) {
    std::string ja = JobIdOfLog(a), jb = JobIdOfLog(b);
    if (ja != jb) return JobIdLess(ja, jb);
    return a < b;
  });
  run.log = current.back();
  for (size_t i = 0; i + 1 < current.size(); ++i) {
    run.superseded.push_back({current[i], "earlier job; " + run.log + " counts"});
  }
  for (const auto& [p, how] : logs) {
    if (p == run.log) run.how = how;
  }
  std::string job = JobIdOfLog(run.log);
  fs::path folder = fs::path(run.log).parent_path();
  for (const auto& e : fs::directory_iterator(folder, ec)) {
    std::string n = e.path().filename().string();
    if (!e.is_regular_file() || e.is_symlink() || !IsSideFile(n)) continue;
    // Another job's config in the same folder belongs to that job.
    if (StartsWith(n, "llmb-config_") && !job.empty() && n != "llmb-config_" + job + ".yaml")
      continue;
    run.side_files.push_back(e.path().string());
  }
  std::sort(run.side_files.begin(), run.side_files.end());
  return run;
}

}  // namespace

Result<Discovery> DiscoverRuns(const Suite& suite, const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return Status::NotFound("--runs " + dir + ": not a directory");
  Discovery out;
  // workload id -> candidate logs (before retry selection), with how each was identified
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> candidates;
  size_t seen = 0;
  auto it = fs::recursive_directory_iterator(dir, fs::directory_options::none, ec);
  if (ec) return Status::Io("--runs " + dir + ": " + ec.message());
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) return Status::Io("--runs " + dir + ": " + ec.message());
    if (it.depth() > kMaxDepth) {
      it.disable_recursion_pending();
      continue;
    }
    if (++seen > kMaxFiles) return Status::Invalid("--runs " + dir + ": more than 200000 entries");
    if (!it->is_regular_file(ec) || it->is_symlink(ec)) continue;
    std::string path = it->path().string();
    std::string name = it->path().filename().string();
    if (!IsLogName(name)) continue;

    std::string id, how;
    std::string config_path = LlmbConfigPathFor(path);
    if (!config_path.empty() && fs::exists(config_path, ec)) {
      auto cfg = ReadLlmbConfig(config_path);
      if (!cfg.ok()) return cfg.status();
      id = cfg->model_name + "_" + cfg->model_size + "_" + cfg->dtype;
      how = fs::path(config_path).filename().string() + " model_info";
      const SuiteWorkload* w = suite.Find(id);
      if (w != nullptr && cfg->scale && *cfg->scale != w->gpus) {
        out.ignored.push_back(path + ": " + id + " at " + std::to_string(*cfg->scale) +
                              " GPUs, the suite runs it at " + std::to_string(w->gpus));
        continue;
      }
    } else {
      bool phase_folder = false;  // a serving phase's server log: read with the phase
      for (fs::path p = it->path().parent_path(); p.string().size() >= dir.size();
           p = p.parent_path()) {
        if (suite.FindPhase(p.filename().string()) != nullptr) {
          phase_folder = true;
          break;
        }
        if (suite.Find(p.filename().string()) != nullptr) {
          id = p.filename().string();
          how = "folder name";
          break;
        }
        if (p == p.parent_path()) break;
      }
      if (phase_folder) continue;
    }
    if (id.empty() || suite.Find(id) == nullptr) {
      out.ignored.push_back(path + (id.empty() ? ": matches no workload of the suite"
                                               : ": " + id + " is not in the suite"));
      continue;
    }
    candidates[id].emplace_back(path, how);
  }

  for (auto& [id, logs] : candidates) {
    out.runs[id] = ChooseRun(logs);
  }
  return out;
}

}  // namespace ys::validate
