// The benchmark unit: an active measurement (docs/design.md §vocabulary, §measurement).
//
// A benchmark is one file that defines a class deriving from Benchmark and registers it in one
// line:
//
//   YS_REGISTER(StreamBenchmark, {.id = "mem.stream", .summary = "...", .needs = {}});
//
// What it needs (Need::kGpu: the GPU backend allowed and CUDA present; Need::kLiveHost ...) is
// declared there; the runner skips the unit with the reason, without calling it, when the
// context does not provide it (bench/runner.h).
//
// Run() measures (warm-up, then timed iterations; median and spread; samples kept), returns
// what it measured as Measurements and, where a table is how operators read the result (the
// nccl-tests size sweep), a ResultTable. It skips with the reason when its backend is absent,
// never invents a number, and never throws across its boundary (the runner turns an exception
// into an error outcome for that unit alone).
//
// Conventions for Measurements (so the report, fleet analysis and diagnosis can read them):
//   name    "<unit id>.<quantity>", e.g. "coll.all_reduce.busbw", "mem.stream.triad"
//   params  "backend" ("cpu", "mpi", "nccl", "cuda"), "device" ("cpu", "gpu0"), sizes in bytes
//           as decimal strings ("size"), "dtype", and where the physical peak is known:
//           "peak" (same unit as the value), "peak_source" (file and field), "pct_of_peak".
#ifndef YARDSTICK_BENCH_BENCHMARK_H_
#define YARDSTICK_BENCH_BENCHMARK_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "comm/communicator.h"
#include "core/registry.h"
#include "core/run_document.h"
#include "host/host.h"
#include "host/topology.h"

namespace ys::bench {

// A message-size sweep as nccl-tests takes it (-b MIN -e MAX -f FACTOR | -i STEP):
// "8:16G:x2", "1M:64M:+1M", or one size "128M". Sizes in bytes; K, M, G, T are powers of 1024.
// Range: sizes from 1 byte to 1T, and at most 4096 sizes in a +STEP sweep.
inline constexpr uint64_t kMaxSweepBytes = 1ULL << 40;
inline constexpr uint64_t kMaxSweepSizes = 4096;
// --warmup and --iters: at most this many.
inline constexpr int kMaxIterations = 1'000'000;
struct SizeSweep {
  uint64_t min_bytes = 0;
  uint64_t max_bytes = 0;
  uint64_t factor = 2;  // geometric step when step_bytes == 0
  uint64_t step_bytes = 0;

  // The sizes from min to max inclusive.
  std::vector<uint64_t> Sizes() const;
  // Invalid("--sizes \"...\": ...") naming what was expected.
  static Result<SizeSweep> Parse(std::string_view text);
};

// "1024" -> 1024, "16G" -> 17179869184. Invalid naming the text.
Result<uint64_t> ParseByteSize(std::string_view text);
// 1024 -> "1K", 17179869184 -> "16G", 1000 -> "1000" (exact when possible).
std::string FormatByteSize(uint64_t bytes);

enum class Backend { kAuto, kCpu, kGpu };
const char* BackendName(Backend b);

// How much to measure: the full sweep (`yardstick bench`) or the quick profile of
// `yardstick run` (about a minute for all units on a 2-core machine).
enum class Profile { kFull, kQuick };

struct BenchOptions {
  std::vector<std::string> filters;  // globs over unit ids; empty = all
  std::optional<SizeSweep> sizes;    // --sizes; unset = the unit's default for the profile
  int warmup = -1;                   // --warmup; -1 = the unit's default
  int iters = -1;                    // --iters; -1 = the unit's default
  Backend backend = Backend::kAuto;
  bool pairwise = false;     // collectives over every pair / ring neighbour
  std::string storage_path;  // --path for the storage benchmark; empty = skip it
  bool direct_io = false;    // --direct: O_DIRECT for the storage benchmark
  Profile profile = Profile::kFull;
  std::string data_dir;             // where specs/ is
  std::vector<std::string> dtypes;  // --dtype for the collectives (float, bfloat16); empty = float
  bool allow_disruptive = false;    // run units declared disruptive
  // The site file's `[unit."<id>"]` values (--expect): what BenchContext::param reads.
  UnitParamValues unit_params;
};

// Everything a benchmark may use. Borrowed references; the caller keeps them alive.
class BenchContext {
 public:
  BenchContext(const host::Host& host, comm::Communicator& comm, const BenchOptions& options,
               comm::LaunchInfo launch = {})
      : host_(host),
        comm_(comm),
        options_(options),
        launch_(launch),
        shared_(std::make_shared<Shared>()) {}

