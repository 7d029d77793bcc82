#include "host/page_size.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>

#include "core/text.h"

namespace ys::host {
namespace {

// "55663c444000-55663c446000 r--p 00000000 08:01 1234   /usr/bin/head"
bool IsMappingHeader(std::string_view line) {
  auto fields = SplitWhitespace(line);
  if (fields.size() < 5) return false;
  auto range = Split(fields[0], '-');
  return range.size() == 2 && ParseHex(range[0]) && ParseHex(range[1]) && fields[1].size() == 4;
}

}  // namespace

Result<std::optional<uint64_t>> BasePageKbFromSmaps(std::string_view text) {
  std::optional<uint64_t> smallest;
  size_t n = 0;
  for (std::string_view line : SplitLines(text)) {
    ++n;
    if (Trim(line).empty()) continue;
    size_t colon = line.find(':');
    bool key_value = colon != std::string_view::npos && colon > 0 &&
                     std::all_of(line.begin(), line.begin() + colon, [](char c) {
                       return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                     });
    if (!key_value) {
      if (IsMappingHeader(line)) continue;
      return Status::Invalid("line " + std::to_string(n) +
                             ": expected a mapping header or \"Key: value\", got \"" +
                             std::string(line.substr(0, 60)) + "\"");
    }
    if (line.substr(0, colon) != "KernelPageSize") continue;
    auto f = SplitWhitespace(line.substr(colon + 1));
    std::optional<uint64_t> kb = f.size() == 2 && f[1] == "kB" ? ParseUint(f[0]) : std::nullopt;
    if (!kb || *kb == 0) {
      return Status::Invalid("line " + std::to_string(n) +
                             ": expected \"KernelPageSize: <n> kB\", got \"" +
                             std::string(Trim(line).substr(0, 60)) + "\"");
    }
    if (!smallest || *kb < *smallest) smallest = *kb;
  }
  return smallest;
}

Result<std::optional<uint64_t>> BasePageKbFromNumaMaps(std::string_view text) {
  constexpr std::string_view kKey = "kernelpagesize_kB=";
  std::optional<uint64_t> smallest;
  size_t n = 0;
  for (std::string_view line : SplitLines(text)) {
    ++n;
    for (std::string_view tok : SplitWhitespace(line)) {
      if (!StartsWith(tok, kKey)) continue;
      auto kb = ParseUint(tok.substr(kKey.size()));
      if (!kb || *kb == 0) {
        return Status::Invalid("line " + std::to_string(n) +
                               ": expected kernelpagesize_kB=<n>, got \"" +
                               std::string(tok.substr(0, 40)) + "\"");
      }
      if (!smallest || *kb < *smallest) smallest = *kb;
    }
  }
  return smallest;
}

Result<std::optional<PageSize>> ReadBasePageSize(const Host& host, const std::string& proc_dir) {
  struct Source {
    std::string path;
    Result<std::optional<uint64_t>> (*parse)(std::string_view);
  };
  for (const Source& s : {Source{proc_dir + "/smaps", &BasePageKbFromSmaps},
                          Source{proc_dir + "/numa_maps", &BasePageKbFromNumaMaps}}) {
    auto text = host.ReadFile(s.path);
    if (!text.ok()) {
      if (text.status().code() == StatusCode::kNotFound ||
          text.status().code() == StatusCode::kPermissionDenied) {
        continue;
      }
      return text.status();
    }
    auto kb = s.parse(*text);
    if (!kb.ok()) return Status::Invalid(host.Resolve(s.path) + ": " + kb.status().message());
    if (*kb) return std::optional<PageSize>(PageSize{**kb, s.path});
  }
  if (host.live()) {
    long bytes = ::sysconf(_SC_PAGESIZE);
    if (bytes > 0) {
      return std::optional<PageSize>(
          PageSize{static_cast<uint64_t>(bytes) / 1024, "sysconf(_SC_PAGESIZE)"});
    }
  }
  return std::optional<PageSize>();
}

}  // namespace ys::host
