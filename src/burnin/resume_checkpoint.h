// The burn-in's checkpoint: everything needed to resume (the analyser's state, the settings it
// was started with, the node's boot id), written atomically to DIR/burnin.checkpoint.json at
// intervals and on a clean stop; and a heartbeat, DIR/burnin.heartbeat, rewritten every cycle
// (load time and UTC only), which tells a resumed burn-in when the last process was still alive
// and how much load after the last checkpoint it has to redo.
#ifndef YARDSTICK_BURNIN_RESUME_CHECKPOINT_H_
#define YARDSTICK_BURNIN_RESUME_CHECKPOINT_H_

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

#include "core/json_box.h"
#include "core/status.h"
#include "host/host.h"

namespace ys::burnin {

inline constexpr const char* kCheckpointFile = "burnin.checkpoint.json";
inline constexpr const char* kHeartbeatFile = "burnin.heartbeat";

struct Checkpoint {
  std::string saved_at;    // UTC
  std::string boot_id;     // /proc/sys/kernel/random/boot_id when saved ("" when unreadable)
  std::string clean_stop;  // "signal 15" when saved on a clean stop, else ""
  bool finished = false;   // the burn-in reached its duration
  JsonBox<nlohmann::json>
      settings;  // what must match for a resume (profile, duration, backend, ...)
  JsonBox<nlohmann::json> analyser;  // Analyser::SaveState()
};

struct Heartbeat {
  double elapsed_s = 0;
  std::string at;  // UTC
};

// Writes DIR/burnin.checkpoint.json: a temporary file, fsync, rename, fsync of the directory.
Status SaveCheckpoint(const std::string& dir, const Checkpoint& c);
// nullopt when there is none; Invalid naming the file and field when it does not parse.
Result<std::optional<Checkpoint>> LoadCheckpoint(const std::string& dir);

// Rewrites DIR/burnin.heartbeat (no fsync: a lost heartbeat only makes the redone time unknown).
void WriteHeartbeat(const std::string& dir, const Heartbeat& h);
std::optional<Heartbeat> ReadHeartbeat(const std::string& dir);

// The node's boot id, "" when unreadable.
std::string BootId(const host::Host& host);

// Seconds from one UTC ISO 8601 time ("2026-11-30T01:02:03Z") to another; nullopt when either
// does not parse.
std::optional<double> SecondsBetween(const std::string& from, const std::string& to);

}  // namespace ys::burnin

#endif  // YARDSTICK_BURNIN_RESUME_CHECKPOINT_H_
