// Findings that say the same thing about several entities (eight GPUs, each "YS-GPU-045: NVLink
// link 7 inactive"; one diagnosis rule firing alike on many workloads) are printed once on the
// console, with their count and the entities they cover: "YS-GPU-045 ×8 (gpu0-gpu7): NVLink
// link 7 inactive". Every console printer of findings (the run and preflight table, the
// healthcheck's lines, the diagnosis) groups through GroupRepeats; JSON, JUnit and every other
// machine-readable output keep each finding as it is.
#ifndef YARDSTICK_CORE_REPEATED_FINDINGS_H_
#define YARDSTICK_CORE_REPEATED_FINDINGS_H_

#include <cstddef>
#include <string>
#include <vector>

namespace ys {

// One printed item as the grouping sees it.
struct RepeatKey {
  std::string code;    // "YS-GPU-045", a diagnosis rule id
  std::string entity;  // "gpu3", "node", a workload
  // Everything else the printer shows of the item (severity, message, fix, ...): items group
  // only when this is the same, so that one line never stands for items that say different things.
  std::string said;
};

struct RepeatGroup {
  std::vector<size_t> members;  // indices into the items, in the items' order
  std::string entities;         // "gpu3" for one member; "×8 (gpu0-gpu7)" for several
};

// Items with the same code and `said`, one group each; a group stands where its first member
// stood, so the order the printer gave its items (by severity, urgency, recovery) is kept.
std::vector<RepeatGroup> GroupRepeats(const std::vector<RepeatKey>& items);

// The entities of a group, each named once, runs of consecutive numbers of one prefix joined:
// "gpu0-gpu7", "gpu0-gpu3,gpu5,mlx5_0"; at most kMaxEntityPieces pieces, then "+N more".
inline constexpr size_t kMaxEntityPieces = 8;
std::string EntitySpan(const std::vector<std::string>& entities);

}  // namespace ys

#endif  // YARDSTICK_CORE_REPEATED_FINDINGS_H_
