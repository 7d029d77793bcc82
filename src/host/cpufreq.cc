#include "host/cpufreq.h"

#include <algorithm>

#include "core/text.h"
#include "host/sysfs_attr.h"

namespace ys::host {

Result<CpuSet> ParseCpuWords(std::string_view text) {
  CpuSet out;
  for (std::string_view w : SplitWhitespace(text)) {
    auto v = ParseInt(w);
    if (!v || *v < 0 || *v > 1'000'000) {
      return Status::Invalid("expected space-separated CPU numbers, got \"" +
                             std::string(w.substr(0, 40)) + "\"");
    }
    out.Insert(static_cast<int>(*v));
  }
  return out;
}

namespace {

// A frequency attribute in kHz: a positive integer below 100 GHz; nullopt when absent or empty.
Result<std::optional<int64_t>> ReadKhz(const Host& host, const std::string& path) {
  auto line = ReadOptionalLine(host, path);
  if (!line.ok()) return line.status();
  if (!line->has_value() || (*line)->empty()) return std::optional<int64_t>();
  auto v = ParseInt(**line);
  if (!v || *v <= 0 || *v > 100'000'000) {
    return Status::Invalid(host.Resolve(path) + ": expected a frequency in kHz, got \"" +
                           (*line)->substr(0, 40) + "\"");
  }
  return std::optional<int64_t>(*v);
}

// A one-word attribute; nullopt when absent or empty.
Result<std::optional<std::string>> ReadWord(const Host& host, const std::string& path) {
  auto line = ReadOptionalLine(host, path);
  if (!line.ok()) return line.status();
  if (line->has_value() && (*line)->empty()) return std::optional<std::string>();
  return *line;
}

// A CPU-number list attribute (affected_cpus, related_cpus); nullopt when absent.
Result<std::optional<CpuSet>> ReadCpuWords(const Host& host, const std::string& path) {
  auto line = ReadOptionalLine(host, path);
  if (!line.ok()) return line.status();
  if (!line->has_value()) return std::optional<CpuSet>();
  auto set = ParseCpuWords(**line);
  if (!set.ok()) return Status::Invalid(host.Resolve(path) + ": " + set.status().message());
  return std::optional<CpuSet>(*set);
}

std::vector<std::string> PolicyDirs(const Host& host) {
  std::vector<std::string> out;
  for (const std::string& entry : host.ListMatching(kCpufreqDir, "policy[0-9]*")) {
    if (ParseInt(std::string_view(entry).substr(6))) out.push_back(entry);
  }
  return out;
}

int PolicyNumber(const std::string& name) {
  return static_cast<int>(*ParseInt(std::string_view(name).substr(6)));
}

Result<CpufreqPolicy> ReadPolicy(const Host& host, const std::string& name,
                                 const std::optional<CpuSet>& online) {
  std::string dir = std::string(kCpufreqDir) + "/" + name;
  CpufreqPolicy p;
  p.name = name;
  auto affected = ReadCpuWords(host, dir + "/affected_cpus");
  if (!affected.ok()) return affected.status();
  auto related = ReadCpuWords(host, dir + "/related_cpus");
  if (!related.ok()) return related.status();
  if (affected->has_value() && !(*affected)->empty()) {
    p.cpus = **affected;
  } else if (related->has_value() && !(*related)->empty()) {
    p.cpus = **related;
  } else {
    p.cpus.Insert(PolicyNumber(name));
  }
  auto inactive = [&](std::string why) -> Result<CpufreqPolicy> {
    p.inactive = std::move(why);
    return p;
  };
  if (affected->has_value() && (*affected)->empty()) {
    return inactive("affected_cpus is empty: every CPU of the policy is offline");
  }
  if (online && !p.cpus.Intersects(*online)) {
    return inactive("its CPUs " + p.cpus.ToString() + " are offline");
  }

  auto driver = ReadWord(host, dir + "/scaling_driver");
  if (!driver.ok()) return driver.status();
  auto governor = ReadWord(host, dir + "/scaling_governor");
  if (!governor.ok()) return governor.status();
  auto smax = ReadKhz(host, dir + "/scaling_max_freq");
  if (!smax.ok()) return smax.status();
  auto cmax = ReadKhz(host, dir + "/cpuinfo_max_freq");
  if (!cmax.ok()) return cmax.status();
  std::string missing;
  for (const auto& [attr, there] : {std::pair{"scaling_driver", driver->has_value()},
                                    {"scaling_governor", governor->has_value()},
                                    {"scaling_max_freq", smax->has_value()},
                                    {"cpuinfo_max_freq", cmax->has_value()}}) {
    if (!there) missing += (missing.empty() ? "" : ", ") + std::string(attr);
  }
  if (!missing.empty()) return inactive(missing + " absent or empty");
  p.driver = **driver;
  p.governor = **governor;
  p.scaling_max_khz = **smax;
  p.cpuinfo_max_khz = **cmax;

  auto smin = ReadKhz(host, dir + "/scaling_min_freq");
  if (!smin.ok()) return smin.status();
  p.scaling_min_khz = *smin;
  auto base = ReadKhz(host, dir + "/base_frequency");
  if (!base.ok()) return base.status();
  p.base_khz = *base;
  auto bios = ReadKhz(host, dir + "/bios_limit");
  if (!bios.ok()) return bios.status();
  p.bios_limit_khz = *bios;

  // Absent on drivers without EPP (acpi-cpufreq, cppc_cpufreq, older kernels); empty is no
  // preference either.
  auto epp = ReadWord(host, dir + "/energy_performance_preference");
  if (!epp.ok()) return epp.status();
  p.epp = *epp;
  auto boost = ReadOptionalLine(host, dir + "/boost");
  if (!boost.ok()) return boost.status();
  if (boost->has_value() && !(*boost)->empty()) {
    auto flag = ParseFlag(**boost);
    if (!flag) {
      return Status::Invalid(host.Resolve(dir + "/boost") + ": expected 0 or 1, got \"" +
                             (*boost)->substr(0, 40) + "\"");
    }
    p.boost = *flag;
  }
  return p;
}

// The online CPUs; nullopt when the file is absent, empty or unreadable (then every policy is
// judged by its own files).
std::optional<CpuSet> OnlineCpus(const Host& host) {
  auto line = host.ReadLine("/sys/devices/system/cpu/online");
  if (!line.ok() || line->empty()) return std::nullopt;
  auto set = CpuSet::ParseList(*line);
  if (!set.ok() || set->empty()) return std::nullopt;
  return *set;
}

}  // namespace

Result<std::vector<CpufreqPolicy>> ReadCpufreqPolicies(const Host& host) {
  std::vector<CpufreqPolicy> out;
  std::optional<CpuSet> online = OnlineCpus(host);
  for (const std::string& name : PolicyDirs(host)) {
    auto p = ReadPolicy(host, name, online);
    if (!p.ok()) return p.status();
    out.push_back(std::move(*p));
  }
  return out;
}

std::optional<bool> TurboControls::TurboAllowed() const {
  bool forbidden = (no_turbo && *no_turbo) || (boost && !*boost);
  if (forbidden) return false;
  if (no_turbo || boost) return true;
  return std::nullopt;
}

Result<TurboControls> ReadTurboControls(const Host& host) {
  const std::string sys = "/sys/devices/system/cpu";
  TurboControls t;
  auto status = ReadOptionalLine(host, sys + "/intel_pstate/status");
  if (!status.ok()) return status.status();
  t.intel_pstate_status = *status;
  auto no_turbo = ReadOptionalFlag(host, sys + "/intel_pstate/no_turbo");
  if (!no_turbo.ok()) return no_turbo.status();
  t.no_turbo = *no_turbo;
  auto pct = ReadOptionalInt(host, sys + "/intel_pstate/max_perf_pct");
  if (!pct.ok()) return pct.status();
  if (pct->has_value() && (**pct < 0 || **pct > 100)) {
    return Status::Invalid(host.Resolve(sys + "/intel_pstate/max_perf_pct") +
                           ": expected a percentage from 0 to 100, got " + std::to_string(**pct));
  }
  t.max_perf_pct = *pct;
  auto boost = ReadOptionalFlag(host, std::string(kCpufreqDir) + "/boost");
  if (!boost.ok()) return boost.status();
  t.boost = *boost;
  auto amd = ReadOptionalLine(host, sys + "/amd_pstate/status");
  if (!amd.ok()) return amd.status();
  t.amd_pstate_status = *amd;
  return t;
}

Result<std::optional<int64_t>> ReadRatedMaxKhz(const Host& host, const CpuSet& cpus) {
  std::optional<int64_t> covering, any;
  for (const std::string& name : PolicyDirs(host)) {
    std::string dir = std::string(kCpufreqDir) + "/" + name;
    auto khz = ReadKhz(host, dir + "/cpuinfo_max_freq");
    if (!khz.ok()) return khz.status();
    if (!khz->has_value()) continue;  // an inactive policy
    any = std::max(any.value_or(0), **khz);
    CpuSet covered;
    if (auto words = host.ReadLine(dir + "/affected_cpus"); words.ok()) {
      if (auto set = ParseCpuWords(*words); set.ok()) covered = *set;
    }
    if (covered.empty()) covered.Insert(PolicyNumber(name));
    if (covered.Intersects(cpus)) covering = std::max(covering.value_or(0), **khz);
  }
  return covering ? covering : any;
}

}  // namespace ys::host
