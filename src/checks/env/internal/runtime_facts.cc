#include "checks/env/internal/runtime_facts.h"

#include <utility>

#include "core/text.h"

namespace ys::checks::runtime {
namespace {

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

// The environment of the process judged; the skip or error when there is none to read.
std::optional<CheckResult> ReadEnvironment(const CheckContext& ctx, host::Environment& env) {
  const host::Host& h = ctx.host();
  std::string environ_path = ctx.ProcDir() + "/environ";
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
  return std::nullopt;
}

// NCCL settings: environment, then the configuration files.
void ReadNccl(const host::Host& h, const host::Environment& env, RuntimeFacts& f) {
  for (const auto& [k, v] : env.vars()) {
    if (StartsWith(k, "NCCL_")) f.nccl[k] = {v, "environment"};
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
    f.notes.emplace_back("nccl.conf", path);
    for (auto& [k, v] : host::ParseNcclConf(*text)) f.nccl.emplace(k, Setting{v, path});
  }
  std::vector<std::string> shown;
  for (const auto& [k, s] : f.nccl) shown.push_back(s.Where(k) + "=" + s.value);
  f.notes.emplace_back("nccl", shown.empty() ? "no NCCL variables set" : Join(shown, " "));
}

void NoteContext(RuntimeFacts& f) {
  const host::ContainerContext& c = f.container;
  f.notes.emplace_back("container", c.inside()         ? c.runtime
                                    : c.user_namespace ? "none identified (but in a user namespace)"
                                                       : "none (no Docker, podman, Enroot or "
                                                         "Pyxis marker)");
  for (const auto& [k, v] : c.markers) f.notes.emplace_back(k, v);
  f.notes.emplace_back("slurm", f.slurm.inside() ? "job " + f.slurm.job_id : "not in a Slurm job");
  for (const auto& [k, v] : f.slurm.vars) f.notes.emplace_back(k, v);
}

}  // namespace

std::unique_ptr<RuntimeFacts> ReadRuntime(const CheckContext& ctx, CheckResult& early) {
  const host::Host& h = ctx.host();
  host::Environment env;
  if (auto skip = ReadEnvironment(ctx, env)) {
    early = std::move(*skip);
    return nullptr;
  }
  auto f = std::make_unique<RuntimeFacts>();
  auto container = host::DetectContainer(h, ctx.ProcDir(), env);
  if (!container.ok()) {
    early = CheckResult::Error(container.status());
    return nullptr;
  }
  f->container = std::move(*container);
  f->slurm = host::SlurmFromEnvironment(env);
  NoteContext(*f);
  ReadNccl(h, env, *f);
  f->ib_devices = host::ListIbDevices(h);
  auto rates = ReadRatedPorts(h, f->ib_devices);
  if (!rates.ok()) {
    early = CheckResult::Error(rates.status());
    return nullptr;
  }
  f->rates = std::move(*rates);
  if (const Setting* s = f->Get("NCCL_IB_HCA")) {
    auto spec = host::ParseNcclIbHca(s->value);
    if (!spec.ok()) {
      early = CheckResult::Error(Status::Invalid(s->Where("NCCL_IB_HCA") + "=\"" + s->value +
                                                 "\": " + spec.status().message()));
      return nullptr;
    }
    f->hca = *spec;
  }
  for (const auto& p : f->rates) {
    if (!f->hca || host::IbHcaSelects(*f->hca, p.device, p.port)) f->used.push_back(&p);
  }
  return f;
}

std::string FormatGbps(double g) {
  std::string s = std::to_string(g);
  s.erase(s.find_last_not_of('0') + 1);
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

Finding EnvFinding(std::string_view code, std::string message, const std::string& name,
                   const Setting& s, std::string fix) {
  Finding f = MakeFinding(code, "process", std::move(message));
  f.evidence.emplace_back(s.Where(name), s.value);
  f.fix = std::move(fix);
  f.reference = kNcclRef;
  return f;
}

CheckResult StartResult(const RuntimeFacts& f) {
  CheckResult r;
  r.evidence = f.notes;
  return r;
}

void Conclude(const RuntimeFacts& f, CheckResult& r) {
  if (!r.findings.empty()) return;
  r.summary =
      std::string(f.container.inside() ? "container " + f.container.runtime : "no container") +
      ", " + (f.slurm.inside() ? "Slurm job " + f.slurm.job_id : "no Slurm job") + ", " +
      (f.nccl.empty() ? "no NCCL overrides"
                      : "NCCL variables: " + std::to_string(f.nccl.size()) + ", none suspicious");
}

}  // namespace ys::checks::runtime
