#include "host/cpuidle.h"

#include <cctype>

#include "core/text.h"
#include "host/sysfs_attr.h"

namespace ys::host {

Result<IdleDriver> ReadIdleDriver(const Host& host) {
  std::string dir = kCpuIdleDir;
  if (!host.IsDirectory(dir)) return Status::NotFound(host.Resolve(dir) + ": no cpuidle directory");
  IdleDriver d;
  auto driver = host.ReadLine(dir + "/current_driver");
  if (!driver.ok()) return driver.status();
  if (driver->empty()) {
    // The kernel writes a name or "none"; an empty file (a copy that could not read it) names no
    // driver, which the caller treats as a tree without cpuidle.
    return Status::NotFound(host.Resolve(dir + "/current_driver") +
                            ": empty file, no idle driver recorded");
  }
  d.driver = *driver;
  for (const char* f : {"/current_governor_ro", "/current_governor"}) {
    auto gov = ReadOptionalLine(host, dir + f);
    if (!gov.ok()) return gov.status();
    if (gov->has_value() && !(*gov)->empty()) {
      d.governor = **gov;
      break;
    }
  }
  return d;
}

Result<bool> ParseDefaultStatus(std::string_view text) {
  std::string_view t = Trim(text);
  if (t == "enabled") return true;
  if (t == "disabled") return false;
  return Status::Invalid("expected \"enabled\" or \"disabled\", got \"" +
                         std::string(t.substr(0, 40)) + "\"");
}

namespace {

Status Missing(const Host& host, const std::string& path) {
  return Status::Invalid(host.Resolve(path) + ": missing; every idle state has one");
}

// Reads one state<K> directory. A missing required attribute is Invalid, not NotFound, so that
// callers can tell a truncated state from a CPU without cpuidle.
Result<IdleState> ReadState(const Host& host, const std::string& dir, int index) {
  IdleState s;
  s.index = index;
  auto name = ReadOptionalLine(host, dir + "/name");
  if (!name.ok()) return name.status();
  if (!name->has_value()) return Missing(host, dir + "/name");
  // The kernel always prints these; an empty copy leaves the state unknown (empty_attribute).
  if ((*name)->empty()) s.empty_attribute = "name";
  s.name = **name;
  auto desc = ReadOptionalLine(host, dir + "/desc");
  if (!desc.ok()) return desc.status();
  s.desc = desc->value_or("");
  bool empty = false;
  auto latency = ReadOptionalIntOrEmpty(host, dir + "/latency", empty);
  if (!latency.ok()) return latency.status();
  if (empty) {
    if (s.empty_attribute.empty()) s.empty_attribute = "latency";
  } else if (!latency->has_value()) {
    return Missing(host, dir + "/latency");
  } else if (**latency < 0) {
    return Status::Invalid(host.Resolve(dir + "/latency") +
                           ": expected a latency in us >= 0, got " + std::to_string(**latency));
  } else {
    s.latency_us = **latency;
  }
  // residency and usage are optional: an empty one counts as absent.
  auto residency = ReadOptionalIntOrEmpty(host, dir + "/residency", empty);
  if (!residency.ok()) return residency.status();
  s.residency_us = *residency;
  auto disable_line = ReadOptionalLine(host, dir + "/disable");
  if (!disable_line.ok()) return disable_line.status();
  if (disable_line->has_value() && (*disable_line)->empty()) {
    if (s.empty_attribute.empty()) s.empty_attribute = "disable";
  } else {
    auto disable = ReadOptionalFlag(host, dir + "/disable");
    if (!disable.ok()) return disable.status();
    if (!disable->has_value()) return Missing(host, dir + "/disable");
    s.disabled = **disable;
  }
  auto def = ReadOptionalLine(host, dir + "/default_status");
  if (!def.ok()) return def.status();
  if (def->has_value()) {
    auto parsed = ParseDefaultStatus(**def);
    if (!parsed.ok()) {
      return Status::Invalid(host.Resolve(dir + "/default_status") + ": " +
                             parsed.status().message());
    }
    s.default_enabled = *parsed;
  }
  auto usage = ReadOptionalIntOrEmpty(host, dir + "/usage", empty);
  if (!usage.ok()) return usage.status();
  s.usage = *usage;
  return s;
}

}  // namespace

Result<std::vector<IdleState>> ReadIdleStates(const Host& host, int cpu) {
  std::string dir = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cpuidle";
  if (!host.IsDirectory(dir)) return Status::NotFound(host.Resolve(dir) + ": no cpuidle directory");
  std::vector<IdleState> out;
  for (const std::string& entry : host.ListMatching(dir, "state[0-9]*")) {
    auto index = ParseInt(std::string_view(entry).substr(5));
    if (!index) continue;  // "state1x" is not a state directory
    auto s = ReadState(host, dir + "/" + entry, static_cast<int>(*index));
    if (!s.ok()) return s.status();
    out.push_back(std::move(*s));
  }
  return out;
}

std::optional<int> CStateNumber(std::string_view name) {
  name = Trim(name);
  if (name.size() < 2 || (name[0] != 'C' && name[0] != 'c') ||
      !std::isdigit(static_cast<unsigned char>(name[1]))) {
    return std::nullopt;
  }
  size_t end = 1;
  while (end < name.size() && std::isdigit(static_cast<unsigned char>(name[end]))) ++end;
  if (end - 1 > 3) return std::nullopt;
  return static_cast<int>(*ParseInt(name.substr(1, end - 1)));
}

bool IsDeepIdleState(const IdleState& state, std::string_view driver) {
  std::string lower = ToLower(state.name);
  if (StartsWith(lower, "poll") || StartsWith(lower, "haltpoll") || lower == "wfi") return false;
  std::optional<int> n = CStateNumber(state.name);
  if (n && *n <= 1) return false;
  if (n && *n >= 6) return true;
  // A native intel_idle table names hardware states; only C6 and deeper gate the core.
  bool acpi_named = EndsWith(state.name, "_ACPI");
  if (driver == "intel_idle" && !acpi_named) return false;
  // ACPI _CST/_LPI (acpi_idle, intel_idle's _ACPI states) and firmware-defined states (PSCI):
  // the names are ACPI types or free text, so the exit latency decides.
  return state.latency_us >= kDeepLatencyUs;
}

}  // namespace ys::host
