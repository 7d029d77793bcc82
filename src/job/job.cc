#include "job/job.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "bench/runner.h"
#include "bench/session.h"
#include "comm/liveness.h"
#include "core/atomic_file.h"
#include "core/exit_codes.h"
#include "core/json_fields.h"
#include "core/log.h"
#include "core/report_fields.h"
#include "core/report_json.h"
#include "core/text.h"
#include "core/watchdog.h"
#include "fleet/findings.h"
#include "host/host_info.h"
#include "report/output.h"

namespace ys::job {
namespace {

using Clock = std::chrono::steady_clock;

// How long the other ranks wait past the timeout before they end themselves: rank 0 needs the
// time to probe the ranks and save the document.
constexpr double kGraceSeconds = 20;
constexpr double kProbeSeconds = 10;

// Rank 0's document, shared with the watchdog and the signal thread.
class JobState {
 public:
  JobState(RunDocument doc, std::string out_path, std::function<void(const RunDocument&)> on_abort,
           Clock::time_point t0)
      : doc_(std::move(doc)),
        out_path_(std::move(out_path)),
        on_abort_(std::move(on_abort)),
        t0_(t0) {}

  // Changes the document under the lock, then saves it (incomplete until Finish).
  template <typename Fn>
  void Update(Fn&& fn) {
    std::lock_guard<std::mutex> lock(mu_);
    fn(doc_);
    doc_.incomplete = true;
    SaveLocked();
  }

  // Saves the document saying which step runs now: if the job dies without a word (SIGKILL),
  // the document on disk still says where it ended.
  void Starting(const std::string& step) {
    std::lock_guard<std::mutex> lock(mu_);
    doc_.incomplete = true;
    doc_.incomplete_reason =
        "the job ended (or was still running) during " + step + ", started " + UtcNowIso8601();
    SaveLocked();
  }

  RunDocument Finish() {
    std::lock_guard<std::mutex> lock(mu_);
    doc_.incomplete = false;
    doc_.incomplete_reason.clear();
    doc_.duration_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0_).count();
    SaveLocked();
    return doc_;
  }

  void set_endpoints(std::vector<std::string> e) {
    std::lock_guard<std::mutex> lock(mu_);
    endpoints_ = std::move(e);
  }

  // Saves the document marked incomplete with `reason` and the ranks that no longer answer,
  // shows it, and ends the process. Called at most once (later callers wait for the exit).
  [[noreturn]] void Abort(const std::string& reason) {
    if (aborting_.exchange(true)) {
      for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
    }
    Log(LogLevel::kError, "{}", reason);
    std::lock_guard<std::mutex> lock(mu_);
    // Saved at once: a launcher that follows SIGTERM with SIGKILL leaves no time for the probe.
    doc_.incomplete = true;
    doc_.incomplete_reason = reason;
    SaveLocked();
    std::string named;
    if (endpoints_.size() > 1) {
      std::vector<std::string> others = endpoints_;
      others[0].clear();  // rank 0 is this process
      for (int r : comm::UnansweredEndpoints(others, kProbeSeconds)) {
        if (r == 0 || r >= static_cast<int>(doc_.ranks.size())) continue;
        RankStatus& rs = doc_.ranks[r];
        rs.state = "lost";
        rs.detail = fmt::format("did not answer a liveness probe within {:.0f} s: it died or hangs",
                                kProbeSeconds);
        named += fmt::format("{}rank {} on {}", named.empty() ? "" : ", ", r, rs.hostname);
      }
      if (named.empty())
        named = "every rank still answers (a hung collective, device or file system)";
      else
        named += " stopped answering";
    }
    doc_.incomplete = true;
    doc_.incomplete_reason = named.empty() ? reason : reason + "; " + named;
    doc_.duration_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0_).count();
    SaveLocked();
    Log(LogLevel::kError, "run incomplete: {}", doc_.incomplete_reason);
    if (!out_path_.empty()) Log(LogLevel::kError, "what was measured is kept in {}", out_path_);
    if (on_abort_) on_abort_(doc_);
    std::fflush(stdout);
    std::fflush(stderr);
    std::_Exit(kExitCannotRun);
  }

