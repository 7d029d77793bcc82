// cgroups (docs/node-checks.md §isolation): which cgroup a process is in (/proc/<pid>/cgroup),
// where the cgroup file systems are mounted (/proc/self/mountinfo), the directory that holds a
// process's cgroup for a controller (v1, v2 or hybrid), and Slurm's job/step/task layout.
//
// The Parse* functions are pure and return Invalid naming the line and what was expected; the
// Read* functions read through the Host and name the resolved path in errors.
#ifndef YARDSTICK_HOST_CGROUP_H_
#define YARDSTICK_HOST_CGROUP_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/cpu_set.h"
#include "core/status.h"
#include "host/host.h"

namespace ys::host {

// One line of /proc/<pid>/cgroup: "4:memory:/a/b" (v1), "1:name=systemd:/" (v1 named), "0::/a"
// (v2, the unified hierarchy).
struct ProcCgroupLine {
  int hierarchy = 0;
  std::vector<std::string> controllers;  // "cpu", "cpuacct"; "name=systemd"; empty for v2
  std::string path;
  bool IsUnified() const { return hierarchy == 0 && controllers.empty(); }
  bool Has(std::string_view controller) const;
};
Result<std::vector<ProcCgroupLine>> ParseProcCgroup(std::string_view text);

// One line of mountinfo (proc(5)): "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root
// rw". Paths are unescaped (\040 -> ' ').
struct MountInfoLine {
  int mount_id = 0;
  int parent_id = 0;
  // The directory of the file system seen at the mount point; "net:[4026532371]" for a
  // namespace file (nsfs) that `ip netns` or a container runtime bind-mounted.
  std::string root;
  std::string mount_point;
  std::string fstype;  // "cgroup2", "cgroup", "overlay"
  std::string source;
  std::string super_options;  // "rw,cpuset" for a v1 cpuset hierarchy
  bool HasSuperOption(std::string_view opt) const;
};
Result<std::vector<MountInfoLine>> ParseMountInfo(std::string_view text);

enum class CgroupVersion { kV1, kV2 };
const char* CgroupVersionName(CgroupVersion v);

// A process's cgroup in one hierarchy and where it can be read.
struct CgroupDir {
  CgroupVersion version = CgroupVersion::kV2;
  std::string path;         // as /proc/<pid>/cgroup shows it: "/system.slice/.../task_0"
  std::string dir;          // host path of its directory: "/sys/fs/cgroup/system.slice/..."
  std::string mount_point;  // "/sys/fs/cgroup", "/sys/fs/cgroup/cpuset"
  std::string mount_root;   // "/" on the host; the bind-mounted cgroup inside enroot

  // Host directory of another cgroup path of the same hierarchy; nullopt when the path is not
  // visible through this mount (above a bind-mounted root, as inside a container).
  std::optional<std::string> DirOf(std::string_view cgroup_path) const;
  // Host directory and path of the ancestors, nearest first, while visible under the mount.
  std::vector<std::string> VisibleAncestors() const;
};

// The cgroup that holds `controller` ("cpuset", "cpu") for this process: the v1 hierarchy whose
// line lists the controller when one is mounted (v1 or hybrid), otherwise the unified v2
// hierarchy. Among mounts of that hierarchy the one whose root is the longest prefix of the path
// wins (a container's bind mount of its own cgroup). NotFound when none serves the path.
Result<CgroupDir> ResolveCgroupDir(const std::vector<ProcCgroupLine>& cgroups,
                                   const std::vector<MountInfoLine>& mounts,
                                   std::string_view controller);

// Reads <proc_dir>/cgroup and /proc/self/mountinfo and resolves as above.
Result<CgroupDir> ReadCgroupDir(const Host& host, const std::string& proc_dir,
                                std::string_view controller);
// Reads and parses <proc_dir>/cgroup.
Result<std::vector<ProcCgroupLine>> ReadProcCgroup(const Host& host, const std::string& proc_dir);

// Slurm's layout of a task's cgroup path:
//   v2: .../slurmstepd.scope/job_<N>/step_<M>/user/task_<K>   (also <node>_slurmstepd.scope)
//   v1: /slurm[_<node>]/uid_<U>/job_<N>/step_<M>/task_<K>
// Step and task are absent for a path at job level.
struct SlurmCgroup {
  std::string job;          // "1001"
  std::string step;         // "0", "batch", "extern", "interactive"; "" at job level
  std::string task;         // "0", "special"; "" above task level
  std::string job_path;     // cgroup path of job_<N>
  std::string step_path;    // cgroup path of step_<M>, "" at job level
  std::string jobs_parent;  // the directory holding job_<N>: the scope, or /slurm/uid_<U>
  std::string uid;          // v1 only
};
std::optional<SlurmCgroup> ParseSlurmCgroupPath(std::string_view path);

// cpuset.cpus.effective (v2) or cpuset.effective_cpus (v1) of a cgroup directory, walking up to
// the mount point when the file is absent at that level (v2 without the cpuset controller in the
// parent's subtree_control). NotFound when no level has it; the path read goes in `*source`.
Result<CpuSet> ReadEffectiveCpus(const Host& host, const CgroupDir& cg, const std::string& dir,
                                 std::string* source = nullptr);

// cpu.max (v2): "max 100000" -> nullopt (no limit), "400000 100000" -> 4.0 CPUs. Invalid for
// anything else, including a zero period.
Result<std::optional<double>> ParseCpuMax(std::string_view text);

// The tightest CPU bandwidth limit on a cgroup or its visible ancestors: cpu.max (v2) or
// cpu.cfs_quota_us / cpu.cfs_period_us (v1, -1 = none), with nr_throttled from the cpu.stat of
// the level that sets it (0 when that file is absent). nullopt when no level limits.
struct CpuQuota {
  double cpus = 0;    // quota / period
  std::string file;   // ".../cpu.max" or ".../cpu.cfs_quota_us"
  std::string value;  // as read: "400000 100000"
  std::string stat_file;
  uint64_t nr_throttled = 0;
};
Result<std::optional<CpuQuota>> ReadCpuQuota(const Host& host, const CgroupDir& cg);

}  // namespace ys::host

#endif  // YARDSTICK_HOST_CGROUP_H_
