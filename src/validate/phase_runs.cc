#include "validate/phase_runs.h"

#include <fmt/format.h>

#include <algorithm>
#include <any>
#include <cmath>
#include <filesystem>

#include "core/format_registry.h"
#include "validate/ingest_options.h"
#include "validate/workload_run.h"

namespace ys::validate {
namespace {

namespace fs = std::filesystem;

// The regular files below `dir` (two levels: a sweep may keep one folder per concurrency).
std::vector<std::string> PhaseFiles(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it.depth() > 1) it.disable_recursion_pending();
    if (it->is_regular_file(ec) && !it->is_symlink(ec)) files.push_back(it->path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The serving run a claimed file reads as; nullopt when no serving format claims it.
Result<std::optional<WorkloadRun>> ReadServingFile(const std::string& path,
                                                   const ServingPhase& phase) {
  auto head = ReadFormatHead(path);
  if (!head.ok()) return std::optional<WorkloadRun>();
  auto chosen = ChooseFormat(path, *head, FormatProduct::kWorkloadRun);
  if (!chosen.ok()) return std::optional<WorkloadRun>();
  IngestOptions o;
  o.gpus = phase.DenominatorGpus();
  const std::any options = o;
  auto read = chosen->format->read(FormatRequest{.path = path, .options = &options});
  if (!read.ok()) return read.status();
  const WorkloadRun* run = std::any_cast<WorkloadRun>(&*read);
  if (run == nullptr || !run->inference) return std::optional<WorkloadRun>();  // a training log
  return std::optional<WorkloadRun>(*run);
}

// The same point exported twice in one folder (AIPerf writes its JSON and its CSV side by side):
// the same concurrency and request count, and throughputs equal to the CSV's printed digits.
bool SameExport(const ServingPoint& a, const ServingPoint& b) {
  if (a.max_concurrency != b.max_concurrency || a.completed != b.completed) return false;
  if (!a.output_throughput || !b.output_throughput) return false;
  const double x = *a.output_throughput, y = *b.output_throughput;
  return std::fabs(x - y) <= 1e-3 * std::max(std::fabs(x), std::fabs(y));
}

}  // namespace

Result<PhaseRun> ReadPhaseRun(const std::string& runs_dir, const ServingPhase& phase) {
  PhaseRun out;
  const std::string dir = runs_dir + "/" + phase.id;
  out.dir = dir;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    out.problem = fmt::format("no serving output: {} is not a folder", dir);
    return out;
  }
  std::vector<std::string> read, formats, others;
  std::vector<std::string> folders;  // the folder of each point read
  for (const std::string& f : PhaseFiles(dir)) {
    auto run = ReadServingFile(f, phase);
    if (!run.ok()) return run.status();
    if (!*run) {
      others.push_back(fs::path(f).filename().string());
      continue;
    }
    read.push_back(f);
    const std::string& format = (*run)->inference->format;
    if (std::find(formats.begin(), formats.end(), format) == formats.end()) {
      formats.push_back(format);
    }
    const std::string folder = fs::path(f).parent_path().string();
    for (const ServingPoint& p : (*run)->inference->points) {
      bool twice = false;
      for (size_t i = 0; i < out.points.size() && !twice; ++i) {
        twice = folders[i] == folder && SameExport(out.points[i], p);
      }
      if (twice) continue;  // one run, two exports of it
      out.points.push_back(p);
      folders.push_back(folder);
    }
  }
  auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
  };
  if (read.empty()) {
    out.problem = fmt::format(
        "no serving output in {}{}: expected an export of the load generator (AIPerf, "
        "GenAI-Perf, vllm bench serve, SGLang bench_serving, trtllm-bench, MLPerf LoadGen)",
        dir, others.empty() ? "" : " (it holds " + join(others) + ")");
    return out;
  }
  out.files = read;
  out.format = join(formats);
  return out;
}

}  // namespace ys::validate
