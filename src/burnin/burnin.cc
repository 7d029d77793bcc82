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
#include "burnin/resume_checkpoint.h"
#include "burnin/status_line.h"
#include "burnin/telemetry.h"
#include "core/atomic_file.h"
#include "core/burnin_json.h"
#include "core/fresh_dir.h"
#include "core/range_check.h"
#include "core/run_document_json.h"
#include "core/watchdog.h"
#include "host/foreign_cpu.h"
#include "host/host_info.h"

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

// The run document of the burn-in so far.
RunDocument MakeDocument(const BurninReport& report, const host::Host& host,
                         const std::string& gpu_source, double wall_s,
                         const std::string& incomplete_reason) {
  RunDocument doc = StartRunDocument("burnin");
  doc.started_at = report.started_at;
  doc.duration_ms = wall_s * 1000;
  doc.host = host::ReadHostInfo(host);
  doc.host.gpu_source = gpu_source;
  if (!report.planted.empty()) {
    doc.warnings.push_back("faults were planted by a recorded timeline (" +
                           report.telemetry_source +
                           "): a test of the burn-in, not an acceptance result");
  }
  doc.incomplete = !incomplete_reason.empty();
  doc.incomplete_reason = incomplete_reason;
  doc.checks.push_back(BurninCheckResult(report));
  for (const auto& e : report.entities) {
    if (e.metric.empty() || !e.perf_median) continue;
    Measurement m;
    m.name = "burnin." + e.metric;
    m.value = *e.perf_median;
    m.unit = e.unit;
    m.params = {{"device", e.entity}, {"host", e.node}, {"statistic", "median of window medians"}};
    if (e.perf_baseline) m.params["baseline"] = fmt::format("{:.6g}", *e.perf_baseline);
    for (const auto& w : e.windows) {
      if (w.perf) m.samples.push_back(*w.perf);
    }
    m.stats = ComputeStats(m.samples);
    doc.measurements.push_back(std::move(m));
  }
  doc.burnin = std::make_shared<const BurninReport>(report);
  return doc;
}

