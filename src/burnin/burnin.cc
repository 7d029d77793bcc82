#include "burnin/burnin.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "burnin/analyser.h"
#include "burnin/burnin_document.h"
#include "burnin/resume_checkpoint.h"
#include "burnin/status_line.h"
#include "burnin/telemetry.h"
#include "burnin_report/burnin_json.h"
#include "burnin_report/burnin_section.h"
#include "core/dir_lock.h"
#include "core/fresh_dir.h"
#include "core/range_check.h"
#include "core/run_document_json.h"
#include "core/watchdog.h"
#include "host/foreign_cpu.h"

namespace ys::burnin {

namespace {

using nlohmann::json;

// Each CPU entity's share of the cycle that processes outside this one took on its core
// (host/foreign_cpu.h): a drop then is a disturbance, not the hardware (analyser_drift.cc).
void AddForeignShares(const host::ProcessSnapshot& before, const host::ProcessSnapshot& after,
                      double wall_s, std::vector<EntitySample>& samples) {
  long tck = sysconf(_SC_CLK_TCK);
  for (EntitySample& s : samples) {
    if (s.kind != "cpu" || !s.entity.starts_with("cpu")) continue;
    int cpu = -1;
    auto [end, ec] = std::from_chars(s.entity.data() + 3, s.entity.data() + s.entity.size(), cpu);
    if (ec != std::errc() || end != s.entity.data() + s.entity.size() || cpu < 0) continue;
    CpuSet core;
    core.Insert(cpu);
    auto f = host::AttributeForeignCpu(before, after, core, wall_s, tck);
    if (!f.ok()) continue;
    s.foreign_share = f->share;
    std::vector<std::string> who;
    for (const host::ForeignProcess& p : f->processes) {
      if (who.size() == 3) break;
      if (std::find(who.begin(), who.end(), p.comm) == who.end()) who.push_back(p.comm);
    }
    s.foreign_who = fmt::format("{}", fmt::join(who, ", "));
  }
}

std::atomic<int> g_signal{0};
extern "C" void OnStopSignal(int sig) { g_signal.store(sig); }

// SIGTERM, SIGINT and SIGHUP end the burn-in cleanly after the current cycle; the previous
// handlers come back when it ends.
class StopSignals {
 public:
  StopSignals() {
    g_signal.store(0);
    struct sigaction sa = {};
    sa.sa_handler = OnStopSignal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < std::size(kSignals); ++i) sigaction(kSignals[i], &sa, &old_[i]);
  }
  ~StopSignals() {
    for (size_t i = 0; i < std::size(kSignals); ++i) sigaction(kSignals[i], &old_[i], nullptr);
  }

