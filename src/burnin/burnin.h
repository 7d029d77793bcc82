// `yardstick burnin`: sustained checked load for a duration, telemetry at every cycle, faults,
// stability, MTBF and availability; checkpointed so that a stopped or killed burn-in resumes
// where it stopped.
//
// Every rank of the job (or the one process) runs the same loop: one cycle of a load (the
// profile's loads in rotation), telemetry, then its samples are gathered to rank 0, whose
// analyser (analyser.h) holds the whole state. Whether to go on is agreed by all ranks after
// every cycle (a signal on any rank, or the duration reached, stops all together). Rank 0
// rewrites the heartbeat every cycle, the checkpoint every checkpoint_interval_s and on the way
// out, and the run document (run.json) with the checkpoint, so a killed burn-in leaves a
// readable document too.
//
// Resuming: a checkpoint in the output directory that is not finished is resumed when the
// settings match (profile, duration, cycle, thresholds, device, recorded state); the stop
// becomes an interruption: "signal N" for a clean stop, "reboot" when the node's boot id
// changed, "killed" otherwise (the load after the last checkpoint, known from the heartbeat, is
// redone). A cycle that outlasts timeout_s ends the process (exit 2) with the last checkpoint
// kept. A finished checkpoint is not run again: in the default directory (keep_finished) the
// finished burn-in is moved aside to DIR-<finish time> (-2, -3, ... when taken) and a new one
// starts in DIR; in a directory given explicitly it is Invalid (use --restart or another --out).
#ifndef YARDSTICK_BURNIN_BURNIN_H_
#define YARDSTICK_BURNIN_BURNIN_H_

#include <functional>
#include <string>

#include "burnin/load.h"
#include "comm/communicator.h"
#include "core/run_document.h"
#include "core/status.h"
#include "host/host.h"

namespace ys::burnin {

struct BurninOptions {
  Profile profile = Profile::kMixed;
  double duration_s = 0;
  double cycle_s = 1;  // load per cycle
  double checkpoint_interval_s = 60;
  double temp_threshold_c = 2;
  double drift_threshold = 0.05;
  // The longest one cycle (load, telemetry, gather, checkpoint) may take before the process gives
  // up: a rank that died or hangs inside a collective cannot be interrupted, so the process logs
  // where it stood and exits 2, keeping the last checkpoint to resume from. <= 0: no limit.
  double timeout_s = 600;
  Device device = Device::kAuto;
  std::string out_dir;   // rank 0: checkpoint, heartbeat, run.json
  bool restart = false;  // ignore (replace) a checkpoint in out_dir
  // out_dir is the default one (not asked for by name): a finished burn-in found there is moved
  // aside and a new one starts, rather than the run refused.
  bool keep_finished = false;
  std::string nvml_state;  // a recorded state or timeline (tests)
  std::string kmsg_path;
  int gemm_n = 0;  // test sizes (load.h)
  uint64_t stream_bytes = 0;
  uint64_t allreduce_bytes = 0;
  // Rank 0, after every checkpoint: a line for the terminal ("checkpoint at 60 s of 120 s").
  std::function<void(const std::string&)> progress;
};

// Ranges of the options (Invalid naming the flag, the value and the range outside them): duration
// above 0 and at most 366 days; cycle above 0 and at most 3600 s; checkpoint interval above 0 and
// at most 7 days; temperature threshold above 0 and at most 100 °C; drift threshold above 0 and at
// most 1; timeout 0 (no limit) to 30 days; GEMM n 0 (default) to 16384; STREAM bytes per core 0
// (default) to 64 GiB; all_reduce bytes 0 (default) to 16 GiB.
inline constexpr double kMaxDurationS = 366 * 86400.0;
inline constexpr double kMaxCycleS = 3600;
inline constexpr double kMaxCheckpointIntervalS = 7 * 86400.0;
inline constexpr double kMaxTempThresholdC = 100;
inline constexpr double kMaxTimeoutS = 30 * 86400.0;
inline constexpr int kMaxGemmN = 16384;
inline constexpr int64_t kMaxStreamBytes = int64_t{64} << 30;
inline constexpr int64_t kMaxAllreduceBytes = int64_t{16} << 30;
Status CheckBurninOptions(const BurninOptions& o);

struct BurninRun {
  RunDocument doc;          // command "burnin", checks = [burnin.<profile>], burnin set
  bool stopped = false;     // ended by a signal before the duration (resumable)
  std::string stop_reason;  // "signal 15"
};

// Every rank calls it; rank 0's result holds the document (other ranks get an empty one).
// Errors: bad options, a checkpoint that does not match or parse, a profile that cannot run here
// (every rank gets the same).
Result<BurninRun> RunBurnin(const BurninOptions& options, comm::Communicator& comm,
                            const host::Host& host);

}  // namespace ys::burnin

#endif  // YARDSTICK_BURNIN_BURNIN_H_
