#include "checks/numa/internal/placement_facts.h"

#include <fmt/format.h>

#include <optional>
#include <string>
#include <vector>

#include "core/text.h"
#include "host/nccl_env.h"
#include "host/numa_maps.h"
#include "host/proc_pid.h"

namespace ys::checks::placement {
namespace {

// Below this much process data the share says nothing (a tool's own few pages).
constexpr double kMinJudgedKb = 4096;

std::string Mib(double kb) { return fmt::format("{:.1f} MiB", kb / 1024.0); }
std::string Pct(double share) { return fmt::format("{:.1f}%", share * 100.0); }

std::string Labels(const std::vector<Device>& ds) {
  std::string out;
  for (const auto& d : ds) out += (out.empty() ? "" : ", ") + d.label;
  return out;
}

CpuSet LocalCpus(const std::vector<Device>& ds) {
  CpuSet s;
  for (const auto& d : ds) s = s.Union(d.pci->local_cpus);
  return s;
}

CpuSet NodesOf(const std::vector<Device>& ds) {
  CpuSet s;
  for (const auto& d : ds) {
    if (d.pci->numa_node >= 0) s.Insert(d.pci->numa_node);
  }
  return s;
}

// "0,1,3" -> ids; nullopt when any entry is not a plain ordinal (UUID, MIG, NoDevFiles).
std::optional<std::vector<int>> ParseOrdinals(std::string_view list) {
  std::vector<int> out;
  for (std::string_view e : Split(Trim(list), ',')) {
    auto v = ParseUint(e);
    if (!v || *v > 4096) return std::nullopt;
    out.push_back(static_cast<int>(*v));
  }
  return out;
}

}  // namespace

DeviceUse IdentifyDevices(const host::Host& h, const host::Topology& topo) {
  DeviceUse u;
  int i = 0;
  for (const host::PciDevice* g : topo.Gpus()) u.gpus.push_back({"gpu" + std::to_string(i++), g});
  for (const auto& name : h.ListMatching("/sys/class/infiniband", "*")) {
    auto real = h.RealPath("/sys/class/infiniband/" + name + "/device");
    if (!real.ok()) continue;
    const host::PciDevice* d = topo.FindPci(real->substr(real->rfind('/') + 1));
    if (d != nullptr) u.nics.push_back({name, d});
  }
  if (u.nics.empty()) {  // no RDMA devices: the network functions NCCL's socket transport uses
    int k = 0;
    for (const host::PciDevice* d : topo.NetworkDevices()) {
      u.nics.push_back({"nic" + std::to_string(k++), d});
    }
  }

  // GPUs of this rank.
  const auto& env = h.env();
  std::string var;
  std::optional<std::string> list;
  for (const char* v : {"SLURM_STEP_GPUS", "SLURM_JOB_GPUS", "CUDA_VISIBLE_DEVICES"}) {
    if ((list = env.Get(v))) {
      var = v;
      break;
    }
  }
  if (!list) {
    u.gpu_source = "no SLURM_STEP_GPUS, SLURM_JOB_GPUS or CUDA_VISIBLE_DEVICES";
  } else if (Trim(*list).empty()) {
    u.gpu_source = var + " is empty: the process uses no GPU";
  } else if (auto ids = ParseOrdinals(*list); !ids) {
    u.gpu_source = var + "=" + *list + " is not a list of ordinals (UUIDs need NVML)";
  } else {
    std::vector<int> chosen = *ids;
    std::string how = var + "=" + *list;
    if (ids->size() > 1) {
      for (const char* lr : {"LOCAL_RANK", "SLURM_LOCALID"}) {
        auto v = env.Get(lr);
        auto n = v ? ParseUint(*v) : std::nullopt;
        if (n && *n < ids->size()) {
          chosen = {(*ids)[*n]};
          how += ", entry " + std::to_string(*n) + " for " + lr + "=" + *v;
          break;
        }
      }
    }
    for (int id : chosen) {
      if (id >= static_cast<int>(u.gpus.size())) {
        u.used_gpus.clear();
        how += ": GPU " + std::to_string(id) + " is not among the " +
               std::to_string(u.gpus.size()) + " in sysfs";
        break;
      }
      u.used_gpus.push_back(u.gpus[id]);
    }
    u.gpu_source = how;
  }

  // NICs it may use: NCCL_IB_HCA restricts them (a port limit is not compared: a NIC counts
  // when any of its ports may be used); NCCL picks the nearest among those. A malformed value
  // is env.runtime's error; here every NIC is kept and the reason shown.
  std::optional<host::IbHcaSpec> spec;
  u.nic_source = "all (NCCL_IB_HCA unset)";
  if (auto hca = env.Get("NCCL_IB_HCA")) {
    auto parsed = host::ParseNcclIbHca(*hca);
    if (parsed.ok()) {
      spec = *parsed;
      u.nic_source = "NCCL_IB_HCA=" + *hca;
    } else {
      u.nic_source =
          "all (NCCL_IB_HCA=" + *hca + " is malformed: " + parsed.status().message() + ")";
    }
  }
  for (const auto& n : u.nics) {
    if (!spec || host::IbHcaSelectsDevice(*spec, n.label, {})) u.used_nics.push_back(n);
  }
  return u;
}

void CheckDevices(const CheckContext& ctx, const host::Topology& topo, const DeviceUse& use,
                  const host::ProcStatus& ps, CheckResult& r) {
  const bool multi = topo.nodes.size() > 1;
  std::vector<const Device*> no_affinity;
  for (const auto* list : {&use.gpus, &use.nics}) {
    for (const auto& d : *list) {
      std::string node = d.pci->numa_node_unknown ? std::string("unknown (empty numa_node file)")
                                                  : std::to_string(d.pci->numa_node);
      r.Note(d.label + " " + d.pci->bdf,
             "node " + node + ", local CPUs " + d.pci->local_cpus.ToString());
      if (d.pci->numa_node < 0 && !d.pci->numa_node_unknown) no_affinity.push_back(&d);
    }
  }
  r.Note("devices.used_gpus", use.used_gpus.empty()
                                  ? "unidentified (" + use.gpu_source + ")"
                                  : Labels(use.used_gpus) + " (" + use.gpu_source + ")");
  r.Note("devices.usable_nics", Labels(use.used_nics) + " (" + use.nic_source + ")");

  if (!no_affinity.empty() && multi) {
    Finding f = MakeFinding("YS-NUMA-005", no_affinity.front()->pci->bdf,
                            fmt::format("{} device(s) report numa_node -1 on a {}-node host: "
                                        "launchers and NCCL cannot place ranks near them",
                                        no_affinity.size(), topo.nodes.size()));
    for (const Device* d : no_affinity) {
      f.evidence.push_back(
          {"/sys/bus/pci/devices/" + d->pci->bdf + "/numa_node (" + d->label + ")", "-1"});
    }
    f.fix =
        "firmware gives no proximity (ACPI SRAT/_PXM): update the BIOS or enable its NUMA/SRAT "
        "option; meanwhile bind ranks explicitly from nvidia-smi topo -m";
    f.reference = "docs/node-checks.md §numa (PCI device locality)";
    r.Add(std::move(f));
  } else if (!no_affinity.empty()) {
    r.Note("devices.numa_node", "-1 on a single-node host: normal, everything is local");
  }

  // CPUs and memory nodes against the devices the process uses.
  for (const auto* used : {&use.used_gpus, &use.used_nics}) {
    std::vector<Device> placed;
    for (const auto& d : *used) {
      if (d.pci->numa_node >= 0) placed.push_back(d);
    }
    if (placed.empty() || !multi) continue;
    const bool gpus = used == &use.used_gpus;
    CpuSet local = LocalCpus(placed);
    if (!ps.cpus_allowed.IsSubsetOf(local)) {
      CpuSet off = ps.cpus_allowed.Minus(local);
      Finding f = MakeFinding("YS-NUMA-003", placed.front().pci->bdf,
                              fmt::format("{} of the process's {} allowed CPUs ({}) are not local "
                                          "to {} {} (node {})",
                                          off.size(), ps.cpus_allowed.size(), off.ToString(),
                                          gpus ? "its GPU(s)" : "the NICs it may use",
                                          Labels(placed), NodesOf(placed).ToString()));
      f.evidence = {{ctx.ProcDir() + "/status Cpus_allowed_list", ps.cpus_allowed.ToString()},
                    {"local CPUs of " + Labels(placed), local.ToString()},
                    {gpus ? "GPU choice" : "NIC choice", gpus ? use.gpu_source : use.nic_source}};
      f.fix = gpus ? "bind each rank to its GPU's node: srun --cpu-bind=cores --gpu-bind=closest, "
                     "or numactl --cpunodebind=" +
                         NodesOf(placed).ToString() +
                         " (nvidia-smi topo -m "
                         "lists each GPU's CPU affinity)"
                   : "let NCCL_IB_HCA include the NICs on the rank's node, or bind the rank to the "
                     "node of the NICs it uses";
      f.reference = "docs/node-checks.md §numa (rank CPU set vs GPU node)";
      r.Add(std::move(f));
    }
    if (gpus && ps.mems_allowed && !ps.mems_allowed->Intersects(NodesOf(placed))) {
      Finding f = MakeFinding(
          "YS-NUMA-004", placed.front().pci->bdf,
          "the process may allocate only on node(s) " + ps.mems_allowed->ToString() +
              ", none of them the node of its GPU(s) (" + NodesOf(placed).ToString() + ")");
      f.evidence = {{ctx.ProcDir() + "/status Mems_allowed_list", ps.mems_allowed->ToString()},
                    {"NUMA node of " + Labels(placed), NodesOf(placed).ToString()}};
      f.fix = "numactl --membind=" + NodesOf(placed).ToString() +
              " (or --preferred), or include "
              "the GPU's node in the job's cpuset.mems";
      f.reference = "docs/node-checks.md §numa (memory placement)";
      r.Add(std::move(f));
    }
  }
}

// The share of process data outside `home`. Returns an error status only for unreadable or
// malformed numa_maps.
Status CheckMemory(const CheckContext& ctx, const host::Topology& topo, const CpuSet& home,
                   const std::string& home_why, CheckResult& r) {
  const host::Host& h = ctx.host();
  std::string path = ctx.ProcDir() + "/numa_maps";
  if (!h.Exists(path)) {
    r.Note("memory", path + " is absent: placement not measured");
    return Status::Ok();
  }
  auto maps = host::ReadNumaMaps(h, path);
  if (!maps.ok()) return maps.status();
  host::NumaFootprint fp = host::SummariseNumaMaps(*maps);
  double data = host::NumaFootprint::Sum(fp.data_kb), file = host::NumaFootprint::Sum(fp.file_kb);
  auto per_node = [](const std::map<int, double>& m) {
    std::string s;
    for (const auto& [n, kb] : m) s += (s.empty() ? "" : ", ") + fmt::format("N{} {}", n, Mib(kb));
    return s.empty() ? std::string("none") : s;
  };
  r.Note("memory.data", per_node(fp.data_kb) + " (anonymous, heap, stack, hugetlb, shared memory)");
  r.Note("memory.file", per_node(fp.file_kb) + " (file mappings; not judged)");
  if (!fp.interleaved_kb.empty()) {
    r.Note("memory.interleaved", per_node(fp.interleaved_kb) + " (not judged)");
  }
  r.Note("memory.home", home.ToString() + " (" + home_why + ")");
  if (topo.nodes.size() <= 1) {
    r.Note("memory.remote_share", "0% (one NUMA node: nothing can be remote)");
    return Status::Ok();
  }
  if (home.empty()) {
    r.Note("memory.remote_share", "not judged: the home node is unknown");
    return Status::Ok();
  }
  if (data < kMinJudgedKb) {
    r.Note("memory.remote_share", "not judged: only " + Mib(data) + " of process data");
    return Status::Ok();
  }
  double remote = 0, remote_file = 0;
  std::string remote_nodes;
  for (const auto& [n, kb] : fp.data_kb) {
    if (home.Contains(n)) continue;
    remote += kb;
    remote_nodes += (remote_nodes.empty() ? "" : ",") + std::to_string(n);
  }
  for (const auto& [n, kb] : fp.file_kb) {
    if (!home.Contains(n)) remote_file += kb;
  }
  double share = remote / data;
  double limit = ctx.param<double>("max_remote_share");
  r.Note("memory.remote_share",
         Pct(share) + " of process data (" + Mib(remote) + " of " + Mib(data) + ")");
  if (file > 0) r.Note("memory.remote_share_file", Pct(remote_file / file) + " of file pages");
  if (share > limit) {
    Finding f =
        MakeFinding("YS-NUMA-001", "process",
                    fmt::format("{} of the process's memory ({} of {}) is on node {}, outside "
                                "its home node {}: those accesses cross the socket link",
                                Pct(share), Mib(remote), Mib(data), remote_nodes, home.ToString()));
    f.evidence = {{path + " process data per node", per_node(fp.data_kb)},
                  {"home node(s)", home.ToString() + " (" + home_why + ")"},
                  {"site.numa.max_remote_share", Pct(limit)},
                  {"VMAs with a non-default policy",
                   std::to_string(fp.vmas_with_policy) + " of " + std::to_string(fp.vmas)}};
    f.fix = "numactl --cpunodebind=" + home.ToString() + " --membind=" + home.ToString() +
            " <command>, or srun --cpu-bind=cores --gpu-bind=closest --mem-bind=local; allocate "
            "and first-touch buffers after pinning";
    f.expected_recovery =
        "part of the 12% -> 3% gap closed in Exemplar case 2 (NUMA binding "
        "together with cpuset isolation)";
    f.reference =
        "Exemplar case 2 (18% of accesses remote); numa_maps(5); docs/node-checks.md §numa";
    r.Add(std::move(f));
  }
  return Status::Ok();
}

Status CheckSysctls(const CheckContext& ctx, const host::Topology& topo, CheckResult& r) {
  const host::Host& h = ctx.host();
  const bool multi = topo.nodes.size() > 1;
  const Policy want = ctx.param<Policy>("balancing");
  const char* kBal = "/proc/sys/kernel/numa_balancing";
  if (!h.Exists(kBal)) {
    r.Note("kernel.numa_balancing", "absent (kernel without CONFIG_NUMA_BALANCING)");
  } else if (auto line = h.ReadLine(kBal); line.ok() && line->empty()) {
    r.Note("kernel.numa_balancing", "empty file: not judged");
  } else {
    auto v = h.ReadInt(kBal);
    if (!v.ok()) return v.status();
    if (*v < 0) {
      return Status::Invalid(h.Resolve(kBal) + ": expected a bitmask 0-3, got " +
                             std::to_string(*v));
    }
    bool normal = (*v & 1) != 0;
    std::string meaning =
        *v == 0  ? "disabled"
        : normal ? ((*v & 2) ? "NUMA_BALANCING_NORMAL + MEMORY_TIERING" : "NUMA_BALANCING_NORMAL")
                 : "MEMORY_TIERING only";
    r.Note("kernel.numa_balancing", std::to_string(*v) + " (" + meaning + ")");
    bool bad = (want == Policy::kOff && normal) || (want == Policy::kOn && !normal);
    if (bad && multi) {
      Finding f = MakeFinding(
          "YS-NUMA-002", "node",
          want == Policy::kOff
              ? "automatic NUMA balancing is on (" + std::to_string(*v) +
                    "): it unmaps pages to sample accesses and migrates the memory of pinned ranks"
              : "automatic NUMA balancing is off, the site expects it on");
      f.evidence = {{kBal, std::to_string(*v)}, {"site.numa.balancing", PolicyName(want)}};
      f.fix = want == Policy::kOff
                  ? "sysctl -w kernel.numa_balancing=0 (persist in /etc/sysctl.d/, "
                    "or numa_balancing=disable on the kernel command line)"
                  : "sysctl -w kernel.numa_balancing=1";
      f.reference =
          "Documentation/admin-guide/sysctl/kernel.rst (numa_balancing); llmb-run "
          "prescreen step 9; NCCL test sbatch sets kernel.numa_balancing=0";
      r.Add(std::move(f));
    }
  }
  const char* kZone = "/proc/sys/vm/zone_reclaim_mode";
  if (auto line = h.ReadLine(kZone); line.ok() && line->empty()) {
    r.Note("vm.zone_reclaim_mode", "empty file: not judged");
  } else if (h.Exists(kZone)) {
    auto z = h.ReadInt(kZone);
    if (!z.ok()) return z.status();
    r.Note("vm.zone_reclaim_mode", std::to_string(*z));
    if (*z != 0 && multi) {
      Finding f =
          MakeFinding("YS-NUMA-006", "node",
                      "vm.zone_reclaim_mode=" + std::to_string(*z) +
                          ": allocations reclaim page cache on the local node before going remote");
      f.evidence = {{kZone, std::to_string(*z)}};
      f.fix = "sysctl -w vm.zone_reclaim_mode=0";
      f.reference = "Documentation/admin-guide/sysctl/vm.rst (zone_reclaim_mode)";
      r.Add(std::move(f));
    }
  }
  return Status::Ok();
}

std::variant<PlacementFacts, CheckResult> ReadPlacement(const CheckContext& ctx) {
  const host::Host& h = ctx.host();
  const auto& topo = ctx.topology();
  if (!topo.ok()) {
    if (topo.status().code() == StatusCode::kNotFound) {
      return CheckResult::Skip("no CPU topology: " + topo.status().message());
    }
    return CheckResult::Error(topo.status());
  }
  const std::string proc = ctx.ProcDir();
  // hwloc invents one node when sysfs lists none, so ask sysfs itself.
  if (!h.Exists("/sys/devices/system/node") && !h.Exists(proc + "/numa_maps")) {
    return CheckResult::Skip("no NUMA information: " + h.Resolve("/sys/devices/system/node") +
                             " and " + h.Resolve(proc + "/numa_maps") +
                             " are absent (kernel without CONFIG_NUMA)");
  }
  PlacementFacts f;
  f.topo = &*topo;
  std::string nodes;
  for (const auto& n : topo->nodes) {
    nodes += (nodes.empty() ? "" : "; ") + fmt::format("node{}: CPUs {}", n.id, n.cpus.ToString());
  }
  f.notes.emplace_back("numa.nodes", nodes.empty() ? "none listed" : nodes);
  auto ps = host::ReadProcStatus(h, proc);
  if (!ps.ok() && ps.status().code() == StatusCode::kNotFound && h.Exists(proc + "/status")) {
    return CheckResult::Skip(ps.status().message() +
                             ": the process's CPUs are unknown, placement not judged");
  }
  if (!ps.ok()) return CheckResult::Error(ps.status());
  f.ps = std::move(*ps);
  CpuSet cpu_nodes = topo->NodesOfCpus(f.ps.cpus_allowed);
  f.notes.emplace_back("process.cpus",
                       f.ps.cpus_allowed.ToString() + " (nodes " + cpu_nodes.ToString() + ")");
  if (f.ps.mems_allowed) f.notes.emplace_back("process.mems", f.ps.mems_allowed->ToString());
  f.use = IdentifyDevices(h, *topo);
  f.home = NodesOf(f.use.used_gpus);
  f.home_why = "node of " + Labels(f.use.used_gpus);
  if (f.home.empty()) {
    f.home = cpu_nodes;
    f.home_why = "nodes of the allowed CPUs";
  }
  return f;
}

CheckResult StartResult(const PlacementFacts& f) {
  CheckResult r;
  r.evidence = f.notes;
  return r;
}

void Conclude(const PlacementFacts& f, CheckResult& r) {
  if (!r.findings.empty()) return;
  r.summary = f.topo->nodes.size() <= 1 ? "one NUMA node: nothing can be remote"
                                        : "memory on the home node " + f.home.ToString() +
                                              ", devices local, balancing as expected";
}

}  // namespace ys::checks::placement