 private:
  static constexpr int kSignals[] = {SIGTERM, SIGINT, SIGHUP};
  struct sigaction old_[3] = {};
};

const char* DeviceName(Device d) {
  switch (d) {
    case Device::kCpu:
      return "cpu";
    case Device::kGpu:
      return "gpu";
    case Device::kAuto:
      break;
  }
  return "auto";
}

// What must be the same for a checkpoint to be resumed.
json Settings(const BurninOptions& o, int ranks) {
  return {{"profile", ProfileName(o.profile)},
          {"duration_s", o.duration_s},
          {"cycle_s", o.cycle_s},
          {"temp_threshold_c", o.temp_threshold_c},
          {"drift_threshold", o.drift_threshold},
          {"backend", DeviceName(o.device)},
          {"nvml_state", o.nvml_state},
          {"gemm_n", o.gemm_n},
          {"stream_bytes", o.stream_bytes},
          {"allreduce_bytes", o.allreduce_bytes},
          {"ranks", ranks}};
}

std::string SettingsDiff(const json& saved, const json& now) {
  std::string out;
  for (const auto& [key, value] : now.items()) {
    json was = saved.contains(key) ? saved[key] : json(nullptr);
    if (was != value)
      out += fmt::format("{}{} was {}, now {}", out.empty() ? "" : "; ", key, JsonForMessage(was),
                         JsonForMessage(value));
  }
  return out;
}

std::string Secs(double s) { return fmt::format("{:.0f}", s); }

// Moves the finished burn-in in `dir` to a new sibling named by when it finished
// (dir-20261201T101500Z, then -2, -3, ...) and leaves `dir` empty for the next one. The sibling is
// claimed with mkdir and `dir` renamed over it, so two burn-ins never take the same name.
Status MoveFinishedAside(const std::string& dir, const Checkpoint& c) {
  std::string stamp = c.saved_at;
  std::erase(stamp, ':');
  std::erase(stamp, '-');
  std::string base = dir;
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  auto aside = MakeFreshDirectory(base + "-" + (stamp.empty() ? "finished" : stamp));
  if (!aside.ok()) return aside.status();
  std::error_code ec;
  std::filesystem::rename(base, *aside, ec);
  if (ec) {
    std::filesystem::remove(*aside);
    return Status::Invalid(dir + ": cannot move the finished burn-in to " + *aside + " (" +
                           ec.message() + ")");
  }
  std::filesystem::create_directories(base, ec);
  if (ec) return Status::Invalid(dir + ": cannot create the directory (" + ec.message() + ")");
  std::fprintf(stderr,
               "burn-in: the finished burn-in in %s was moved to %s; a new one starts in %s\n",
               base.c_str(), aside->c_str(), base.c_str());
  return Status::Ok();
}

// Rank 0's start: a fresh analyser or the checkpoint's, with the stop recorded.
Result<Analyser> Prepare(const BurninOptions& o, const host::Host& host, const json& settings,
                         DirLock& out_lock) {
  std::error_code ec;
  std::filesystem::create_directories(o.out_dir, ec);
  if (ec)
    return Status::Invalid("--out " + o.out_dir + ": cannot create the directory (" + ec.message() +
                           ")");
  // One burn-in at a time in a directory: a second would resume the first's checkpoint under it.
  auto lock = DirLock::Acquire(o.out_dir, "burnin");
  if (!lock.ok()) return lock.status();
  out_lock = std::move(*lock);
  auto cp = LoadCheckpoint(o.out_dir);
  if (!cp.ok()) return cp.status();
  std::string path = o.out_dir + "/" + kCheckpointFile;
  if (*cp && !o.restart && (*cp)->finished && o.keep_finished) {
    YS_RETURN_IF_ERROR(MoveFinishedAside(o.out_dir, **cp));
  } else if (*cp && !o.restart) {
    const Checkpoint& c = **cp;
    if (c.finished) {
      return Status::Invalid(path +
                             ": this burn-in already finished; use --restart to run a new one "
                             "here, or another --out");
    }
    std::string diff = SettingsDiff(*c.settings, settings);
    if (!diff.empty()) {
      return Status::Invalid(path + ": the checkpoint was started with other settings (" + diff +
                             "); run with the same options to resume, or --restart");
    }
    auto a = Analyser::LoadState(*c.analyser, path + ": analyser");
    if (!a.ok()) return a.status();
    BurninInterruption i;
    i.at_s = a->elapsed_s();
    i.stopped_at = c.saved_at;
    i.resumed_at = UtcNowIso8601();
    if (!c.clean_stop.empty()) {
      i.how = c.clean_stop;
    } else {
      std::string boot = BootId(host);
      i.how = (!boot.empty() && !c.boot_id.empty() && boot != c.boot_id) ? "reboot" : "killed";
      // The heartbeat says how long the last process went on after its last checkpoint.
      if (auto hb = ReadHeartbeat(o.out_dir); hb && hb->elapsed_s >= a->elapsed_s()) {
        i.redone_s = hb->elapsed_s - a->elapsed_s();
        i.stopped_at = hb->at;
      }
    }
    i.gap_s = std::max(0.0, SecondsBetween(i.stopped_at, i.resumed_at).value_or(0));
    a->AddInterruption(i);
    return std::move(*a);
  }
  AnalyserOptions ao = DefaultTiming(o.duration_s, o.cycle_s);
  ao.profile = ProfileName(o.profile);
  ao.temp_threshold_c = o.temp_threshold_c;
  ao.drift_threshold = o.drift_threshold;
  ao.checkpoint_interval_s = o.checkpoint_interval_s;
  ao.started_at = UtcNowIso8601();
  return Analyser(std::move(ao));
}

// The same error on every rank: this rank's own, or a word that another rank failed.
Status Agree(comm::Communicator& comm, const Status& mine) {
  auto any = comm.AllReduceMax(mine.ok() ? 0.0 : 1.0);
  if (!any.ok()) return any.status();
  if (*any == 0) return Status::Ok();
  return mine.ok()
             ? Status::Invalid("another rank could not start the burn-in (its error is in its log)")
             : mine;
}

// What one rank's burn-in steps share, from its start to its last checkpoint.
struct BurninSession {
  const BurninOptions& o;
  comm::Communicator& comm;
  const host::Host& host;
  const bool leader;  // rank 0: keeps the analyser, the checkpoint and the document
  const std::chrono::steady_clock::time_point wall_start;
  std::string node;    // this rank's host name
  int local_rank = 0;  // its place among the node's ranks
  json settings;
  std::optional<Analyser> analyser;  // the leader's
  DirLock out_lock;                  // the leader's, on --out for the whole burn-in
  double elapsed = 0;                // load time done
  long long cycle = 0;
  TelemetryOptions to;
  std::unique_ptr<TelemetrySampler> sampler;
  std::vector<std::unique_ptr<Load>> loads;
  BurninRun run;
};

// Where this rank is: its node and its place among the node's ranks.
Status LocateRank(BurninSession& s) {
  auto names = s.comm.Hostnames();
  if (!names.ok()) return names.status();
  s.node = (*names)[s.comm.rank()];
  for (int r = 0; r < s.comm.rank(); ++r) s.local_rank += (*names)[r] == s.node ? 1 : 0;
  return Status::Ok();
}

// Rank 0 starts or resumes; every rank learns where the load time stands.
Status StartOrResume(BurninSession& s) {
  s.settings = Settings(s.o, s.comm.size());
  Status start = Status::Ok();
  if (s.leader) {
    auto a = Prepare(s.o, s.host, s.settings, s.out_lock);
    if (a.ok())
      s.analyser.emplace(std::move(*a));
    else
      start = a.status();
  }
  YS_RETURN_IF_ERROR(Agree(s.comm, start));
  std::string state =
      s.leader ? fmt::format("{} {}", s.analyser->elapsed_s(), s.analyser->cycles()) : "";
  YS_RETURN_IF_ERROR(s.comm.Broadcast(state, 0));
  std::sscanf(state.c_str(), "%lf %lld", &s.elapsed, &s.cycle);
  return Status::Ok();
}

// Telemetry and loads on every rank; the leader's analyser learns the telemetry's source.
Status OpenTelemetryAndLoads(BurninSession& s) {
  const BurninOptions& o = s.o;
  comm::LaunchInfo launch = comm::DetectLaunch(s.host.env());
  launch.local_rank = s.local_rank;
  LoadContext lc{.host = &s.host,
                 .comm = &s.comm,
                 .launch = launch,
                 .node = s.node,
                 .device = o.device,
                 .gemm_n = o.gemm_n,
                 .stream_bytes = o.stream_bytes,
                 .allreduce_bytes = o.allreduce_bytes};
  s.to = {.node = s.node,
          .nvml_state = o.nvml_state,
          .kmsg_path = o.kmsg_path,
          .cpus = CpuWorkers(lc),
          .node_wide = s.local_rank == 0};
  Status opened = Status::Ok();
  if (auto t = TelemetrySampler::Open(s.host, s.to); t.ok()) {
    s.sampler = std::move(*t);
    lc.timeline = s.sampler->timeline();
    if (auto l = MakeLoads(o.profile, lc); l.ok())
      s.loads = std::move(*l);
    else
      opened = l.status();
  } else {
    opened = t.status();
  }
  YS_RETURN_IF_ERROR(Agree(s.comm, opened));
  if (s.loads.empty())
    return Status::Invalid("profile " + std::string(ProfileName(o.profile)) +
                           ": no load can run here");
  if (s.leader) {
    s.analyser->SetSource(s.sampler->source(), s.sampler->timeline()
                                                   ? s.sampler->timeline()->Describe()
                                                   : std::vector<std::string>{});
  }
  return Status::Ok();
}

// The leader saves the checkpoint and writes the run document so far (into run.doc).
Status SaveBurnin(BurninSession& s, bool finished, const std::string& clean_stop,
                  const std::string& reason) {
  if (!s.leader) return Status::Ok();
  Checkpoint c{.saved_at = UtcNowIso8601(),
               .boot_id = BootId(s.host),
               .clean_stop = clean_stop,
               .finished = finished,
               .settings = s.settings,
               .analyser = s.analyser->SaveState()};
  YS_RETURN_IF_ERROR(SaveCheckpoint(s.o.out_dir, c));
  double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - s.wall_start).count();
  s.run.doc = MakeBurninDocument(s.analyser->Report(), s.host, s.sampler->source(), wall, reason);
  return WriteBurninDocument(s.o.out_dir, s.run.doc);
}

