#include "job/job.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <utility>

#include "bench/runner.h"
#include "bench/session.h"
#include "checks/site_expectations.h"
#include "comm/liveness.h"
#include "core/exit_codes.h"
#include "core/json_fields.h"
#include "core/log.h"
#include "core/run_document_fields.h"
#include "core/run_document_json.h"
#include "core/text.h"
#include "core/watchdog.h"
#include "host/host_info.h"
#include "job/conclusions.h"
#include "job/job_state.h"

namespace ys::job {
namespace {

// How long the other ranks wait past the timeout before they end themselves: rank 0 needs the
// time to probe the ranks and save the document.
constexpr double kGraceSeconds = 20;

// Which ranks share a host: rank -> index among the ranks of its host, and the host's ranks.
struct Placement {
  std::vector<int> node_rank;
  std::map<std::string, std::vector<int>> ranks_of_host;
  std::vector<std::string> host_order;  // hosts by their first rank
};

Placement Place(const std::vector<std::string>& hostnames) {
  Placement p;
  for (int r = 0; r < static_cast<int>(hostnames.size()); ++r) {
    auto& ranks = p.ranks_of_host[hostnames[r]];
    if (ranks.empty()) p.host_order.push_back(hostnames[r]);
    p.node_rank.push_back(static_cast<int>(ranks.size()));
    ranks.push_back(r);
  }
  return p;
}

NodeReport& NodeOf(RunDocument& doc, const std::string& host) {
  for (auto& n : doc.nodes) {
    if (n.hostname == host) return n;
  }
  return doc.nodes.emplace_back(NodeReport{.hostname = host});
}

// What the leader of a node sends rank 0 after its preflight: the checks, or why there are none.
struct PreflightPayload {
  bool ran = false;  // the checks, warnings and GPU source are there (no error)
  std::vector<CheckResult> checks;
  std::vector<std::string> warnings;
  std::string gpu_source;
  std::string error;
};

template <typename V>
void Fields(V& v, PreflightPayload& p) {
  v.optional("checks", p.checks, p.ran);
  v.optional("warnings", p.warnings, p.ran);
  v.optional("gpu_source", p.gpu_source, p.ran);
  v.optional("error", p.error);
}

void AddWarnings(RunDocument& doc, const std::vector<std::string>& warnings) {
  for (const auto& w : warnings) {
    if (std::find(doc.warnings.begin(), doc.warnings.end(), w) == doc.warnings.end())
      doc.warnings.push_back(w);
  }
}

// What one rank holds while the job runs; the steps read and fill it in turn.
struct Job {
  Job(const JobOptions& options, comm::Communicator& c, const host::Host& live_host)
      : o(options),
        comm(c),
        live(live_host),
        rank(c.rank()),
        size(c.size()),
        multi(size > 1),
        bench(options.bench),
        dog(options.timeout_s <= 0 ? 0 : options.timeout_s + (rank == 0 ? 0 : kGraceSeconds),
            [this](const std::string& step, double seconds) { Expire(step, seconds); }) {}

  // The watchdog: rank 0 saves and ends the job; the others end themselves a little later.
  void Expire(const std::string& step, double seconds) {
    std::string reason = fmt::format("{} did not finish within --timeout {:.0f} s ({:.0f} s)", step,
                                     o.timeout_s, seconds);
    if (state) state->Abort(reason);
    Log(LogLevel::kError, "rank {}: {}; ending this rank", rank, reason);
    std::_Exit(kExitCannotRun);
  }

