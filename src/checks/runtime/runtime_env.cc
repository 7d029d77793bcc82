// env.runtime: the process's runtime environment (reference: linux-node-knobs.md §10-12,
// gpu-and-fabric-diagnostics.md §5). Evidence: inside a container (Docker, podman, Enroot/Pyxis)
// and inside a Slurm job. Findings: NCCL settings that silently cost throughput (a topology file
// the container cannot see, an NCCL_IB_HCA prefix that selects more devices than intended, one
// QP per connection on 400 Gb/s links, forced algorithms or protocols, debug logging, disabled
// fast paths) and a GPU + RDMA node without GPUDirect RDMA.
//
// NCCL settings come from the environment first, then from $NCCL_CONF_FILE (else ~/.nccl.conf)
// and /etc/nccl.conf, as NCCL applies them. With --pid, the environment is that process's and the
// topology file is looked up in its mount namespace (/proc/<pid>/root).
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "checks/check.h"
#include "core/text.h"
#include "host/gpudirect.h"
#include "host/infiniband.h"
#include "host/nccl_env.h"
#include "host/runtime_context.h"

namespace ys::checks {
namespace {

constexpr const char* kNcclRef = "NCCL user guide, Environment Variables (env.rst)";

struct Setting {
  std::string value;
  std::string source;  // "environment", "/etc/nccl.conf"
  std::string Where(const std::string& name) const {
    return source == "environment" ? name : source + " " + name;
  }
};

std::string FormatGbps(double g) {
  std::string s = std::to_string(g);
  s.erase(s.find_last_not_of('0') + 1);
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

// Every port that has a rate ("400 Gb/sec (4X NDR)"); a port without a rate file is left out.
Result<std::vector<host::IbPort>> ReadRatedPorts(const host::Host& h,
                                                 const std::vector<std::string>& devices) {
  std::vector<host::IbPort> out;
  for (const auto& dev : devices) {
    auto ports = host::ReadIbPorts(h, dev);
    if (!ports.ok()) return ports.status();
    for (auto& p : *ports) {
      if (p.rate) out.push_back(std::move(p));
    }
  }
  return out;
}

// NCCL wants an XML document whose root element is <system>.
bool LooksLikeNcclTopology(std::string_view text) {
  if (StartsWith(text, "\xEF\xBB\xBF")) text.remove_prefix(3);
  text = Trim(text);
  return !text.empty() && text.front() == '<' && text.find("<system") != std::string_view::npos;
}

Finding EnvFinding(std::string_view code, std::string message, const std::string& name,
                   const Setting& s, std::string fix) {
  Finding f = MakeFinding(code, "process", std::move(message));
  f.evidence.emplace_back(s.Where(name), s.value);
  f.fix = std::move(fix);
  f.reference = kNcclRef;
  return f;
}

class RuntimeEnvCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    const host::Host& h = ctx.host();
    std::string environ_path = ctx.ProcDir() + "/environ";
    host::Environment env;
    if (ctx.pid()) {
      auto block = h.ReadFile(environ_path);
      if (!block.ok()) {
        if (block.status().code() == StatusCode::kPermissionDenied) {
          return CheckResult::Skip("cannot read the environment of pid " +
                                   std::to_string(*ctx.pid()) + ": " + block.status().message());
        }
        return CheckResult::Error(block.status());
      }
      env = host::Environment::FromEnvironBlock(*block);
    } else if (h.live() || h.Exists(environ_path)) {
      env = h.env();
    } else {
      return CheckResult::Skip(h.Resolve(environ_path) +
                               " is absent: the tree records no process environment");
    }

    CheckResult r;
    auto container = host::DetectContainer(h, ctx.ProcDir(), env);
    if (!container.ok()) return CheckResult::Error(container.status());
    r.Note("container", container->inside() ? container->runtime
                        : container->user_namespace
                            ? "none identified (but in a user namespace)"
                            : "none (no Docker, podman, Enroot or Pyxis marker)");
    for (const auto& [k, v] : container->markers) r.Note(k, v);
    host::SlurmContext slurm = host::SlurmFromEnvironment(env);
    r.Note("slurm", slurm.inside() ? "job " + slurm.job_id : "not in a Slurm job");
    for (const auto& [k, v] : slurm.vars) r.Note(k, v);

    // NCCL settings: environment, then the configuration files.
    std::map<std::string, Setting, std::less<>> nccl;
    for (const auto& [k, v] : env.vars()) {
      if (StartsWith(k, "NCCL_")) nccl[k] = {v, "environment"};
    }
    std::vector<std::string> conf_files;
    if (auto user = env.Get("NCCL_CONF_FILE"); user && !user->empty()) {
      conf_files.push_back(*user);
    } else if (auto home = env.Get("HOME"); home && !home->empty()) {
      conf_files.push_back(*home + "/.nccl.conf");
    }
    conf_files.push_back("/etc/nccl.conf");
    for (const auto& path : conf_files) {
      if (path.empty() || path.front() != '/') continue;
      auto text = h.ReadFile(path);
      if (!text.ok()) continue;  // NCCL skips unreadable files silently too
      r.Note("nccl.conf", path);
      for (auto& [k, v] : host::ParseNcclConf(*text)) nccl.emplace(k, Setting{v, path});
    }
    std::vector<std::string> shown;
    for (const auto& [k, s] : nccl) shown.push_back(s.Where(k) + "=" + s.value);
    r.Note("nccl", shown.empty() ? "no NCCL variables set" : Join(shown, " "));
    auto get = [&](std::string_view name) -> const Setting* {
      auto it = nccl.find(name);
      return it == nccl.end() ? nullptr : &it->second;
    };

    std::vector<std::string> ib_devices = host::ListIbDevices(h);
    auto rates = ReadRatedPorts(h, ib_devices);
    if (!rates.ok()) return CheckResult::Error(rates.status());

    if (const Setting* s = get("NCCL_TOPO_FILE")) {
      Status st = CheckTopologyFile(ctx, *s, container->runtime, r);
      if (!st.ok()) return CheckResult::Error(st);
    }

    // NCCL_IB_HCA: which ports NCCL will use, and prefixes that reach further than meant.
    std::optional<host::IbHcaSpec> hca;
    if (const Setting* s = get("NCCL_IB_HCA")) {
      auto spec = host::ParseNcclIbHca(s->value);
      if (!spec.ok()) {
        return CheckResult::Error(Status::Invalid(s->Where("NCCL_IB_HCA") + "=\"" + s->value +
                                                  "\": " + spec.status().message()));
      }
      hca = *spec;
      CheckHcaPrefixes(ctx, *s, *hca, ib_devices, *rates, r);
    }
    std::vector<const host::IbPort*> used;
    for (const auto& p : *rates) {
      if (!hca || host::IbHcaSelects(*hca, p.device, p.port)) used.push_back(&p);
    }

    if (const Setting* s = get("NCCL_IB_QPS_PER_CONNECTION");
        s && host::ParseNcclInt(s->value) == 1) {
      std::vector<const host::IbPort*> fast;
      for (const auto* p : used) {
        if (p->rate->gbps >= 400) fast.push_back(p);
      }
      if (!fast.empty()) {
        Finding f = EnvFinding("YS-ENV-003",
                               "NCCL_IB_QPS_PER_CONNECTION=1 on " + std::to_string(fast.size()) +
                                   " port(s) at " + FormatGbps(fast.front()->rate->gbps) +
                                   " Gb/s or more: one QP cannot spread a "
                                   "connection over the fabric's paths",
                               "NCCL_IB_QPS_PER_CONNECTION", *s,
                               "NCCL_IB_QPS_PER_CONNECTION=2, or remove the override from the job "
                               "environment and nccl.conf");
        for (const auto* p : used) f.evidence.emplace_back(p->dir + "/rate", p->rate->text);
        f.expected_recovery =
            "QP-limited collectives took 31% of iteration time on ConnectX-8 (Exemplar case)";
        r.Add(std::move(f));
      }
    }

    // Forced algorithms and protocols.
    std::vector<std::string> forced;
    Finding algo = MakeFinding("YS-ENV-004", "process", "");
    for (const char* name : {"NCCL_ALGO", "NCCL_PROTO"}) {
      const Setting* s = get(name);
      if (s == nullptr || Trim(s->value).empty()) continue;
      forced.push_back(std::string(name) + "=" + s->value);
      algo.evidence.emplace_back(s->Where(name), s->value);
    }
    if (!forced.empty()) {
      algo.message = Join(forced, " and ") + " overrides NCCL's tuner for every message size";
      algo.fix =
          "unset NCCL_ALGO and NCCL_PROTO in production jobs (keep them only in benchmarks that "
          "pin "
          "a path on purpose)";
      algo.reference = kNcclRef;
      r.Add(std::move(algo));
    }

    if (const Setting* s = get("NCCL_DEBUG")) {
      std::string level = ToLower(Trim(s->value));
      if (level == "info" || level == "trace") {
        r.Add(EnvFinding(
            "YS-ENV-005",
            "NCCL_DEBUG=" + s->value +
                ": every rank logs at init and on every "
                "communicator, slowing start-up and filling job logs",
            "NCCL_DEBUG", *s,
            "NCCL_DEBUG=WARN (or unset) for production runs; use INFO only while debugging"));
      }
    }

    CheckFastPaths(get, !ib_devices.empty(), r);

    // GPUDirect RDMA on a node with NVIDIA GPUs and RDMA devices.
    const auto& topo = ctx.topology();
    bool gpus = topo.ok() && !topo->Gpus().empty();
    if (gpus && !ib_devices.empty()) {
      auto gdr = host::ReadGpuDirectState(h);
      if (!gdr.ok()) return CheckResult::Error(gdr.status());
      std::string driver =
          gdr->driver
              ? gdr->driver->version + (gdr->driver->open_module ? " (open kernel module)"
                                                                 : " (proprietary kernel module)")
              : "absent (/proc/driver/nvidia/version)";
      if (gdr->available()) {
        r.Note("gpudirect", !gdr->peer_memory.empty() ? "peer memory: " + Join(gdr->peer_memory)
                                                      : "DMA-BUF prerequisites: driver " + driver +
                                                            ", kernel " + gdr->kernel_text);
      } else {
        Finding f = MakeFinding(
            "YS-ENV-007", "node",
            "no GPUDirect RDMA path: no peer-memory module and no DMA-BUF prerequisites, "
            "so NCCL stages GPU data through host memory");
        f.evidence = {
            {"/sys/module/nvidia_peermem", "absent"},
            {"/sys/kernel/mm/memory_peers/nv_mem/version", "absent"},
            {"/sys/kernel/mm/memory_peers/nv_mem_nc/version", "absent"},
            {"/proc/driver/nvidia/version", driver},
            {"/proc/sys/kernel/osrelease",
             gdr->kernel_text.empty() ? "absent" : gdr->kernel_text + " (DMA-BUF needs 5.12+)"}};
        f.fix =
            "modprobe nvidia-peermem (and list it in /etc/modules-load.d/), or use the NVIDIA open "
            "GPU "
            "kernel modules on Linux 5.12+ so NCCL can use DMA-BUF";
        f.reference = "linux-node-knobs.md §10 GPUDirect RDMA enablement; NCCL troubleshooting";
        r.Add(std::move(f));
      }
    }

    if (r.findings.empty()) {
      r.summary =
          std::string(container->inside() ? "container " + container->runtime : "no container") +
          ", " + (slurm.inside() ? "Slurm job " + slurm.job_id : "no Slurm job") + ", " +
          (nccl.empty() ? "no NCCL overrides"
                        : "NCCL variables: " + std::to_string(nccl.size()) + ", none suspicious");
    }
    return r;
  }

