#include "validate/validation.h"

#include <fmt/format.h>

#include <ctime>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "bench/device_specs.h"
#include "core/progress.h"
#include "validate/ingest.h"
#include "validate/phase_runs.h"
#include "validate/scorecard_json.h"

namespace ys::validate {

namespace fs = std::filesystem;

// The spec is read by its one reader (bench/device_specs.h), so its bounds and wording hold here.
Result<std::map<std::string, double>> LoadPeakTflops(const std::string& path) {
  auto spec = bench::LoadDeviceSpec(path);
  if (!spec.ok()) return spec.status();
  return spec->peak_dense_tflops;
}

namespace {

Measured ToMeasured(const WorkloadRun& run) {
  Measured m;
  m.status = RunStatusName(run.status);
  m.reason = run.reason;
  m.log_path = run.log_path;
  if (run.step_time_s) {
    m.window_samples = static_cast<int>(run.step_time_s->n);
    m.step_time_mean_s = run.step_time_s->mean;
    m.step_time_stdev_s = run.step_time_s->stdev;
  }
  if (run.tflops_per_gpu && !run.tflops_not_reported) m.tflops_per_gpu = run.tflops_per_gpu->mean;
  m.step_times_s = StepTimesAfterWarmup(run, &m.step_times_first_step);
  return m;
}

}  // namespace

Result<ValidationInputs> ResolveInputs(const std::string& suite_name, const std::string& data_dir,
                                       const std::string& baselines_dir,
                                       const std::vector<std::string>& extra_references,
                                       const std::string& runs_dir) {
  auto suite = LoadSuiteByName(suite_name, data_dir);
  if (!suite.ok()) return suite.status();
  ValidationInputs in;
  in.suite_path = suite->path;
  // The chip's shipped baselines when there are any (a serving suite's chip may have none: its
  // references come from the site); a --baselines directory given is read or refused.
  std::error_code exists_ec;
  const std::string shipped = data_dir + "/baselines/" + suite->chip;
  if (!baselines_dir.empty()) {
    in.reference_paths.push_back(baselines_dir);
  } else if (fs::exists(shipped, exists_ec)) {
    in.reference_paths.push_back(shipped);
  }
  for (const auto& r : extra_references) in.reference_paths.push_back(r);
  std::string spec = data_dir + "/specs/" + suite->chip + ".toml";
  std::error_code ec;
  if (fs::exists(spec, ec)) in.spec_path = spec;
  in.runs_dir = runs_dir;
  return in;
}

Result<ValidationResult> RunValidation(const ValidationInputs& in) {
  ValidationResult r;
  auto suite = LoadSuite(in.suite_path);
  if (!suite.ok()) return suite.status();
  r.suite = std::move(*suite);
  for (const auto& p : in.reference_paths) {
    std::error_code ec;
    YS_RETURN_IF_ERROR(fs::is_directory(p, ec) ? r.references.AddDirectory(p)
                                               : r.references.AddFile(p));
  }
  std::map<std::string, double> peaks;
  if (!in.spec_path.empty()) {
    auto loaded = LoadPeakTflops(in.spec_path);
    if (!loaded.ok()) return loaded.status();
    peaks = std::move(*loaded);
  }
  auto discovery = DiscoverRuns(r.suite, in.runs_dir);
  if (!discovery.ok()) return discovery.status();
  r.discovery = std::move(*discovery);

  std::map<std::string, Measured> measured;
  size_t index = 0;
  for (const SuiteWorkload& w : r.suite.workloads) {
    ++index;
    auto found = r.discovery.runs.find(w.id);
    if (found == r.discovery.runs.end()) continue;  // scored as "no log found"
    Progress().Step("reading the log of", index, r.suite.workloads.size(), w.id);
    IngestOptions o;
    o.window = MeasurementWindow{r.suite.window_first, r.suite.window_last};
    o.seq_len = w.seq_len;  // training logs do not print it
    if (auto p = peaks.find(w.dtype); p != peaks.end()) o.peak_tflops = p->second;
    auto run = IngestLog(found->second.log, o);
    if (!run.ok()) return run.status();
    Measured m = ToMeasured(*run);
    // The log must be the suite's workload: the same global batch and GPU count.
    if (run->shape.global_batch_size && *run->shape.global_batch_size != w.gbs) {
      m.status = "wrong_shape";
      m.reason =
          fmt::format("ran global batch {} ({}), the suite's workload is {}",
                      *run->shape.global_batch_size, run->shape.global_batch_size_source, w.gbs);
    } else if (run->shape.gpus && *run->shape.gpus != w.gpus) {
      m.status = "wrong_shape";
      m.reason = fmt::format("ran on {} GPUs ({}), the suite's workload runs on {}",
                             *run->shape.gpus, run->shape.gpus_source, w.gpus);
    }
    measured[w.id] = m;
    r.runs[w.id] = std::move(*run);
  }
  std::vector<ScoredPhase> phases;
  for (const ServingPhase& phase : r.suite.phases) {
    auto run = ReadPhaseRun(in.runs_dir, phase);
    if (!run.ok()) return run.status();
    phases.push_back(ScoreServingPhase(phase, r.references.FindServing(r.suite.chip, phase), *run,
                                       r.suite.threshold));
  }
  r.card = ScoreSuite(r.suite, r.references, measured, peaks, std::move(phases));
  r.document = ToJson(r.suite, r.card);
  return r;
}

std::string RecordBaseline(const ValidationResult& r, const std::string& made_by,
                           const std::string& hardware, const std::string& software) {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char date[16];
  std::strftime(date, sizeof date, "%Y-%m-%d", &tm);
  auto q = [](const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
      if (c == '"' || c == '\\') out += '\\';
      if (c == '\n') {
        out += "\\n";
        continue;
      }
      out += c;
    }
    return out + "\"";
  };
  std::string out =
      "# Reference recorded by `yardstick validate --record-baseline` from a golden run.\n\n";
  out += "[provenance]\n";
  out += "chip = " + q(r.suite.chip) + "\n";
  out += "kind = \"recorded\"\n";
  out += "release = " + q(r.suite.recipe_release) + "\n";
  out += "source = " + q("yardstick validate --record-baseline, suite " + r.suite.path) + "\n";
  out += "date = " + q(date) + "\n";
  out += "hardware = " + q(hardware) + "\n";
  out += "software = " + q(software) + "\n";
  out += "made_by = " + q(made_by) + "\n";
  out += "metric = \"step_time_s\"\n\n";
  for (const auto& row : r.card.rows) {
    if (!row.measured || row.measured->status != "success") continue;
    const auto& w = row.workload;
    out += "[[reference]]\n";
    out += "workload = " + q(w.id) + "\nmodel = " + q(w.model) + "\nsize = " + q(w.size) +
           "\ndtype = " + q(w.dtype) + "\n";
    out += fmt::format("gpus = {}\nseq_len = {}\ngbs = {}\nstep_time_s = {:.6f}\n", w.gpus,
                       w.seq_len, w.gbs, row.measured->step_time_mean_s);
    if (row.measured->tflops_per_gpu)
      out += fmt::format("tflops_per_gpu = {:.3f}\n", *row.measured->tflops_per_gpu);
    out += "file = " + q(fs::path(row.measured->log_path).filename().string()) + "\n\n";
  }
  return out;
}

}  // namespace ys::validate