 private:
  void SaveLocked() {
    if (out_path_.empty()) return;
    if (Status s = WriteFileAtomic(out_path_, DumpJson(ToJson(doc_)) + "\n"); !s.ok()) {
      Log(LogLevel::kWarn, "{}", s.message());
    }
  }

  std::mutex mu_;
  RunDocument doc_;
  std::string out_path_;
  std::function<void(const RunDocument&)> on_abort_;
  Clock::time_point t0_;
  std::vector<std::string> endpoints_;
  std::atomic<bool> aborting_{false};
};

// SIGTERM, SIGINT and SIGHUP reach rank 0's JobState through a pipe (the handler only writes a
// byte; the work happens on an ordinary thread).
int g_signal_pipe[2] = {-1, -1};

extern "C" void OnSignal(int signo) {
  unsigned char b = static_cast<unsigned char>(signo);
  [[maybe_unused]] ssize_t n = ::write(g_signal_pipe[1], &b, 1);
}

class SignalCatcher {
 public:
  explicit SignalCatcher(JobState& state) {
    if (::pipe2(g_signal_pipe, O_CLOEXEC) != 0) return;
    struct sigaction sa {};
    sa.sa_handler = OnSignal;
    sigemptyset(&sa.sa_mask);
    for (int s : {SIGTERM, SIGINT, SIGHUP}) ::sigaction(s, &sa, &old_[s]);
    thread_ = std::thread([&state] {
      unsigned char b = 0;
      if (::read(g_signal_pipe[0], &b, 1) != 1 || b == 0) return;
      state.Abort(
          fmt::format("terminated by signal {} ({}): the launcher ends the job when a rank "
                      "dies, or the job was cancelled",
                      static_cast<int>(b), ::strsignal(b)));
    });
  }
  ~SignalCatcher() {
    if (!thread_.joinable()) return;
    for (int s : {SIGTERM, SIGINT, SIGHUP}) ::sigaction(s, &old_[s], nullptr);
    unsigned char zero = 0;
    [[maybe_unused]] ssize_t n = ::write(g_signal_pipe[1], &zero, 1);
    thread_.join();
    ::close(g_signal_pipe[0]);
    ::close(g_signal_pipe[1]);
  }

 private:
  struct sigaction old_[NSIG] {};
  std::thread thread_;
};

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

}  // namespace