 private:
  static Status CheckTopologyFile(const CheckContext& ctx, const Setting& s,
                                  const std::string& runtime, CheckResult& r) {
    const host::Host& h = ctx.host();
    std::string path(Trim(s.value));
    if (path.empty()) {
      r.Note("nccl.topo_file", "set but empty: NCCL ignores it");
      return Status::Ok();
    }
    if (path.front() != '/') {
      r.Note("nccl.topo_file", path + ": relative to each rank's working directory, not verified");
      return Status::Ok();
    }
    std::string read_path = ctx.pid() ? ctx.ProcDir() + "/root" + path : path;
    auto text = h.ReadFile(read_path);
    std::string problem;
    if (text.ok()) {
      if (!LooksLikeNcclTopology(*text))
        problem = "is not an NCCL topology XML (no <system> root element)";
    } else if (text.status().code() == StatusCode::kNotFound) {
      problem = "does not exist";
    } else if (text.status().code() == StatusCode::kPermissionDenied) {
      problem = "is not readable (permission denied)";
    } else if (h.IsDirectory(read_path)) {
      problem = "is a directory";
    } else {
      return text.status();
    }
    if (problem.empty()) {
      r.Note("nccl.topo_file", path + " (readable XML)");
      return Status::Ok();
    }
    std::string where = runtime.empty() ? "on this node" : "inside the " + runtime + " container";
    Finding f = EnvFinding(
        "YS-ENV-001",
        "NCCL_TOPO_FILE " + path + " " + problem + " " + where +
            ": NCCL falls back to detection without an error",
        "NCCL_TOPO_FILE", s,
        "mount the topology file into the container (pyxis: --container-mounts=" + path + ":" +
            path + ", docker: -v " + path + ":" + path + ":ro), or unset NCCL_TOPO_FILE");
    f.evidence.emplace_back(read_path, problem);
    f.expected_recovery = "collectives 2-4x slower, a 13-53% gap to the reference (Exemplar case)";
    r.Add(std::move(f));
    return Status::Ok();
  }