Status WriteDocument(const std::string& dir, const RunDocument& doc) {
  return WriteFileAtomic(dir + "/run.json", DumpJson(ToJson(doc)) + "\n", {.durable = true});
}

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
Result<Analyser> Prepare(const BurninOptions& o, const host::Host& host, const json& settings) {
  std::error_code ec;
  std::filesystem::create_directories(o.out_dir, ec);
  if (ec)
    return Status::Invalid("--out " + o.out_dir + ": cannot create the directory (" + ec.message() +
                           ")");
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
  const bool leader = comm.rank() == 0;
  auto wall_start = std::chrono::steady_clock::now();

  // Where this rank is: its node and its place among the node's ranks.
  auto names = comm.Hostnames();
  if (!names.ok()) return names.status();
  std::string node = (*names)[comm.rank()];
  int local_rank = 0;
  for (int r = 0; r < comm.rank(); ++r) local_rank += (*names)[r] == node ? 1 : 0;

  // Rank 0 starts or resumes; every rank learns where the load time stands.
  json settings = Settings(o, comm.size());
  std::optional<Analyser> analyser;
  Status start = Status::Ok();
  if (leader) {
    auto a = Prepare(o, host, settings);
    if (a.ok())
      analyser.emplace(std::move(*a));
    else
      start = a.status();
  }
  YS_RETURN_IF_ERROR(Agree(comm, start));
  std::string state = leader ? fmt::format("{} {}", analyser->elapsed_s(), analyser->cycles()) : "";
  YS_RETURN_IF_ERROR(comm.Broadcast(state, 0));
  double elapsed = 0;
  long long cycle = 0;
  std::sscanf(state.c_str(), "%lf %lld", &elapsed, &cycle);

  // Telemetry and loads on every rank.
  comm::LaunchInfo launch = comm::DetectLaunch(host.env());
  launch.local_rank = local_rank;
  LoadContext lc{.host = &host,
                 .comm = &comm,
                 .launch = launch,
                 .node = node,
                 .device = o.device,
                 .gemm_n = o.gemm_n,
                 .stream_bytes = o.stream_bytes,
                 .allreduce_bytes = o.allreduce_bytes};
  TelemetryOptions to{.node = node,
                      .nvml_state = o.nvml_state,
                      .kmsg_path = o.kmsg_path,
                      .cpus = CpuWorkers(lc),
                      .node_wide = local_rank == 0};
  std::unique_ptr<TelemetrySampler> sampler;
  std::vector<std::unique_ptr<Load>> loads;
  Status opened = Status::Ok();
  if (auto s = TelemetrySampler::Open(host, to); s.ok()) {
    sampler = std::move(*s);
    lc.timeline = sampler->timeline();
    if (auto l = MakeLoads(o.profile, lc); l.ok())
      loads = std::move(*l);
    else
      opened = l.status();
  } else {
    opened = s.status();
  }
  YS_RETURN_IF_ERROR(Agree(comm, opened));
  if (loads.empty())
    return Status::Invalid("profile " + std::string(ProfileName(o.profile)) +
                           ": no load can run here");

  BurninRun run;
  auto save = [&](bool finished, const std::string& clean_stop,
                  const std::string& reason) -> Status {
    if (!leader) return Status::Ok();
    Checkpoint c{.saved_at = UtcNowIso8601(),
                 .boot_id = BootId(host),
                 .clean_stop = clean_stop,
                 .finished = finished,
                 .settings = settings,
                 .analyser = analyser->SaveState()};
    YS_RETURN_IF_ERROR(SaveCheckpoint(o.out_dir, c));
    double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    run.doc = MakeDocument(analyser->Report(), host, sampler->source(), wall, reason);
    return WriteDocument(o.out_dir, run.doc);
  };
  if (leader) {
    analyser->SetSource(sampler->source(), sampler->timeline() ? sampler->timeline()->Describe()
                                                               : std::vector<std::string>{});
  }

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
  while (elapsed < o.duration_s) {
    Load& load = *loads[static_cast<size_t>(cycle) % loads.size()];
    dog.Enter(fmt::format("cycle {} ({}) at {} s of load", cycle, load.name(), Secs(elapsed)));
    std::vector<EntitySample> samples;
    double want = std::max(0.05, std::min(o.cycle_s, o.duration_s - elapsed));
    std::optional<host::ProcessSnapshot> before;
    if (!to.cpus.empty()) before = host::SnapshotProcesses(host, {static_cast<int>(getpid())});
    auto t0 = std::chrono::steady_clock::now();
    Status ran = load.RunCycle(elapsed, want, samples);
    double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (before && dt > 0) {
      AddForeignShares(*before, host::SnapshotProcesses(host, {static_cast<int>(getpid())}), dt,
                       samples);
    }
    if (!ran.ok()) {
      EntitySample s{.node = node,
                     .entity = local_rank == 0 ? "node" : fmt::format("rank{}", comm.rank()),
                     .kind = "node",
                     .metric = std::string(load.name())};
      s.load_error = ran.message();
      samples.push_back(std::move(s));
    }
    auto longest = comm.AllReduceMax(dt);
    if (!longest.ok()) return longest.status();
    double end = elapsed + *longest;
    sampler->Sample(elapsed, end, samples);
    auto gathered = comm.Gather(ToJson(samples).dump(), 0);
    if (!gathered.ok()) return gathered.status();
    if (leader) {
      CycleObservation obs{.start_s = elapsed, .end_s = end, .at = UtcNowIso8601()};
      for (size_t r = 0; r < gathered->size(); ++r) {
        json j = json::parse((*gathered)[r], nullptr, false);
        auto rs = EntitySamplesFromJson(j, fmt::format("rank {} samples", r));
        if (!rs.ok()) return rs.status();
        obs.samples.insert(obs.samples.end(), rs->begin(), rs->end());
      }
      ticker.Cycle(obs, load.name(), cycle, end, o.duration_s);
      analyser->Add(obs);
      WriteHeartbeat(o.out_dir, Heartbeat{end, obs.at});
    }
    elapsed = end;
    ++cycle;
    auto sig = comm.AllReduceMax(static_cast<double>(g_signal.load()));
    if (!sig.ok()) return sig.status();
    stop_signal = static_cast<int>(*sig);
    if (stop_signal != 0) {
      dog.Leave();
      break;
    }
    if (leader && elapsed < o.duration_s &&
        std::chrono::steady_clock::now() - last_checkpoint >=
            std::chrono::duration<double>(o.checkpoint_interval_s)) {
      YS_RETURN_IF_ERROR(save(false, "",
                              fmt::format("burn-in in progress: {} s of {} s of load done and "
                                          "checkpointed; if this process is gone, run the same "
                                          "command to resume",
                                          Secs(elapsed), Secs(o.duration_s))));
      last_checkpoint = std::chrono::steady_clock::now();
      if (o.progress) {  // the document just saved holds the report
        o.progress(fmt::format("burn-in: {} of {} s of load, {} faults, checkpoint saved",
                               Secs(elapsed), Secs(o.duration_s), run.doc.burnin->faults.size()));
      }
    }
    dog.Leave();
  }
  bool finished = elapsed >= o.duration_s;
  if (stop_signal != 0 && !finished) {
    run.stopped = true;
    run.stop_reason = fmt::format("signal {}", stop_signal);
  }
  std::string reason = run.stopped ? fmt::format(
                                         "stopped by {} at {} s of {} s of load; run the same "
                                         "command to resume",
                                         run.stop_reason, Secs(elapsed), Secs(o.duration_s))
                                   : "";
  YS_RETURN_IF_ERROR(save(finished, run.stopped ? run.stop_reason : "", reason));
  return run;
}

}  // namespace ys::burnin
