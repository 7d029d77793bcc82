#include "host/nccl_env.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>

#include "core/text.h"

namespace ys::host {

Result<IbHcaSpec> ParseNcclIbHca(std::string_view value) {
  IbHcaSpec spec;
  std::string_view v = value;
  if (!v.empty() && v.front() == '^') {
    spec.exclude = true;
    v.remove_prefix(1);
  }
  if (!v.empty() && v.front() == '=') {
    spec.exact = true;
    v.remove_prefix(1);
  }
  for (std::string_view entry : Split(v, ',')) {
    if (entry.empty()) continue;  // "mlx5_0,,mlx5_1" and a trailing comma: NCCL skips these
    for (char c : entry) {
      if (std::isspace(static_cast<unsigned char>(c))) {
        return Status::Invalid(
            "entry \"" + std::string(entry) +
            "\" contains whitespace; NCCL does not trim, so it matches no device");
      }
    }
    auto fields = Split(entry, ':');
    if (fields.size() > 4) {
      return Status::Invalid("entry \"" + std::string(entry) +
                             "\": expected <hca>[:<port>[:<rail>[:<plane>]]]");
    }
    if (fields[0].empty()) {
      return Status::Invalid("entry \"" + std::string(entry) + "\" has an empty device name");
    }
    IbHcaEntry e;
    e.name = std::string(fields[0]);
    if (fields.size() >= 2) {
      auto port = ParseInt(fields[1]);
      if (!port || *port <= 0 || *port > 255) {
        return Status::Invalid("entry \"" + std::string(entry) + "\": port \"" +
                               std::string(fields[1]) + "\" is not a port number from 1 to 255");
      }
      e.port = static_cast<int>(*port);
    }
    for (size_t i = 2; i < fields.size(); ++i) {
      if (!ParseUint(fields[i])) {
        return Status::Invalid("entry \"" + std::string(entry) + "\": rail/plane \"" +
                               std::string(fields[i]) + "\" is not a number");
      }
    }
    if (spec.entries.size() < kNcclMaxIbHcaEntries) {
      spec.entries.push_back(std::move(e));
    } else {
      ++spec.ignored;
    }
  }
  if (spec.entries.empty()) {
    return Status::Invalid("expected [^][=]<hca>[:<port>][,...], got \"" +
                           std::string(value.substr(0, 80)) + "\"");
  }
  return spec;
}

bool IbHcaEntryMatches(const IbHcaEntry& entry, bool exact, std::string_view device, int port) {
  bool name = exact ? device == entry.name : StartsWith(device, entry.name);
  return name && (!entry.port || *entry.port == port);
}

bool IbHcaListsDevice(const IbHcaSpec& spec, std::string_view device,
                      const std::vector<int>& ports) {
  for (const auto& e : spec.entries) {
    // No ports: compare the entry's port with itself, so that only the name decides.
    if (ports.empty() && IbHcaEntryMatches(e, spec.exact, device, e.port.value_or(0))) return true;
    for (int port : ports) {
      if (IbHcaEntryMatches(e, spec.exact, device, port)) return true;
    }
  }
  return false;
}

bool IbHcaSelectsDevice(const IbHcaSpec& spec, std::string_view device,
                        const std::vector<int>& ports) {
  return IbHcaListsDevice(spec, device, ports) != spec.exclude;
}

bool IbHcaSelects(const IbHcaSpec& spec, std::string_view device, int port) {
  bool listed = false;
  for (const auto& e : spec.entries) {
    if (IbHcaEntryMatches(e, spec.exact, device, port)) {
      listed = true;
      break;
    }
  }
  return listed != spec.exclude;
}

std::string FormatIbHcaSpec(const IbHcaSpec& spec) {
  std::string out = std::string(spec.exclude ? "^" : "") + (spec.exact ? "=" : "");
  for (size_t i = 0; i < spec.entries.size(); ++i) {
    if (i) out += ',';
    out += spec.entries[i].name;
    if (spec.entries[i].port) out += ":" + std::to_string(*spec.entries[i].port);
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> ParseNcclConf(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> out;
  for (std::string_view line : SplitLines(text)) {
    std::string_view t = Trim(line);
    if (t.empty() || t.front() == '#') continue;
    size_t eq = t.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    std::string name(Trim(t.substr(0, eq)));
    std::string value(Trim(t.substr(eq + 1)));
    bool seen = false;
    for (const auto& kv : out) seen = seen || kv.first == name;
    if (!seen) out.emplace_back(std::move(name), std::move(value));
  }
  return out;
}

std::optional<long long> ParseNcclInt(std::string_view value) {
  std::string s(Trim(value));
  if (s.empty()) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 0);
  if (errno != 0 || end != s.c_str() + s.size()) return std::nullopt;
  return v;
}

}  // namespace ys::host
