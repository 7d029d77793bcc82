// `yardstick submit --suite h100 --cluster cluster.toml`: one sbatch job per workload of a suite,
// with the recipes' flags (slurm/sbatch_script.h), and one per serving phase (start the stack,
// wait for it, run the load generator: slurm/serving_script.h); `--wait` follows the jobs to their
// end, records their submit-to-start latency and runs the same validation as `yardstick validate`
// on the runs directory they wrote. Every job goes into the run history.
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "core/atomic_file.h"
#include "core/exit_codes.h"
#include "core/fresh_dir.h"
#include "core/log.h"
#include "core/run_document.h"
#include "core/run_document_json.h"
#include "core/text.h"
#include "core/text_table.h"
#include "history/history.h"
#include "report/output.h"
#include "report/scorecard_reporter.h"
#include "slurm/job_tracker.h"
#include "slurm/sbatch_script.h"
#include "slurm/serving_script.h"
#include "validate/validation.h"

namespace ys::cli::cmd_submit {
namespace {

namespace fs = std::filesystem;

struct SubmitArgs {
  std::string suite, cluster, runs, data, baselines, db;
  std::vector<std::string> references, workloads;
  bool dry_run = false, wait = false;
  double timeout_s = 86400, poll_s = 2, slurm_timeout_s = 30;
};

std::string HostName() {
  char host[256] = {0};
  ::gethostname(host, sizeof host - 1);
  return host;
}

history::SlurmJobRecord JobRecord(int64_t run_id, const slurm::TrackedJob& j,
                                  const std::string& script) {
  return {run_id,
          j.job_id,
          j.workload,
          j.info.state.empty() ? "SUBMITTED" : j.info.state,
          j.info.submit_time,
          j.info.start_time,
          j.info.end_time,
          j.info.SubmitToStartSeconds(),
          j.info.exit_code,
          j.info.node_list,
          script};
}

std::string Latency(const slurm::JobInfo& info) {
  auto s = info.SubmitToStartSeconds();
  return s ? fmt::format("{:.0f} s", *s) : std::string("-");
}

// The runs directory the jobs write to: --runs, or a fresh folder under yardstick-runs/ (claimed,
// except on a dry run, which only names one), absolute and without a trailing slash.
struct RunsDir {
  std::string path;
  bool claimed = false;
};

Result<RunsDir> ChooseRunsDir(const SubmitArgs& a) {
  RunsDir runs{a.runs};
  if (runs.path.empty()) {
    std::string stamp = UtcNowIso8601();
    for (char& c : stamp) c = (c == ':') ? '-' : c;
    runs.path = "yardstick-runs/" + stamp + "-submit";
    // Two submits started in the same second get -2, -3, ...: each claims its own folder (a dry
    // run only names one).
    if (!a.dry_run) {
      auto made = MakeFreshDirectory(runs.path);
      if (!made.ok()) return made.status();
      runs.path = *made;
      runs.claimed = true;
    }
  }
  std::error_code ec;
  runs.path = fs::absolute(runs.path, ec).lexically_normal().string();
  while (runs.path.size() > 1 && runs.path.back() == '/') runs.path.pop_back();
  return runs;
}

// One sbatch job per chosen workload and serving phase of the suite (--workload globs select
// both). Every script is made (and so every value checked) before anything is written or
// submitted.
Result<std::vector<slurm::SbatchJob>> MakeJobs(const SubmitArgs& a, const validate::Suite& suite,
                                               const slurm::ClusterConfig& cluster,
                                               std::string& runs_out) {
  auto chosen = [&](const std::string& id) {
    return a.workloads.empty() || MatchesAnyGlob(id, a.workloads);
  };
  std::vector<const validate::SuiteWorkload*> workloads;
  std::vector<const validate::ServingPhase*> phases;
  for (const auto& w : suite.workloads)
    if (chosen(w.id)) workloads.push_back(&w);
  for (const auto& p : suite.phases)
    if (chosen(p.id)) phases.push_back(&p);
  if (workloads.empty() && phases.empty()) {
    std::string ids;
    for (const auto& w : suite.workloads) ids += " " + w.id;
    for (const auto& p : suite.phases) ids += " " + p.id;
    return Status::Invalid("--workload: no workload or serving phase of suite " + suite.chip +
                           " matches; its workloads and phases:" + ids);
  }
  auto runs = ChooseRunsDir(a);
  if (!runs.ok()) return runs.status();
  std::vector<slurm::SbatchJob> jobs;
  auto add = [&](Result<slurm::SbatchJob> job) -> Status {
    if (!job.ok()) {
      std::error_code ec;
      if (runs->claimed) fs::remove(runs->path, ec);  // the empty folder claimed above
      return Status::Invalid(a.cluster + ": " + job.status().message());
    }
    jobs.push_back(std::move(*job));
    return Status::Ok();
  };
  for (const auto* w : workloads)
    YS_RETURN_IF_ERROR(add(slurm::MakeSbatchJob(cluster, suite, *w, runs->path)));
  for (const auto* p : phases)
    YS_RETURN_IF_ERROR(add(slurm::MakeServingJob(cluster, suite, *p, runs->path)));
  runs_out = runs->path;
  return jobs;
}

// --wait: follows the jobs to their end, records each in the history, then validates the runs
// directory as `yardstick validate` does.
Result<int> WaitAndValidate(const SubmitArgs& a, const slurm::SlurmClient& client,
                            history::HistoryDb& db, int64_t run_id, const std::string& runs,
                            const std::vector<slurm::SbatchJob>& jobs,
                            std::vector<slurm::TrackedJob>& tracked) {
  slurm::TrackOptions opts;
  opts.poll = std::chrono::milliseconds(static_cast<int64_t>(a.poll_s * 1000));
  opts.timeout = std::chrono::milliseconds(static_cast<int64_t>(a.timeout_s * 1000));
  opts.on_change = [&](const slurm::TrackedJob& j) {
    std::cerr << fmt::format("job {} {}: {}\n", j.job_id, j.workload, j.info.state);
    for (size_t i = 0; i < tracked.size(); ++i) {
      if (tracked[i].job_id == j.job_id)
        (void)db.UpsertSlurmJob(JobRecord(run_id, j, jobs[i].script_path));
    }
  };
  Status waited = slurm::TrackJobs(client, &tracked, opts);
  const TextTable table({{"workload", Align::kLeft, 28},
                         {"job", Align::kRight, 8, " "},
                         {"state", Align::kLeft, 11, " "},
                         {"exit", Align::kRight, 9, " "},
                         {"submit->start", Align::kRight, 16, " "},
                         {"nodes"}});
  std::cout << table.HeaderLine();
  for (size_t i = 0; i < tracked.size(); ++i) {
    const auto& t = tracked[i];
    std::cout << table.Line({t.workload, t.job_id, t.info.state.empty() ? "?" : t.info.state,
                             t.info.exit_code.empty() ? "-" : t.info.exit_code, Latency(t.info),
                             t.info.node_list.empty() ? "-" : t.info.node_list});
    if (Status s = db.UpsertSlurmJob(JobRecord(run_id, t, jobs[i].script_path)); !s.ok()) return s;
  }
  if (!waited.ok()) {
    (void)db.SetRunVerdict(run_id, "error", runs, "");
    return waited;
  }

  auto in = validate::ResolveInputs(a.suite, DataDir(a.data), a.baselines, a.references, runs);
  if (!in.ok()) return in.status();
  auto result = validate::RunValidation(*in);
  if (!result.ok()) return result.status();
  std::string doc_path = runs + "/validation.json";
  std::string doc = DumpJson(*result->document);
  if (Status s = WriteFileAtomic(doc_path, doc + "\n"); !s.ok()) return s;
  report::WriteScorecard(result->card, ColorOnStdout(), std::cout);
  if (Status s = db.SetRunVerdict(run_id, result->card.State(), doc_path, doc); !s.ok()) return s;
  std::cout << "validation document: " << doc_path << "\nhistory: " << db.path() << " (run "
            << run_id << ")\n";
  return result->card.ExitCode();
}

Result<int> RunSubmit(const SubmitArgs& a) {
  auto suite = validate::LoadSuiteByName(a.suite, DataDir(a.data));
  if (!suite.ok()) return suite.status();
  auto cluster = slurm::LoadClusterConfig(a.cluster);
  if (!cluster.ok()) return cluster.status();
  std::string runs;
  auto jobs = MakeJobs(a, *suite, *cluster, runs);
  if (!jobs.ok()) return jobs.status();
  if (a.dry_run) {
    for (const auto& j : *jobs) {
      std::cout << "# ---- " << j.script_path << " (sbatch --parsable " << j.script_path << ")\n"
                << j.script;
    }
    return kExitPass;
  }

  auto db = history::HistoryDb::Open(a.db.empty() ? history::DefaultHistoryPath() : a.db);
  if (!db.ok()) return db.status();
  std::string command = "submit --suite " + a.suite + " --cluster " + a.cluster + " --runs " + runs;
  auto run_id = db->AddRun({0, UtcNowIso8601(), command, HostName(), "submitted", runs, ""});
  if (!run_id.ok()) return run_id.status();

  slurm::SlurmClient client(
      std::chrono::milliseconds(static_cast<int64_t>(a.slurm_timeout_s * 1000)));
  std::vector<slurm::TrackedJob> tracked;
  for (const auto& j : *jobs) {
    std::error_code ec;
    fs::create_directories(j.log_dir, ec);
    if (ec) return Status::Io(j.log_dir + ": " + ec.message());
    if (Status s = WriteFileAtomic(j.script_path, j.script); !s.ok()) return s;
    auto id = client.Submit(j.script_path);
    if (!id.ok()) {
      std::string done;
      for (const auto& t : tracked) done += " " + t.job_id;
      Log(LogLevel::kError, "{}: {}", j.workload, id.status().message());
      if (!done.empty()) Log(LogLevel::kError, "already submitted (not cancelled):{}", done);
      (void)db->SetRunVerdict(*run_id, "error", runs, "");
      return kExitCannotRun;
    }
    tracked.push_back({j.workload, *id, {}});
    std::cout << fmt::format("submitted {}: job {} ({} node(s) x {} tasks), log {}\n", j.workload,
                             *id, j.nodes, j.tasks_per_node, j.log_pattern);
    if (Status s = db->UpsertSlurmJob(JobRecord(*run_id, tracked.back(), j.script_path)); !s.ok())
      return s;
  }
  std::cout << "runs directory: " << runs << "\n";
  if (!a.wait) {
    std::cout << "validate when they have ended: yardstick validate --suite " << a.suite
              << " --runs " << runs << "\n";
    return kExitPass;
  }
  return WaitAndValidate(a, client, *db, *run_id, runs, *jobs, tracked);
}

Action Setup(CLI::App& sub) {
  auto a = std::make_shared<SubmitArgs>();
  sub.add_option("--suite", a->suite, "Suite: a chip name (h100, ...) or a .toml")->required();
  sub.add_option("--cluster", a->cluster,
                 "cluster.toml: partition, account, container, launch command")
      ->required();
  sub.add_option("--workload", a->workloads,
                 "Only workloads and serving phases whose ids match these globs")
      ->delimiter(',');
  sub.add_option("--runs", a->runs,
                 "Directory the jobs write their logs into, on a file system the nodes share "
                 "(default ./yardstick-runs/<UTC time>-submit, with -2, -3, ... when that exists)");
  sub.add_flag("--dry-run", a->dry_run, "Print the sbatch scripts; submit nothing");
  sub.add_flag("--wait", a->wait,
               "Follow the jobs until they end, then validate the runs directory");
  sub.add_option("--timeout", a->timeout_s,
                 "With --wait: give up waiting after this many seconds (jobs are kept)");
  sub.add_option("--poll", a->poll_s, "With --wait: seconds between looks at the queue");
  sub.add_option("--slurm-timeout", a->slurm_timeout_s,
                 "Seconds each sbatch/squeue/scontrol call may take");
  sub.add_option("--db", a->db,
                 "Run history database (default ~/.local/share/yardstick/history.db)");
  sub.add_option("--data", a->data, "Directory holding suites/, baselines/, specs/");
  sub.add_option("--baselines", a->baselines,
                 "With --wait: reference directory (default <data>/baselines/<chip>)");
  sub.add_option("--reference", a->references,
                 "With --wait: additional reference file (repeatable)");
  return [a]() -> Result<int> {
    YS_RETURN_IF_ERROR(RefuseOutOfRange(
        {CheckRange(a->timeout_s, 0, kMaxTimeoutSeconds, "--timeout", LowerBound::kExclusive),
         CheckRange(a->poll_s, 0, 3600, "--poll", LowerBound::kExclusive),
         CheckRange(a->slurm_timeout_s, 0, kMaxTimeoutSeconds, "--slurm-timeout",
                    LowerBound::kExclusive)}));
    return RunSubmit(*a);
  };
}

}  // namespace

YS_REGISTER(
    CommandOf<Setup>,
    {.id = "submit",
     .summary =
         "Submit a suite's recipes to Slurm, one sbatch job per workload or serving phase; --wait "
         "validates them"})

}  // namespace ys::cli::cmd_submit