  // An NCCL_IB_HCA entry without '=' is a prefix: "mlx5_1" also takes mlx5_10 .. mlx5_17. With
  // site devices.intended_hcas the selection is compared with it; without, an entry that names a
  // device exactly but also reaches others is taken as a mistake (a bare "mlx5" is intentional).
  static void CheckHcaPrefixes(const CheckContext& ctx, const Setting& s,
                               const host::IbHcaSpec& spec, const std::vector<std::string>& devices,
                               const std::vector<host::IbPort>& rates, CheckResult& r) {
    auto ports_of = [&](const std::string& dev) {
      std::vector<int> out;
      for (const auto& p : rates) {
        if (p.device == dev) out.push_back(p.port);
      }
      if (out.empty()) out.push_back(1);
      return out;
    };
    std::vector<std::string> selected, extra;
    for (const auto& dev : devices) {
      if (host::IbHcaSelectsDevice(spec, dev, ports_of(dev))) selected.push_back(dev);
    }
    r.Note("nccl.ib_hca", host::FormatIbHcaSpec(spec) + " -> uses " +
                              (selected.empty() ? "no device" : Join(selected)));
    if (spec.ignored > 0)
      r.Note("nccl.ib_hca.ignored", std::to_string(spec.ignored) + " entries past NCCL's 32");
    if (spec.exact || devices.empty()) return;

    const auto& intended = ctx.expect().devices.intended_hcas;
    auto in = [](const std::vector<std::string>& v, const std::string& x) {
      return std::find(v.begin(), v.end(), x) != v.end();
    };
    if (!intended.empty()) {
      for (const auto& dev : devices) {
        bool used = in(selected, dev);
        if (!spec.exclude && used && !in(intended, dev)) extra.push_back(dev);
        if (spec.exclude && !used && in(intended, dev)) extra.push_back(dev);
      }
    } else {
      std::vector<std::string> named;
      for (const auto& e : spec.entries) {
        if (in(devices, e.name)) named.push_back(e.name);
      }
      for (const auto& dev : devices) {
        if (in(named, dev) || !host::IbHcaListsDevice(spec, dev, ports_of(dev))) continue;
        for (const auto& e : spec.entries) {
          if (in(named, e.name) && StartsWith(dev, e.name)) {
            extra.push_back(dev);
            break;
          }
        }
      }
    }
    if (extra.empty()) return;
    std::string verb = spec.exclude ? "excludes" : "selects";
    Finding f =
        EnvFinding("YS-ENV-002",
                   "NCCL_IB_HCA=" + s.value + " " + verb + " " + std::to_string(extra.size()) +
                       " device(s) more than intended by prefix: " + Join(extra),
                   "NCCL_IB_HCA", s,
                   "write exact names with a leading '=': NCCL_IB_HCA=" +
                       std::string(spec.exclude ? "^" : "") + "=" +
                       host::FormatIbHcaSpec(host::IbHcaSpec{false, false, spec.entries, 0}));
    f.evidence.emplace_back(host::kInfinibandClassDir, Join(devices));
    if (!intended.empty()) f.evidence.emplace_back("site.devices.intended_hcas", Join(intended));
    r.Add(std::move(f));
  }