// Runs one cycle of `load` on this rank for up to `want` seconds: its samples (with the foreign
// processes' shares of the CPUs, and the load's error if it failed) and how long it took.
std::vector<EntitySample> RunLoadCycle(BurninSession& s, Load& load, double want, double& dt) {
  std::vector<EntitySample> samples;
  std::optional<host::ProcessSnapshot> before;
  if (!s.to.cpus.empty()) before = host::SnapshotProcesses(s.host, {static_cast<int>(getpid())});
  auto t0 = std::chrono::steady_clock::now();
  Status ran = load.RunCycle(s.elapsed, want, samples);
  dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (before && dt > 0) {
    AddForeignShares(*before, host::SnapshotProcesses(s.host, {static_cast<int>(getpid())}), dt,
                     samples);
  }
  if (!ran.ok()) {
    EntitySample e{.node = s.node,
                   .entity = s.local_rank == 0 ? "node" : fmt::format("rank{}", s.comm.rank()),
                   .kind = "node",
                   .metric = std::string(load.name())};
    e.load_error = ran.message();
    samples.push_back(std::move(e));
  }
  return samples;
}

// One cycle on every rank: the load run, the telemetry sampled, every rank's samples gathered
// to the leader's analyser and status line; the load time moves on by the longest rank's.
Status RunBurninCycle(BurninSession& s, Load& load, StatusTicker& ticker) {
  const BurninOptions& o = s.o;
  double want = std::max(0.05, std::min(o.cycle_s, o.duration_s - s.elapsed));
  double dt = 0;
  std::vector<EntitySample> samples = RunLoadCycle(s, load, want, dt);
  auto longest = s.comm.AllReduceMax(dt);
  if (!longest.ok()) return longest.status();
  double end = s.elapsed + *longest;
  s.sampler->Sample(s.elapsed, end, samples);
  auto gathered = s.comm.Gather(ToJson(samples).dump(), 0);
  if (!gathered.ok()) return gathered.status();
  if (s.leader) {
    CycleObservation obs{.start_s = s.elapsed, .end_s = end, .at = UtcNowIso8601()};
    for (size_t r = 0; r < gathered->size(); ++r) {
      json j = json::parse((*gathered)[r], nullptr, false);
      auto rs = EntitySamplesFromJson(j, fmt::format("rank {} samples", r));
      if (!rs.ok()) return rs.status();
      obs.samples.insert(obs.samples.end(), rs->begin(), rs->end());
    }
    ticker.Cycle(obs, load.name(), s.cycle, end, o.duration_s);
    s.analyser->Add(obs);
    WriteHeartbeat(o.out_dir, Heartbeat{end, obs.at});
  }
  s.elapsed = end;
  ++s.cycle;
  return Status::Ok();
}