Result<int> RunJob(const JobOptions& o, comm::Communicator& comm, const host::Host& live) {
  const auto t0 = Clock::now();
  const int rank = comm.rank(), size = comm.size();
  const bool multi = size > 1;
  if (o.bench) YS_RETURN_IF_ERROR(bench::CheckSelection(*o.bench));

  std::unique_ptr<JobState> state;  // rank 0 only
  std::unique_ptr<SignalCatcher> signals;
  // The watchdog: rank 0 saves and ends the job; the others end themselves a little later.
  Watchdog dog(o.timeout_s <= 0 ? 0 : (rank == 0 ? o.timeout_s : o.timeout_s + kGraceSeconds),
               [&state, &o, rank](const std::string& step, double seconds) {
                 std::string reason =
                     fmt::format("{} did not finish within --timeout {:.0f} s ({:.0f} s)", step,
                                 o.timeout_s, seconds);
                 if (state) state->Abort(reason);
                 Log(LogLevel::kError, "rank {}: {}; ending this rank", rank, reason);
                 std::_Exit(kExitCannotRun);
               });

  // Who is where.
  auto names = InStep(dog, "gathering host names", [&] { return comm.Hostnames(); });
  if (!names.ok()) return names.status();
  const std::vector<std::string> hostnames = *names;
  Placement place = Place(hostnames);
  const bool leader = place.node_rank[rank] == 0;
  comm::LaunchInfo launch = comm::DetectLaunch(live.env());
  launch.local_rank = place.node_rank[rank];
  launch.local_size = static_cast<int>(place.ranks_of_host[hostnames[rank]].size());

  // The liveness responder (every rank) and its endpoints (rank 0).
  std::unique_ptr<comm::LivenessResponder> responder;
  std::vector<std::string> endpoints;
  if (multi) {
    auto started = comm::LivenessResponder::Start(hostnames[rank]);
    if (!started.ok())
      Log(LogLevel::kWarn, "rank {}: {} (lost ranks will not be named)", rank,
          started.status().message());
    else
      responder = std::move(*started);
    if (responder)
      Log(LogLevel::kDebug, "rank {}: liveness responder on {}", rank, responder->endpoint());
    auto all = InStep(dog, "gathering liveness endpoints",
                      [&] { return comm.AllGather(responder ? responder->endpoint() : ""); });
    if (!all.ok()) return all.status();
    endpoints = *all;
  }

  // The preflight: one process, or each node's first rank.
  Result<RunDocument> preflight = StartRunDocument(o.command);
  if (o.preflight && leader) {
    if (multi && rank == 0)
      Log(LogLevel::kInfo, "running the preflight on {} nodes", place.host_order.size());
    checks::PreflightOptions po = *o.preflight;
    po.command = o.command;
    preflight = InStep(dog, "preflight", [&] { return checks::RunPreflight(po); });
  }
  if (!multi && !preflight.ok()) return preflight.status();

  RunDocument first = preflight.ok() ? *preflight : StartRunDocument(o.command);
  // The host is the live one unless the preflight read a recorded tree (--root).
  if (!o.preflight) first.host = host::ReadHostInfo(live);
  if (rank == 0) {
    RunDocument doc = first;
    doc.command = o.command;
    if (multi) {
      doc.checks.clear();
      for (int r = 0; r < size; ++r) {
        doc.ranks.push_back(
            RankStatus{.rank = r, .hostname = hostnames[r], .local_rank = place.node_rank[r]});
      }
      for (const auto& h : place.host_order)
        doc.nodes.push_back(NodeReport{.hostname = h, .ranks = place.ranks_of_host[h]});
      doc.warnings.push_back(
          fmt::format("{} ranks on {} node{} ({}); checks and node-local benchmarks ran on each "
                      "node's first rank",
                      size, place.host_order.size(), place.host_order.size() == 1 ? "" : "s",
                      launch.launcher.empty() ? "MPI" : launch.launcher));
    }
    AddWarnings(doc, o.warnings);
    state = std::make_unique<JobState>(std::move(doc), o.out_path, o.on_abort, t0);
    state->set_endpoints(endpoints);
    signals = std::make_unique<SignalCatcher>(*state);
  }

  // Gathers one step's payload to rank 0; a failed gather ends the job the same way a timeout
  // does (rank 0 names the silent ranks), so it is never a silent partial document.
  auto gather = [&](const std::string& step,
                    const std::string& payload) -> Result<std::vector<std::string>> {
    auto got = InStep(dog, "gathering " + step, [&] { return comm.Gather(payload, 0); });
    if (!got.ok() && state)
      state->Abort("gathering " + step + " failed: " + got.status().message());
    return got;
  };

  if (multi && o.preflight) {
    PreflightPayload mine;
    if (leader && preflight.ok()) {
      mine = {.ran = true,
              .checks = preflight->checks,
              .warnings = preflight->warnings,
              .gpu_source = preflight->host.gpu_source};
    } else if (leader) {
      mine.error = preflight.status().message();
    }
    auto all = gather("the preflight",
                      leader ? json_fields::Write(mine).dump(
                                   -1, ' ', false, nlohmann::ordered_json::error_handler_t::replace)
                             : "");
    if (!all.ok()) return all.status();
    std::string error;
    if (rank == 0) {
      state->Update([&](RunDocument& doc) {
        for (int r = 0; r < size; ++r) {
          if ((*all)[r].empty()) continue;
          auto j = nlohmann::json::parse((*all)[r], nullptr, false);
          if (j.is_discarded()) continue;
          auto p = json_fields::Parse<PreflightPayload>(j, fmt::format("rank {} preflight", r));
          if (!p.ok()) {
            AddWarnings(doc, {p.status().message()});
            continue;
          }
          if (!p->error.empty()) {
            error = p->error;
            continue;
          }
          NodeReport& node = NodeOf(doc, hostnames[r]);
          for (auto& c : p->checks) node.checks.push_back(std::move(c));
          AddWarnings(doc, p->warnings);
          if (r == 0) doc.host.gpu_source = p->gpu_source;
        }
      });
    }
    // Bad options fail on every node alike: every rank returns the error.
    if (Status s = comm.Broadcast(error, 0); !s.ok()) return s;
    if (!error.empty()) return Status::Invalid(error);
  } else if (rank == 0) {
    state->Update([](RunDocument&) {});
  }

  if (o.bench) {
    bench::BenchContext ctx(live, comm, *o.bench, launch);
    std::string current;
    ctx.set_on_progress([&](const std::string& what) { dog.Enter(current + ": " + what); });
    if (rank == 0)
      state->Update([&](RunDocument& doc) { AddWarnings(doc, bench::SessionWarnings(ctx)); });
    for (const std::string& id : bench::SelectedBenchmarks(*o.bench)) {
      const RegisteredUnit* unit = UnitRegistry::Global().Find(UnitKind::kBenchmark, id);
      auto made = unit->factory();
      const auto* b = dynamic_cast<const bench::Benchmark*>(made.get());
      auto reach = b != nullptr ? b->reach() : bench::Benchmark::Reach::kNode;
      std::string payload;
      if (state) state->Starting(id);
      if (bench::RunsOnThisRank(b, ctx)) {
        current = id;
        BenchmarkResult r = InStep(dog, id, [&] { return bench::RunBenchmark(ctx, id); });
        payload = DumpJson(ToJson(r));
      }
      auto all = gather(id, payload);
      if (!all.ok()) return all.status();
      if (rank != 0) continue;
      state->Update([&](RunDocument& doc) {
        std::optional<BenchmarkResult> job_wide;
        for (int r = 0; r < size; ++r) {
          if ((*all)[r].empty()) continue;
          auto res = BenchmarkResultFromJson(nlohmann::json::parse((*all)[r], nullptr, false),
                                             fmt::format("rank {} {}", r, id));
          if (!res.ok()) continue;
          if (!multi) {
            doc.benchmarks.push_back(std::move(*res));
          } else if (reach == bench::Benchmark::Reach::kJob) {
            // Rank 0's result stands for the job unless another rank saw worse.
            if (!job_wide || res->outcome > job_wide->outcome) {
              if (job_wide && r != 0)
                res->summary = fmt::format("rank {} ({}): {}", r, hostnames[r], res->summary);
              job_wide = std::move(*res);
            }
          } else {
            // Node-local, or one rank's share (its GPU) of a per-rank unit.
            if (reach == bench::Benchmark::Reach::kRank) {
              for (auto& m : res->measurements) m.params["rank"] = std::to_string(r);
            }
            NodeOf(doc, hostnames[r]).benchmarks.push_back(std::move(*res));
          }
        }
        if (job_wide) doc.benchmarks.push_back(std::move(*job_wide));
      });
    }
  }
  // Rank 0 shows the document and decides the exit code; every rank waits for it inside the
  // job, so each one's watchdog and liveness responder last until the very end.
  std::string code = "0";
  if (rank == 0 && place.host_order.size() > 1) {
    // The nodes of this run compared with each other: a slow node or device is named here.
    state->Update([&](RunDocument& doc) {
      CheckResult fleet = fleet::FleetOutliers(doc);
      fleet.Seal("fleet.outliers");
      doc.checks.push_back(std::move(fleet));
    });
  }
  if (rank == 0 && o.conclude) state->Update(o.conclude);
  if (rank == 0) {
    RunDocument done = state->Finish();
    signals.reset();
    code = std::to_string(o.emit ? o.emit(done) : 0);
  }
  if (multi) {
    Status s = InStep(dog, "sharing the exit code", [&] { return comm.Broadcast(code, 0); });
    if (!s.ok()) return s;
  }
  auto parsed = ParseInt(code);
  return parsed ? static_cast<int>(*parsed) : kExitCannotRun;
}

}  // namespace ys::job
