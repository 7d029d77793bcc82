// Where the checked process runs: inside a container (Docker, podman, systemd-nspawn, Enroot and
// Pyxis) and inside a Slurm job (reference: docs/node-checks.md §runtime). Evidence for the
// operator and for other checks; neither is a fault.
//
// Enroot creates no PID namespace and bind-mounts the host's /proc and /sys, so the PID-1 tests
// of systemd-detect-virt say "no container" there; the markers that work are its lock file
// /.lock, the /.enroot bundle directory, a user namespace in /proc/self/uid_map, Pyxis's
// PYXIS_* variables and the pyxis_<job>.<step> rootfs name in /proc/self/mountinfo.
#ifndef YARDSTICK_HOST_RUNTIME_CONTEXT_H_
#define YARDSTICK_HOST_RUNTIME_CONTEXT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/run_document.h"
#include "core/status.h"
#include "host/environment.h"
#include "host/host.h"

namespace ys::host {

// One /proc/<pid>/uid_map row: "<inside> <outside> <count>".
struct IdMapRange {
  uint64_t inside = 0;
  uint64_t outside = 0;
  uint64_t count = 0;
};
// Invalid when a line does not have three numbers, or the file has no line.
Result<std::vector<IdMapRange>> ParseIdMap(std::string_view text);
// The initial user namespace: one row "0 0 4294967295".
bool IsIdentityIdMap(const std::vector<IdMapRange>& ranges);

// The Pyxis container name ("pyxis_3385.0", "pyxis_3385_3385.0") found in the root or source
// field of a /proc/<pid>/mountinfo line; "" when none or the text is empty. Otherwise
// ParseMountInfo's Invalid for a line that is not mountinfo.
Result<std::string> PyxisNameFromMountInfo(std::string_view text);

struct ContainerContext {
  std::string runtime;  // "docker", "podman", "enroot", "pyxis", a container-manager name, or ""
  Evidence markers;     // path or variable -> what was seen, every marker found
  bool user_namespace = false;
  bool inside() const { return !runtime.empty(); }
};

// Reads the marker files under the host root, <proc_dir>/uid_map and <proc_dir>/mountinfo, and
// the PYXIS_* variables of `env`. Absent files are not markers; a present but malformed uid_map
// or mountinfo is an error naming the path.
Result<ContainerContext> DetectContainer(const Host& host, const std::string& proc_dir,
                                         const Environment& env);

// The Slurm variables of a task (srun(1) "OUTPUT ENVIRONMENT VARIABLES").
struct SlurmContext {
  std::string job_id;  // SLURM_JOB_ID, else SLURM_JOBID; "" outside a job
  Evidence vars;       // every variable present of those listed in the .cc, in that order
  bool inside() const { return !job_id.empty(); }
};
SlurmContext SlurmFromEnvironment(const Environment& env);

}  // namespace ys::host

#endif  // YARDSTICK_HOST_RUNTIME_CONTEXT_H_