// The leader's checkpoint when the interval since the last one has passed and load time is left.
Status CheckpointWhenDue(BurninSession& s, std::chrono::steady_clock::time_point& last_checkpoint) {
  const BurninOptions& o = s.o;
  bool due = s.leader && s.elapsed < o.duration_s &&
             std::chrono::steady_clock::now() - last_checkpoint >=
                 std::chrono::duration<double>(o.checkpoint_interval_s);
  if (!due) return Status::Ok();
  YS_RETURN_IF_ERROR(SaveBurnin(s, false, "",
                                fmt::format("burn-in in progress: {} s of {} s of load done and "
                                            "checkpointed; if this process is gone, run the same "
                                            "command to resume",
                                            Secs(s.elapsed), Secs(o.duration_s))));
  last_checkpoint = std::chrono::steady_clock::now();
  if (o.progress) {  // the document just saved holds the report
    o.progress(fmt::format("burn-in: {} of {} s of load, {} faults, checkpoint saved",
                           Secs(s.elapsed), Secs(o.duration_s),
                           BurninOf(s.run.doc)->faults.size()));
  }
  return Status::Ok();
}

}  // namespace

Status CheckBurninOptions(const BurninOptions& o) {
  constexpr auto kAbove = LowerBound::kExclusive;
  YS_RETURN_IF_ERROR(CheckRange(o.duration_s, 0, kMaxDurationS, "--duration (seconds)", kAbove));
  YS_RETURN_IF_ERROR(CheckRange(o.cycle_s, 0, kMaxCycleS, "--cycle", kAbove));
  YS_RETURN_IF_ERROR(CheckRange(o.checkpoint_interval_s, 0, kMaxCheckpointIntervalS,
                                "--checkpoint-interval", kAbove));
  YS_RETURN_IF_ERROR(
      CheckRange(o.temp_threshold_c, 0, kMaxTempThresholdC, "--temp-threshold", kAbove));
  YS_RETURN_IF_ERROR(CheckRange(o.drift_threshold, 0, 1, "--drift-threshold", kAbove));
  YS_RETURN_IF_ERROR(CheckRange(o.timeout_s, 0, kMaxTimeoutS, "--timeout"));
  YS_RETURN_IF_ERROR(CheckIntRange(o.gemm_n, 0, kMaxGemmN, "--gemm-n"));
  YS_RETURN_IF_ERROR(
      CheckIntRange(static_cast<int64_t>(std::min<uint64_t>(o.stream_bytes, INT64_MAX)), 0,
                    kMaxStreamBytes, "--stream-bytes"));
  YS_RETURN_IF_ERROR(
      CheckIntRange(static_cast<int64_t>(std::min<uint64_t>(o.allreduce_bytes, INT64_MAX)), 0,
                    kMaxAllreduceBytes, "--allreduce-bytes"));
  return Status::Ok();
}

