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

// A frequency attribute in kHz: a positive integer below 100 GHz.
Result<std::optional<int64_t>> ReadKhz(const Host& host, const std::string& path, bool required) {
  auto v = ReadOptionalInt(host, path);
  if (!v.ok()) return v.status();
  if (!v->has_value()) {
    if (required)
      return Status::Invalid(host.Resolve(path) + ": missing; every cpufreq policy has one");
    return v;
  }
  if (**v <= 0 || **v > 100'000'000) {
    return Status::Invalid(host.Resolve(path) + ": expected a frequency in kHz, got " +
                           std::to_string(**v));
  }
  return v;
}

Result<std::string> ReadRequiredWord(const Host& host, const std::string& path) {
  auto line = ReadOptionalLine(host, path);
  if (!line.ok()) return line.status();
  if (!line->has_value())
    return Status::Invalid(host.Resolve(path) + ": missing; every cpufreq policy has one");
  if ((*line)->empty())
    return Status::Invalid(host.Resolve(path) + ": expected a name, got an empty file");
  return **line;
}

std::vector<std::string> PolicyDirs(const Host& host) {
  std::vector<std::string> out;
  for (const std::string& entry : host.ListMatching(kCpufreqDir, "policy[0-9]*")) {
    if (ParseInt(std::string_view(entry).substr(6))) out.push_back(entry);
  }
  return out;
}

Result<CpufreqPolicy> ReadPolicy(const Host& host, const std::string& name) {
  std::string dir = std::string(kCpufreqDir) + "/" + name;
  CpufreqPolicy p;
  p.name = name;
  auto cpus = ReadOptionalLine(host, dir + "/affected_cpus");
  if (!cpus.ok()) return cpus.status();
  if (cpus->has_value()) {
    auto set = ParseCpuWords(**cpus);
    if (!set.ok())
      return Status::Invalid(host.Resolve(dir + "/affected_cpus") + ": " + set.status().message());
    p.cpus = *set;
  }
  if (p.cpus.empty()) p.cpus.Insert(static_cast<int>(*ParseInt(std::string_view(name).substr(6))));

  auto driver = ReadRequiredWord(host, dir + "/scaling_driver");
  if (!driver.ok()) return driver.status();
  p.driver = *driver;
  auto governor = ReadRequiredWord(host, dir + "/scaling_governor");
  if (!governor.ok()) return governor.status();
  p.governor = *governor;

  auto smax = ReadKhz(host, dir + "/scaling_max_freq", true);
  if (!smax.ok()) return smax.status();
  p.scaling_max_khz = **smax;
  auto cmax = ReadKhz(host, dir + "/cpuinfo_max_freq", true);
  if (!cmax.ok()) return cmax.status();
  p.cpuinfo_max_khz = **cmax;
  auto smin = ReadKhz(host, dir + "/scaling_min_freq", false);
  if (!smin.ok()) return smin.status();
  p.scaling_min_khz = *smin;
  auto base = ReadKhz(host, dir + "/base_frequency", false);
  if (!base.ok()) return base.status();
  p.base_khz = *base;
  auto bios = ReadKhz(host, dir + "/bios_limit", false);
  if (!bios.ok()) return bios.status();
  p.bios_limit_khz = *bios;

  auto epp = ReadOptionalLine(host, dir + "/energy_performance_preference");
  if (!epp.ok()) return epp.status();
  if (epp->has_value() && (*epp)->empty()) {
    return Status::Invalid(host.Resolve(dir + "/energy_performance_preference") +
                           ": expected a preference name, got an empty file");
  }
  p.epp = *epp;
  auto boost = ReadOptionalFlag(host, dir + "/boost");
  if (!boost.ok()) return boost.status();
  p.boost = *boost;
  return p;
}

}  // namespace

Result<std::vector<CpufreqPolicy>> ReadCpufreqPolicies(const Host& host) {
  std::vector<CpufreqPolicy> out;
  for (const std::string& name : PolicyDirs(host)) {
    auto p = ReadPolicy(host, name);
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
    auto khz = ReadKhz(host, dir + "/cpuinfo_max_freq", false);
    if (!khz.ok()) return khz.status();
    if (!khz->has_value()) continue;
    any = std::max(any.value_or(0), **khz);
    CpuSet covered;
    if (auto words = host.ReadLine(dir + "/affected_cpus"); words.ok()) {
      if (auto set = ParseCpuWords(*words); set.ok()) covered = *set;
    }
    if (covered.empty())
      covered.Insert(static_cast<int>(*ParseInt(std::string_view(name).substr(6))));
    if (covered.Intersects(cpus)) covering = std::max(covering.value_or(0), **khz);
  }
  return covering ? covering : any;
}

}  // namespace ys::host
