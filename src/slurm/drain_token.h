// How `yardstick healthcheck` knows a drain is its own. Anyone with Slurm operator rights can
// type any reason, "yardstick: ..." included, so the text proves nothing. When yardstick drains
// a node it draws a random id, records it in a file only it can write (a directory owned by the
// user it runs as, mode 0700, no links), and puts the id in the reason:
//   "yardstick: YS-GPU-040 gpu3: fatal XID 79 (drain id 3f9a2c1b4d5e6f70)"
// A drain is its own only when the reason carries the id recorded for that node AND Slurm's
// "[user@time]" suffix names the user yardstick runs as (node_health.h IsOwnDrain). The id is
// forgotten when yardstick resumes the node, or finds it resumed by someone else.
#ifndef YARDSTICK_SLURM_DRAIN_TOKEN_H_
#define YARDSTICK_SLURM_DRAIN_TOKEN_H_

#include <string>

#include "core/status.h"

namespace ys::slurm {

// root: /var/lib/yardstick/healthcheck; others: $XDG_STATE_HOME/yardstick/healthcheck, else
// ~/.local/state/yardstick/healthcheck.
std::string DefaultDrainStateDir();

// The name of the effective user ("root"); its number when it has no name.
std::string EffectiveUserName();

// Thread safety: none; one healthcheck runs per node at a time (slurmd runs it serially).
class DrainTokenStore {
 public:
  // Creates `dir` (and its parents) when absent, mode 0700. Denied when `dir` is a symbolic
  // link, not a directory, not owned by the effective user, or writable by group or others:
  // then someone else could plant an id.
  static Result<DrainTokenStore> Open(const std::string& dir);

  // The id recorded for `node`; "" when none. Invalid for a node name that is not a plain name
  // (core/path_component.h), a file that is a link, not regular, or not an id.
  Result<std::string> Load(const std::string& node) const;
  // Draws a new id for `node` and records it (replacing any), before the drain is set.
  Result<std::string> Create(const std::string& node) const;
  // Forgets `node`'s id; Ok when there was none.
  Status Remove(const std::string& node) const;

  const std::string& dir() const { return dir_; }

 private:
  explicit DrainTokenStore(std::string dir) : dir_(std::move(dir)) {}
  Result<std::string> FileFor(const std::string& node) const;
  std::string dir_;
};

}  // namespace ys::slurm

#endif  // YARDSTICK_SLURM_DRAIN_TOKEN_H_
