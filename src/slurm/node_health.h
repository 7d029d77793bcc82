// Health-check mode (`yardstick healthcheck`, Slurm's HealthCheckProgram): the verdict of a run
// of checks, the drain reason it gives, and what to do with this node. Pure functions, so the
// rules — drain on fail, resume only drains yardstick set itself (slurm/drain_token.h), never an
// admin's or another user's, whatever their reason says — are tested without a cluster.
#ifndef YARDSTICK_SLURM_NODE_HEALTH_H_
#define YARDSTICK_SLURM_NODE_HEALTH_H_

#include <string>
#include <string_view>
#include <vector>

#include "core/run_document.h"
#include "slurm/slurm_state.h"

namespace ys::slurm {

// Every drain reason yardstick sets starts with this. It tells people who drained the node; it
// proves nothing (anyone can type it): IsOwnDrain decides.
inline constexpr std::string_view kDrainReasonPrefix = "yardstick:";

// The default subset: hardware faults and states a job fails or slows on, each a read of
// sysfs/procfs/NVML that takes milliseconds. Left out: measurements (cpu.busy_clock), checks of
// the calling process's context (cpu.isolation, numa.placement, env.runtime), checks a running
// job trips by itself (gpu.processes, gpu.clocks) and site-policy settings (cpu.*, mem.settings,
// gpu.mig, gpu.persistence, virt.iommu): --filter selects those where a site wants them.
const std::vector<std::string>& DefaultHealthChecks();

// Nagios plugin states; the value is the plugin exit code.
enum class HealthState { kOk = 0, kWarning = 1, kCritical = 2, kUnknown = 3 };
const char* HealthStateName(HealthState s);

// Every finding is listed, most urgent first: a GPU lost (XID 79, fallen off the bus; a GPU on
// the bus missing from NVML), then data lost or GPUs unreachable (other fatal XIDs, uncorrected
// ECC, retired pages or row remaps at their limit, NVML unreachable), then other failures, checks
// that could not be evaluated, and warnings; the check order within one urgency.
struct HealthVerdict {
  HealthState state = HealthState::kOk;
  std::string summary;       // the most urgent line: "YS-GPU-040 gpu3: fatal XID 79 (+1 more)"
  std::string drain_reason;  // "yardstick: YS-GPU-040 gpu3: fatal XID 79"; empty unless critical
                             // (WithDrainId adds the id before it goes to Slurm)
  // One line per finding of a failing or warning check, and per erroring check: "fail gpu.xid:
  // YS-GPU-040 gpu3: fatal XID 79 ...", in the order above; findings of one check and urgency
  // that say the same about several entities once, "fail gpu.nvlink: YS-GPU-045 ×8
  // (gpu0-gpu7): NVLink link 7 inactive" (core/repeated_findings.h).
  std::vector<std::string> details;
};

// fail -> critical; else error -> unknown (the node's health is not known, so nothing is drained
// or resumed); else warn -> warning; else ok.
HealthVerdict JudgeHealth(const RunDocument& doc);

// "yardstick: " + text with control characters turned into spaces, at most 170 characters
// (with WithDrainId's suffix, at most 197).
std::string MakeDrainReason(std::string_view text);
// reason + " (drain id ID)": the reason as set in Slurm.
std::string WithDrainId(std::string_view reason, std::string_view id);

// What marks a drain as yardstick's own on this node: the id recorded when it drained the node
// (empty: none recorded, so no drain is its own) and the user it runs as.
struct DrainOwner {
  std::string id;
  std::string user;
};
// Drained, the reason is "yardstick: ... (drain id ID)" with the recorded id, and Slurm says the
// drain was set by `owner.user`. A "yardstick:" reason set by anyone else is not ours.
bool IsOwnDrain(const NodeInfo& node, const DrainOwner& owner);

enum class NodeAction {
  kNothing,         // healthy and not drained, or drained by someone else and healthy
  kDrain,           // fail, node not drained
  kUpdateReason,    // fail, node drained by yardstick with another reason (the id is kept)
  kKeepOtherDrain,  // fail, node already drained by someone else: their reason is kept
  kResume,          // healthy, node drained by yardstick
};
struct NodeDecision {
  NodeAction action = NodeAction::kNothing;
  std::string why;  // for the status line
};
NodeDecision DecideNodeAction(const HealthVerdict& verdict, const NodeInfo& node,
                              const DrainOwner& owner);

}  // namespace ys::slurm

#endif  // YARDSTICK_SLURM_NODE_HEALTH_H_