  const JobOptions& o;
  comm::Communicator& comm;
  const host::Host& live;
  const int rank, size;
  const bool multi;
  const Clock::time_point t0 = Clock::now();
  std::optional<bench::BenchOptions> bench;  // with the site file's unit parameters
  std::unique_ptr<JobState> state;           // rank 0, from "starting the document"
  std::unique_ptr<SignalCatcher> signals;    // rank 0, as long as the document is open
  Watchdog dog;
  // Placing the ranks.
  std::vector<std::string> hostnames;
  Placement place;
  bool leader = false;  // the first rank of its node
  comm::LaunchInfo launch;
  std::unique_ptr<comm::LivenessResponder> responder;
  std::vector<std::string> endpoints;
  // Loaded once: the site file; this node's preflight (a node leader's).
  std::optional<checks::SiteExpectations> site;
  Result<RunDocument> preflight = Status::NotFound("no preflight");
  std::string preflight_error;  // rank 0: a node's preflight refused its options
  // The benchmarks' session, while they run.
  std::unique_ptr<bench::BenchContext> bench_ctx;
  std::string current;     // the benchmark running now
  std::string code = "0";  // the exit code rank 0 chose
};

// Where a step's work runs. Every rank takes part in the gather of a step that has one.
enum class Where { kEveryRank, kNodeLeaders, kRankZero };

// What the ranks sent rank 0 for one step: each rank that sent something, in rank order.
using Payloads = std::vector<std::pair<int, std::string>>;

// One step of the job: its name, where it runs, what it does, how its results merge.
struct Step {
  std::string name;
  Where where;
  // What it does on a rank where it runs: what that rank sends rank 0 ("": nothing), or an error
  // that ends the job (only one that every rank meets alike, or rank 0's alone at the end).
  std::function<Result<std::string>(Job&)> run;
  // Rank 0: how what the ranks sent enters the document. Unset: nothing is gathered.
  std::function<void(Job&, RunDocument&, const Payloads&)> merge;
};

bool RunsHere(const Job& job, Where where) {
  switch (where) {
    case Where::kEveryRank:
      return true;
    case Where::kNodeLeaders:
      return job.leader;
    case Where::kRankZero:
      return job.rank == 0;
  }
  return false;
}

// The one gather of the job: every rank's payload for `step` to rank 0, which merges the ones
// sent into the document in one update (saved after). A failed gather ends the job the way a
// timeout does (rank 0 names the silent ranks), so it is never a silent partial document.
Status GatherToRankZero(Job& job, const Step& step, const std::string& payload) {
  const std::string what = "gathering " + step.name;
  auto got = InStep(job.dog, what, [&] { return job.comm.Gather(payload, 0); });
  if (!got.ok() && job.state) job.state->Abort(what + " failed: " + got.status().message());
  if (!got.ok()) return got.status();
  if (job.rank != 0) return Status::Ok();
  Payloads sent;
  for (int r = 0; r < job.size; ++r) {
    if (!(*got)[r].empty()) sent.emplace_back(r, std::move((*got)[r]));
  }
  job.state->Update([&](RunDocument& doc) { step.merge(job, doc, sent); });
  return Status::Ok();
}

Status RunStep(Job& job, const Step& step) {
  std::string payload;
  if (RunsHere(job, step.where)) {
    auto out = step.run(job);
    if (!out.ok()) return out.status();
    payload = std::move(*out);
  }
  if (!step.merge) return Status::Ok();
  return GatherToRankZero(job, step, payload);
}

// Every rank: who is where (the host names), each node's first rank, the launch.
Result<std::string> PlaceRanks(Job& job) {
  auto names = InStep(job.dog, "gathering host names", [&] { return job.comm.Hostnames(); });
  if (!names.ok()) return names.status();
  job.hostnames = *names;
  job.place = Place(job.hostnames);
  job.leader = job.place.node_rank[job.rank] == 0;
  job.launch = comm::DetectLaunch(job.live.env());
  job.launch.local_rank = job.place.node_rank[job.rank];
  job.launch.local_size = static_cast<int>(job.place.ranks_of_host[job.hostnames[job.rank]].size());
  return std::string();
}

// Every rank of a multi-rank job: the liveness responder, and every rank's endpoint (rank 0
// probes them when the job is cut short).
Result<std::string> StartLiveness(Job& job) {
  auto started = comm::LivenessResponder::Start(job.hostnames[job.rank]);
  if (!started.ok())
    Log(LogLevel::kWarn, "rank {}: {} (lost ranks will not be named)", job.rank,
        started.status().message());
  else
    job.responder = std::move(*started);
  if (job.responder)
    Log(LogLevel::kDebug, "rank {}: liveness responder on {}", job.rank, job.responder->endpoint());
  auto all = InStep(job.dog, "gathering liveness endpoints", [&] {
    return job.comm.AllGather(job.responder ? job.responder->endpoint() : "");
  });
  if (!all.ok()) return all.status();
  job.endpoints = *all;
  return std::string();
}

// Every rank: the site file, read once for the checks and the benchmarks.
Result<std::string> LoadSite(Job& job) {
  auto site = checks::LoadSiteExpectations(job.o.site_path);
  if (!site.ok()) return site.status();
  if (job.bench) job.bench->unit_params = site->params;
  job.site = std::move(*site);
  return std::string();
}

// Each node's first rank: the checks, on the host the job was given unless the preflight reads
// a recorded tree (--root). Bad options end a single-process job here; on several ranks they
// travel to rank 0 with the preflight, so that every rank ends alike.
Result<std::string> RunNodePreflight(Job& job) {
  if (job.multi && job.rank == 0)
    Log(LogLevel::kInfo, "running the preflight on {} nodes", job.place.host_order.size());
  checks::PreflightOptions po = *job.o.preflight;
  po.command = job.o.command;
  if (po.root == "/" && po.bug_report.empty()) po.host = &job.live;
  if (job.site) po.expect = &*job.site;
  job.preflight = InStep(job.dog, "preflight", [&] { return checks::RunPreflight(po); });
  if (!job.multi && !job.preflight.ok()) return job.preflight.status();
  return std::string();
}

// Rank 0: the document, begun from its own preflight (or empty), with the ranks and nodes of a
// multi-rank job; saved from now on, and the signals that end the job caught.
Result<std::string> StartDocument(Job& job) {
  const JobOptions& o = job.o;
  RunDocument doc = job.preflight.ok() ? *job.preflight : StartRunDocument(o.command);
  // The host is the live one unless the preflight read a recorded tree (--root).
  if (!o.preflight) doc.host = host::ReadHostInfo(job.live);
  doc.command = o.command;
  if (job.multi) {
    const Placement& place = job.place;
    doc.checks.clear();
    for (int r = 0; r < job.size; ++r) {
      doc.ranks.push_back(
          RankStatus{.rank = r, .hostname = job.hostnames[r], .local_rank = place.node_rank[r]});
    }
    for (const auto& h : place.host_order)
      doc.nodes.push_back(NodeReport{.hostname = h, .ranks = place.ranks_of_host.at(h)});
    doc.warnings.push_back(
        fmt::format("{} ranks on {} node{} ({}); checks and node-local benchmarks ran on each "
                    "node's first rank",
                    job.size, place.host_order.size(), place.host_order.size() == 1 ? "" : "s",
                    job.launch.launcher.empty() ? "MPI" : job.launch.launcher));
  }
  AddWarnings(doc, o.warnings);
  job.state = std::make_unique<JobState>(std::move(doc), o.out_path, o.on_abort, job.t0);
  job.state->set_endpoints(job.endpoints);
  job.signals = std::make_unique<SignalCatcher>(*job.state);
  return std::string();
}

// Each node's first rank: its preflight for rank 0, or why there is none.
Result<std::string> PreflightPayloadOf(Job& job) {
  PreflightPayload mine;
  if (job.preflight.ok()) {
    mine = {.ran = true,
            .checks = job.preflight->checks,
            .warnings = job.preflight->warnings,
            .gpu_source = job.preflight->host.gpu_source};
  } else {
    mine.error = job.preflight.status().message();
  }
  return json_fields::Write(mine).dump(-1, ' ', false,
                                       nlohmann::ordered_json::error_handler_t::replace);
}

// Rank 0: each node's checks under its node, the warnings once, the GPU source of rank 0's.
void MergePreflight(Job& job, RunDocument& doc, const Payloads& sent) {
  for (const auto& [r, text] : sent) {
    auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded()) continue;
    auto p = json_fields::Parse<PreflightPayload>(j, fmt::format("rank {} preflight", r));
    if (!p.ok()) {
      AddWarnings(doc, {p.status().message()});
      continue;
    }
    if (!p->error.empty()) {
      job.preflight_error = p->error;
      continue;
    }
    NodeReport& node = NodeOf(doc, job.hostnames[r]);
    for (auto& c : p->checks) node.checks.push_back(std::move(c));
    AddWarnings(doc, p->warnings);
    if (r == 0) doc.host.gpu_source = p->gpu_source;
  }
}

// Every rank: bad options fail on every node alike, so every rank returns the error.
Result<std::string> SharePreflightError(Job& job) {
  if (Status s = job.comm.Broadcast(job.preflight_error, 0); !s.ok()) return s;
  if (!job.preflight_error.empty()) return Status::Invalid(job.preflight_error);
  return std::string();
}

Result<std::string> SaveDocument(Job& job) {
  job.state->Update([](RunDocument&) {});
  return std::string();
}

// Every rank: the benchmarks' session; its warnings in the document (rank 0).
Result<std::string> OpenBenchSession(Job& job) {
  job.bench_ctx = std::make_unique<bench::BenchContext>(job.live, job.comm, *job.bench, job.launch);
  job.bench_ctx->set_on_progress(
      [&job](const std::string& what) { job.dog.Enter(job.current + ": " + what); });
  if (job.rank == 0) {
    job.state->Update(
        [&job](RunDocument& doc) { AddWarnings(doc, bench::SessionWarnings(*job.bench_ctx)); });
  }
  return std::string();
}

Result<std::string> CloseBenchSession(Job& job) {
  job.bench_ctx.reset();
  return std::string();
}

// Rank 0: one benchmark's results. One process: the document's; a job-wide unit: rank 0's unless
// another rank saw worse; a node-local or per-rank unit: each node's (a per-rank figure says its
// rank).
void MergeBenchmark(const Job& job, RunDocument& doc, const Payloads& sent,
                    bench::Benchmark::Reach reach, const std::string& id) {
  std::optional<BenchmarkResult> job_wide;
  for (const auto& [r, text] : sent) {
    auto res = BenchmarkResultFromJson(nlohmann::json::parse(text, nullptr, false),
                                       fmt::format("rank {} {}", r, id));
    if (!res.ok()) continue;
    if (!job.multi) {
      doc.benchmarks.push_back(std::move(*res));
    } else if (reach == bench::Benchmark::Reach::kJob) {
      if (!job_wide || res->outcome > job_wide->outcome) {
        if (job_wide && r != 0)
          res->summary = fmt::format("rank {} ({}): {}", r, job.hostnames[r], res->summary);
        job_wide = std::move(*res);
      }
    } else {
      if (reach == bench::Benchmark::Reach::kRank) {
        for (auto& m : res->measurements) m.params["rank"] = std::to_string(r);
      }
      NodeOf(doc, job.hostnames[r]).benchmarks.push_back(std::move(*res));
    }
  }
  if (job_wide) doc.benchmarks.push_back(std::move(*job_wide));
}

// One selected benchmark: run on every rank it reaches, gathered and merged by its reach.
Step BenchmarkStep(const std::string& id) {
  const RegisteredUnit* unit = UnitRegistry::Global().Find(UnitKind::kBenchmark, id);
  std::shared_ptr<const Unit> made = unit->factory();
  const auto* b = dynamic_cast<const bench::Benchmark*>(made.get());
  const auto reach = b != nullptr ? b->reach() : bench::Benchmark::Reach::kNode;
  auto run = [id, made, b](Job& job) -> Result<std::string> {
    if (job.state) job.state->Starting(id);
    if (!bench::RunsOnThisRank(b, *job.bench_ctx)) return std::string();
    job.current = id;
    BenchmarkResult r =
        InStep(job.dog, id, [&] { return bench::RunBenchmark(*job.bench_ctx, id); });
    return DumpJson(ToJson(r));
  };
  auto merge = [id, reach](Job& job, RunDocument& doc, const Payloads& sent) {
    MergeBenchmark(job, doc, sent, reach, id);
  };
  return {.name = id, .where = Where::kEveryRank, .run = run, .merge = merge};
}

// Rank 0: the conclusions, each drawn from the whole document the same way: the fleet outliers
// of a run on several nodes, then the caller's (the diagnosis).
Result<std::string> DrawConclusions(Job& job) {
  std::vector<Conclusion> all;
  if (job.place.host_order.size() > 1) all.push_back(FleetOutliersConclusion());
  all.insert(all.end(), job.o.conclusions.begin(), job.o.conclusions.end());
  for (const Conclusion& c : all) job.state->Update(c.draw);
  return std::string();
}

// Rank 0: the document complete, shown; the exit code chosen.
Result<std::string> Emit(Job& job) {
  RunDocument done = job.state->Finish();
  job.signals.reset();
  job.code = std::to_string(job.o.emit ? job.o.emit(done) : 0);
  return std::string();
}

// Every rank waits for rank 0's exit code inside the job, so each one's watchdog and liveness
// responder last until the very end.
Result<std::string> ShareExitCode(Job& job) {
  Status s =
      InStep(job.dog, "sharing the exit code", [&] { return job.comm.Broadcast(job.code, 0); });
  if (!s.ok()) return s;
  return std::string();
}

// The job's steps in order (docs/design.md §job).
std::vector<Step> StepsOf(const Job& job) {
  const JobOptions& o = job.o;
  std::vector<Step> steps = {{"placing the ranks", Where::kEveryRank, PlaceRanks}};
  if (job.multi) steps.push_back({"liveness endpoints", Where::kEveryRank, StartLiveness});
  if (!o.site_path.empty()) steps.push_back({"the site file", Where::kEveryRank, LoadSite});
  if (o.preflight) steps.push_back({"preflight", Where::kNodeLeaders, RunNodePreflight});
  steps.push_back({"starting the document", Where::kRankZero, StartDocument});
  if (job.multi && o.preflight) {
    steps.push_back({"the preflight", Where::kNodeLeaders, PreflightPayloadOf, MergePreflight});
    steps.push_back({"sharing the preflight's errors", Where::kEveryRank, SharePreflightError});
  } else {
    steps.push_back({"saving the document", Where::kRankZero, SaveDocument});
  }
  if (o.bench) {
    steps.push_back({"opening the benchmark session", Where::kEveryRank, OpenBenchSession});
    for (const std::string& id : bench::SelectedBenchmarks(*o.bench))
      steps.push_back(BenchmarkStep(id));
    steps.push_back({"closing the benchmark session", Where::kEveryRank, CloseBenchSession});
  }
  steps.push_back({"conclusions", Where::kRankZero, DrawConclusions});
  steps.push_back({"showing the document", Where::kRankZero, Emit});
  if (job.multi) steps.push_back({"sharing the exit code", Where::kEveryRank, ShareExitCode});
  return steps;
}

}  // namespace

Result<int> RunJob(const JobOptions& o, comm::Communicator& comm, const host::Host& live) {
  if (o.bench) YS_RETURN_IF_ERROR(bench::CheckSelection(*o.bench));
  Job job(o, comm, live);
  for (const Step& step : StepsOf(job)) YS_RETURN_IF_ERROR(RunStep(job, step));
  auto parsed = ParseInt(job.code);
  return parsed ? static_cast<int>(*parsed) : kExitCannotRun;
}

}  // namespace ys::job
