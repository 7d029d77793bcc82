// Fuzz target: the /proc and /sys parsers of src/host, by selector byte (the rest of the input is
// the file's text; where a parser takes two texts they are split at the first NUL byte):
//   procfs.cc       0 colon pairs  1 meminfo  2 selector  3 numbered state  4 kernel cmdline (+
//                   iommu.cc cmdline)  5 cpuinfo  6 limits
//   cpuidle.cc      7 default status        cpufreq.cc  8 cpu words
//   pci.cc          9 PCIe speed            numa_maps.cc 10 numa_maps (+ summary)
//   cpu_vulnerabilities.cc 11               cpu_cache.cc 12 cache size
//   iommu.cc        13 domain type, 14 module bool       pci_aer.cc 15 AER counters
//   infiniband.cc   16 rate                 runtime_context.cc 17 uid/gid map
//   edac.cc         18 counts               pci_locality.cc 19 sysfs path
//   interrupts.cc   20 /proc/interrupts     proc_pid.cc 21 status, 22 stat
//   hwmon.cc        23 millidegrees         busy_clock.cc 24 recorded busy clock
//   smt.cc          25 SMT control          kernel_config.cc 26 config, 27 config.gz (Gunzip)
//   sysfs_attr.cc   28 flag                 nccl_env.cc 29 NCCL_IB_HCA, 30 nccl.conf, 31 int
//   foreign_cpu.cc  32 status + stat        cgroup.cc 33 /proc/PID/cgroup + mountinfo (resolve),
//                   34 Slurm cgroup path, 35 cpu.max
//   gpudirect.cc    36 driver version, 37 kernel release
//   core/cpu_set.cc 38 cpu list, 39 cpu mask
#include "core/cpu_set.h"
#include "fuzz_target.h"
#include "fuzz_util.h"
#include "host/busy_core_clock.h"
#include "host/cgroup.h"
#include "host/cpu_cache.h"
#include "host/cpu_vulnerabilities.h"
#include "host/cpufreq.h"
#include "host/cpuidle.h"
#include "host/edac.h"
#include "host/foreign_cpu.h"
#include "host/gpudirect.h"
#include "host/hwmon.h"
#include "host/infiniband.h"
#include "host/interrupts.h"
#include "host/iommu.h"
#include "host/kernel_config.h"
#include "host/nccl_env.h"
#include "host/numa_maps.h"
#include "host/pci.h"
#include "host/pci_aer.h"
#include "host/pci_locality.h"
#include "host/proc_pid.h"
#include "host/procfs.h"
#include "host/runtime_context.h"
#include "host/smt.h"
#include "host/sysfs_attr.h"

YS_FUZZ_TARGET(host) {
  using namespace ys::host;
  std::string_view t = ys::fuzz::AsText(data, size);
  std::optional<int> which = ys::fuzz::TakeSelector(&t, 40);
  if (!which) return 0;
  size_t nul = t.find('\0');
  std::string_view first = t.substr(0, nul);
  std::string_view second = nul == std::string_view::npos ? "" : t.substr(nul + 1);
  switch (*which) {
    case 0:
      (void)ParseColonPairs(t);
      break;
    case 1:
      (void)ParseMeminfo(t);
      break;
    case 2:
      (void)ParseSelector(t);
      break;
    case 3:
      (void)ParseNumberedState(t);
      break;
    case 4:
      (void)ParseIommuCmdline(KernelCmdline::Parse(t));
      break;
    case 5:
      (void)ParseCpuInfo(t);
      break;
    case 6:
      (void)ParseLimit(first, second);
      break;
    case 7:
      (void)ParseDefaultStatus(t);
      break;
    case 8:
      (void)ParseCpuWords(t);
      break;
    case 9:
      (void)ParsePcieSpeed(t);
      break;
    case 10: {
      auto entries = ParseNumaMaps(t);
      if (entries.ok()) (void)SummariseNumaMaps(*entries);
      break;
    }
    case 11:
      (void)ParseVulnerability(first, second);
      break;
    case 12:
      (void)ParseCacheSize(t);
      break;
    case 13:
      (void)ParseIommuDomainType(t);
      break;
    case 14:
      (void)ParseModuleBool(t);
      break;
    case 15:
      (void)ParseAerCounters(t);
      break;
    case 16:
      (void)ParseIbRate(t);
      break;
    case 17:
      (void)ParseIdMap(t);
      break;
    case 18:
      (void)ParseSysfsCount(t, "count");
      break;
    case 19:
      (void)ParsePciSysfsPath(t);
      break;
    case 20:
      (void)ParseInterrupts(t);
      break;
    case 21:
      (void)ParseProcStatus(t);
      break;
    case 22:
      (void)ParseProcStat(t);
      break;
    case 23:
      (void)ParseHwmonMillidegrees(t, "temp1_input");
      break;
    case 24:
      (void)ParseBusyClock(t);
      break;
    case 25:
      (void)ParseSmtControl(t);
      break;
    case 26:
      (void)ParseKernelConfig(t);
      break;
    case 27: {
      auto text = Gunzip(t, 1 << 20);
      if (text.ok()) (void)ParseKernelConfig(*text);
      break;
    }
    case 28:
      (void)ParseFlag(t);
      break;
    case 29:
      (void)ParseNcclIbHca(t);
      break;
    case 30:
      (void)ParseNcclConf(t);
      break;
    case 31:
      (void)ParseNcclInt(t);
      break;
    case 32:
      (void)ParseProcCpuSample(first, second);
      break;
    case 33: {
      auto cgroups = ParseProcCgroup(first);
      auto mounts = ParseMountInfo(second);
      if (cgroups.ok() && mounts.ok()) {
        for (const char* controller : {"cpuset", "cpu"}) {
          auto dir = ResolveCgroupDir(*cgroups, *mounts, controller);
          if (dir.ok()) (void)dir->VisibleAncestors();
        }
      }
      break;
    }
    case 34:
      (void)ParseSlurmCgroupPath(t);
      break;
    case 35:
      (void)ParseCpuMax(t);
      break;
    case 36:
      (void)ParseNvidiaDriverVersion(t);
      break;
    case 37:
      (void)ParseKernelRelease(t);
      break;
    case 38:
      (void)ys::CpuSet::ParseList(t);
      break;
    case 39:
      (void)ys::CpuSet::ParseMask(t);
      break;
  }
  return 0;
}