  template <typename Get>
  static void CheckFastPaths(const Get& get, bool rdma_node, CheckResult& r) {
    auto truthy = [](const Setting& s) { return host::ParseNcclInt(s.value).value_or(0) != 0; };
    auto loc = [](const Setting& s) {
      std::string v = ToLower(Trim(s.value));
      return v == "loc" || v == "0";
    };
    struct Rule {
      const char* name;
      const char* what;
      const char* fix;
    };
    static const Rule kRules[] = {
        {"NCCL_P2P_DISABLE",
         "GPU peer-to-peer (NVLink, PCIe P2P) is off: intra-node traffic goes "
         "through host memory",
         "unset NCCL_P2P_DISABLE"},
        {"NCCL_P2P_LEVEL", "NCCL_P2P_LEVEL=LOC turns GPU peer-to-peer off", "unset NCCL_P2P_LEVEL"},
        {"NCCL_IB_DISABLE",
         "the InfiniBand/RoCE transport is off on an RDMA node: inter-node "
         "traffic falls back to TCP sockets",
         "unset NCCL_IB_DISABLE"},
        {"NCCL_NET_GDR_LEVEL",
         "GPUDirect RDMA is off (LOC): NIC traffic is staged through host "
         "memory",
         "unset NCCL_NET_GDR_LEVEL (NCCL picks PXB, or P2C on C2C systems)"},
        {"NCCL_SHM_DISABLE",
         "the shared-memory transport is off: GPUs without P2P fall back to "
         "the network",
         "unset NCCL_SHM_DISABLE"},
    };
    for (const Rule& rule : kRules) {
      const Setting* s = get(rule.name);
      if (s == nullptr) continue;
      std::string_view n = rule.name;
      bool bad = (n == "NCCL_P2P_LEVEL" || n == "NCCL_NET_GDR_LEVEL") ? loc(*s) : truthy(*s);
      if (n == "NCCL_IB_DISABLE" && !rdma_node) bad = false;
      if (!bad) continue;
      r.Add(EnvFinding("YS-ENV-006", std::string(rule.name) + "=" + s->value + ": " + rule.what,
                       rule.name, *s,
                       std::string(rule.fix) + " in the job environment and nccl.conf"));
    }
  }
};

}  // namespace

YS_REGISTER(
    RuntimeEnvCheck,
    {.id = "env.runtime",
     .summary = "Container and Slurm context, NCCL variables that silently cost throughput, "
                "and GPUDirect RDMA availability.",
     .needs = {}})

}  // namespace ys::checks
