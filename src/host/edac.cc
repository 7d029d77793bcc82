#include "host/edac.h"

#include <string>

#include "core/text.h"

namespace ys::host {
namespace {

// Adds the count in `path` to `sum`; `found` tells whether the file exists.
Status AddCount(const Host& host, const std::string& path, uint64_t& sum, bool& found) {
  auto text = host.ReadFile(path);
  if (!text.ok()) {
    if (text.status().code() == StatusCode::kNotFound) return Status::Ok();
    return text.status();
  }
  auto n = ParseSysfsCount(*text, path);
  if (!n.ok()) return n.status();
  sum += *n;
  found = true;
  return Status::Ok();
}

}  // namespace

Result<uint64_t> ParseSysfsCount(std::string_view text, std::string_view path) {
  auto n = ParseUint(Trim(text));
  if (!n) {
    return Status::Invalid(std::string(path) + ": expected a count, got \"" +
                           SanitizeForDisplay(Trim(text)) + "\"");
  }
  return *n;
}

Result<EdacCounts> ReadEdacCounts(const Host& host) {
  constexpr std::string_view kMc = "/sys/devices/system/edac/mc";
  EdacCounts out;
  for (const std::string& mc : host.ListMatching(kMc, "mc[0-9]*")) {
    const std::string dir = std::string(kMc) + "/" + mc;
    bool ce = false, ue = false;
    YS_RETURN_IF_ERROR(AddCount(host, dir + "/ce_count", out.ce, ce));
    YS_RETURN_IF_ERROR(AddCount(host, dir + "/ue_count", out.ue, ue));
    if (ce || ue) ++out.controllers;
  }
  if (out.controllers == 0) {
    return Status::NotFound(host.Resolve(kMc) + ": no EDAC memory controller");
  }
  return out;
}

Result<uint64_t> ReadThermalThrottleCount(const Host& host, int cpu) {
  const std::string dir = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/thermal_throttle";
  uint64_t sum = 0;
  bool core = false, package = false;
  YS_RETURN_IF_ERROR(AddCount(host, dir + "/core_throttle_count", sum, core));
  YS_RETURN_IF_ERROR(AddCount(host, dir + "/package_throttle_count", sum, package));
  if (!core && !package)
    return Status::NotFound(host.Resolve(dir) + ": no thermal_throttle counters");
  return sum;
}

}  // namespace ys::host