  const host::Host& host() const { return host_; }
  comm::Communicator& comm() const { return comm_; }
  const BenchOptions& options() const { return options_; }
  const comm::LaunchInfo& launch() const { return launch_; }
  // Loaded on first use and shared by all units of the run.
  const Result<host::Topology>& topology() const;

  // This context for one unit (a copy sharing what is loaded): param() reads that unit's
  // parameters. The runner hands each unit its own.
  BenchContext ForUnit(const UnitInfo& unit) const;
  // The value in force of a parameter the unit declared (UnitInfo::params): the site file's,
  // else the declared default (core/unit_params.h UnitParamSource::Get).
  template <typename T>
  const T& param(std::string_view name) const {
    return params_.Get<T>(name);
  }

  // The unit's default unless the operator set --warmup / --iters.
  int Warmup(int unit_default) const {
    return options_.warmup >= 0 ? options_.warmup : unit_default;
  }
  int Iters(int unit_default) const { return options_.iters > 0 ? options_.iters : unit_default; }
  bool quick() const { return options_.profile == Profile::kQuick; }
  // A long unit reports progress ("4M out-of-place"): the job's watchdog then times each piece
  // of work, not the whole unit, so --timeout bounds how long a rank may be silent, not how
  // long a sweep may take. No-op unless the job set a listener.
  void Progress(const std::string& what) const {
    if (on_progress_) on_progress_(what);
  }
  void set_on_progress(std::function<void(const std::string&)> f) { on_progress_ = std::move(f); }
  // Whether the operator allows this backend: kAuto allows both.
  bool Allows(Backend b) const {
    return options_.backend == Backend::kAuto || options_.backend == b;
  }

 private:
  const host::Host& host_;
  comm::Communicator& comm_;
  const BenchOptions& options_;
  comm::LaunchInfo launch_;
  std::function<void(const std::string&)> on_progress_;
  // Loaded once per run and shared by every copy.
  struct Shared {
    std::once_flag topo_once;
    std::unique_ptr<Result<host::Topology>> topo;
  };
  std::shared_ptr<Shared> shared_;
  UnitParamSource params_;  // set by ForUnit
};

class Benchmark : public Unit {
 public:
  static constexpr UnitKind kKind = UnitKind::kBenchmark;
  // Returns the result; the runner sets unit_id, timing and the final outcome.
  virtual BenchmarkResult Run(const BenchContext& ctx) const = 0;
  // Where a unit runs in a job of several ranks:
  //   kNode  once per node, on the node's first rank (memory, CPU GEMM, storage, host);
  //   kJob   on every rank together, one result for the job (collectives, which gather their
  //          per-rank times themselves);
  //   kRank  on every rank together, each rank's result kept under its node (per-GPU units
  //          where each local rank drives its own GPU).
  enum class Reach { kNode, kJob, kRank };
  virtual Reach reach() const { return RunsOnAllRanks() ? Reach::kJob : Reach::kNode; }
  // Shorthand for kJob.
  virtual bool RunsOnAllRanks() const { return false; }
};

// Measurement builder: stats from samples, value = median.
Measurement MakeMeasurement(std::string name, std::string unit, Better better,
                            std::vector<double> samples,
                            std::map<std::string, std::string> params = {});

}  // namespace ys::bench

#endif  // YARDSTICK_BENCH_BENCHMARK_H_
