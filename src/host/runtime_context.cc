#include "host/runtime_context.h"

#include <array>

#include "core/text.h"
#include "host/cgroup.h"

namespace ys::host {

Result<std::vector<IdMapRange>> ParseIdMap(std::string_view text) {
  std::vector<IdMapRange> out;
  for (std::string_view line : SplitLines(text)) {
    if (Trim(line).empty()) continue;
    auto f = SplitWhitespace(line);
    std::optional<uint64_t> a, b, c;
    if (f.size() == 3) {
      a = ParseUint(f[0]);
      b = ParseUint(f[1]);
      c = ParseUint(f[2]);
    }
    if (!a || !b || !c) {
      return Status::Invalid("expected \"<inside> <outside> <count>\", got \"" +
                             std::string(Trim(line).substr(0, 60)) + "\"");
    }
    out.push_back({*a, *b, *c});
  }
  if (out.empty()) return Status::Invalid("no \"<inside> <outside> <count>\" row");
  return out;
}

bool IsIdentityIdMap(const std::vector<IdMapRange>& r) {
  return r.size() == 1 && r[0].inside == 0 && r[0].outside == 0 && r[0].count == 4294967295u;
}

Result<std::string> PyxisNameFromMountInfo(std::string_view text) {
  if (Trim(text).empty()) return std::string();  // ParseMountInfo wants at least one mount
  auto mounts = ParseMountInfo(text);
  if (!mounts.ok()) return mounts.status();
  auto pyxis_component = [](std::string_view path) -> std::string {
    for (std::string_view part : Split(path, '/')) {
      if (StartsWith(part, "pyxis_") && part.size() > 6) return std::string(part);
    }
    return "";
  };
  for (const MountInfoLine& m : *mounts) {
    for (const std::string* path : {&m.root, &m.source}) {
      if (std::string name = pyxis_component(*path); !name.empty()) return name;
    }
  }
  return std::string();
}

Result<ContainerContext> DetectContainer(const Host& host, const std::string& proc_dir,
                                         const Environment& env) {
  ContainerContext c;
  std::string manager, pyxis, enroot, podman, docker;

  for (const char* path : {"/run/host/container-manager", "/run/systemd/container"}) {
    if (auto v = host.ReadLine(path); v.ok() && !v->empty()) {
      c.markers.emplace_back(path, *v);
      if (manager.empty()) manager = *v;
    }
  }
  if (host.Exists("/run/.containerenv")) {
    c.markers.emplace_back("/run/.containerenv", "present");
    podman = "podman";
  }
  if (host.Exists("/.dockerenv")) {
    c.markers.emplace_back("/.dockerenv", "present");
    docker = "docker";
  }
  for (const char* path : {"/.lock", "/.enroot"}) {
    if (host.Exists(path)) {
      c.markers.emplace_back(path, "present (enroot)");
      enroot = "enroot";
    }
  }
  for (const auto& [name, value] : env.vars()) {
    if (StartsWith(name, "PYXIS_")) {
      c.markers.emplace_back(name, value);
      pyxis = "pyxis";
    }
  }

  std::string uid_map_path = proc_dir + "/uid_map";
  if (auto text = host.ReadFile(uid_map_path); text.ok() && Trim(*text).empty()) {
    // Every namespace the kernel sets up has a map (the initial one "0 0 4294967295"); an empty
    // file (a namespace not yet mapped, or a copy that could not read it) says nothing either way.
    c.markers.emplace_back(uid_map_path, "empty file: user namespace not judged");
  } else if (text.ok()) {
    auto map = ParseIdMap(*text);
    if (!map.ok())
      return Status::Invalid(host.Resolve(uid_map_path) + ": " + map.status().message());
    if (!IsIdentityIdMap(*map)) {
      c.user_namespace = true;
      std::string rows;
      for (const auto& r : *map) {
        rows += (rows.empty() ? "" : "; ") + std::to_string(r.inside) + " " +
                std::to_string(r.outside) + " " + std::to_string(r.count);
      }
      c.markers.emplace_back(uid_map_path, rows + " (user namespace)");
    }
  } else if (text.status().code() != StatusCode::kNotFound &&
             text.status().code() != StatusCode::kPermissionDenied) {
    return text.status();
  }

  std::string mountinfo_path = proc_dir + "/mountinfo";
  if (auto text = host.ReadFile(mountinfo_path); text.ok()) {
    auto name = PyxisNameFromMountInfo(*text);
    if (!name.ok())
      return Status::Invalid(host.Resolve(mountinfo_path) + ": " + name.status().message());
    if (!name->empty()) {
      c.markers.emplace_back(mountinfo_path, "container rootfs " + *name);
      pyxis = "pyxis";
    }
  } else if (text.status().code() != StatusCode::kNotFound &&
             text.status().code() != StatusCode::kPermissionDenied) {
    return text.status();
  }

  // Most specific first: Pyxis runs Enroot; images imported from Docker may carry /.dockerenv.
  for (const std::string* r : {&pyxis, &enroot, &manager, &podman, &docker}) {
    if (!r->empty()) {
      c.runtime = *r;
      break;
    }
  }
  return c;
}

SlurmContext SlurmFromEnvironment(const Environment& env) {
  static constexpr std::array<std::string_view, 14> kVars = {
      "SLURM_JOB_ID",        "SLURM_JOBID",    "SLURM_STEP_ID",   "SLURM_PROCID",
      "SLURM_LOCALID",       "SLURM_NODEID",   "SLURM_NTASKS",    "SLURM_JOB_NODELIST",
      "SLURM_NODELIST",      "SLURM_JOB_GPUS", "SLURM_STEP_GPUS", "SLURM_GPUS_ON_NODE",
      "SLURM_CPU_BIND_TYPE", "SLURMD_NODENAME"};
  SlurmContext s;
  for (std::string_view name : kVars) {
    if (auto v = env.Get(name)) {
      s.vars.emplace_back(std::string(name), *v);
      if (s.job_id.empty() && (name == "SLURM_JOB_ID" || name == "SLURM_JOBID")) s.job_id = *v;
    }
  }
  return s;
}

}  // namespace ys::host