Result<BurninRun> RunBurnin(const BurninOptions& o, comm::Communicator& comm,
                            const host::Host& host) {
  YS_RETURN_IF_ERROR(CheckBurninOptions(o));
  BurninSession s{.o = o,
                  .comm = comm,
                  .host = host,
                  .leader = comm.rank() == 0,
                  .wall_start = std::chrono::steady_clock::now()};
  YS_RETURN_IF_ERROR(LocateRank(s));
  YS_RETURN_IF_ERROR(StartOrResume(s));
  YS_RETURN_IF_ERROR(OpenTelemetryAndLoads(s));

  // A hung collective cannot be interrupted: past the timeout the process says where it stood and
  // ends; the checkpoint on disk is the resume point.
  Watchdog dog(o.timeout_s, [&o, rank = comm.rank()](const std::string& step, double seconds) {
    std::fprintf(
        stderr,
        "yardstick: error: burn-in rank %d: %s made no progress for %.0f s (--timeout): a rank "
        "died or hangs; the last checkpoint in %s is kept: run the same command to resume\n",
        rank, step.c_str(), seconds, o.out_dir.c_str());
    std::fflush(stderr);
    std::_Exit(2);
  });
  StopSignals signals;
  StatusTicker ticker;
  auto last_checkpoint = std::chrono::steady_clock::now();
  int stop_signal = 0;
  while (s.elapsed < o.duration_s) {
    Load& load = *s.loads[static_cast<size_t>(s.cycle) % s.loads.size()];
    dog.Enter(fmt::format("cycle {} ({}) at {} s of load", s.cycle, load.name(), Secs(s.elapsed)));
    YS_RETURN_IF_ERROR(RunBurninCycle(s, load, ticker));
    auto sig = comm.AllReduceMax(static_cast<double>(g_signal.load()));
    if (!sig.ok()) return sig.status();
    stop_signal = static_cast<int>(*sig);
    if (stop_signal != 0) {
      dog.Leave();
      break;
    }
    YS_RETURN_IF_ERROR(CheckpointWhenDue(s, last_checkpoint));
    dog.Leave();
  }
  BurninRun& run = s.run;
  bool finished = s.elapsed >= o.duration_s;
  if (stop_signal != 0 && !finished) {
    run.stopped = true;
    run.stop_reason = fmt::format("signal {}", stop_signal);
  }
  std::string reason = run.stopped ? fmt::format(
                                         "stopped by {} at {} s of {} s of load; run the same "
                                         "command to resume",
                                         run.stop_reason, Secs(s.elapsed), Secs(o.duration_s))
                                   : "";
  YS_RETURN_IF_ERROR(SaveBurnin(s, finished, run.stopped ? run.stop_reason : "", reason));
  return std::move(run);
}

}  // namespace ys::burnin
