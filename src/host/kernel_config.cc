#include "host/kernel_config.h"

#include <zlib.h>

#include <cctype>

#include "core/text.h"

namespace ys::host {

std::optional<std::string> KernelConfig::Get(std::string_view name) const {
  auto it = options.find(name);
  if (it == options.end()) return std::nullopt;
  return it->second;
}

bool KernelConfig::Enabled(std::string_view name) const {
  auto v = Get(name);
  return v && (*v == "y" || *v == "m");
}

namespace {

bool IsConfigName(std::string_view s) {
  if (!StartsWith(s, "CONFIG_") || s.size() == 7) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

}  // namespace

Result<KernelConfig> ParseKernelConfig(std::string_view text) {
  KernelConfig cfg;
  size_t n = 0;
  for (std::string_view raw : SplitLines(text)) {
    ++n;
    std::string_view line = Trim(raw);
    if (line.empty()) continue;
    if (line.front() == '#') {
      // "# CONFIG_X is not set"; any other comment is a section heading.
      constexpr std::string_view kNotSet = " is not set";
      std::string_view body = Trim(line.substr(1));
      if (EndsWith(body, kNotSet)) {
        std::string_view name = body.substr(0, body.size() - kNotSet.size());
        if (IsConfigName(name)) cfg.options[std::string(name)] = "n";
      }
      continue;
    }
    size_t eq = line.find('=');
    if (eq == std::string_view::npos || !IsConfigName(line.substr(0, eq))) {
      return Status::Invalid(
          "line " + std::to_string(n) +
          ": expected CONFIG_NAME=value or \"# CONFIG_NAME is not set\", got \"" +
          std::string(line.substr(0, 60)) + "\"");
    }
    cfg.options[std::string(line.substr(0, eq))] = std::string(line.substr(eq + 1));
  }
  if (cfg.options.empty()) return Status::Invalid("no CONFIG_ lines: not a kernel configuration");
  return cfg;
}

Result<std::string> Gunzip(std::string_view data, size_t max_bytes) {
  if (data.size() < 18 || static_cast<unsigned char>(data[0]) != 0x1f ||
      static_cast<unsigned char>(data[1]) != 0x8b) {
    return Status::Invalid("not gzip data (expected the 1f 8b magic and a complete member)");
  }
  z_stream zs{};
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
    return Status::Internal("zlib inflateInit2 failed");
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  std::string out;
  char buf[65536];
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof buf;
    rc = inflate(&zs, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      std::string why = zs.msg ? zs.msg : (rc == Z_BUF_ERROR ? "truncated data" : "inflate error");
      inflateEnd(&zs);
      return Status::Invalid("corrupt gzip data: " + why);
    }
    out.append(buf, sizeof buf - zs.avail_out);
    if (out.size() > max_bytes) {
      inflateEnd(&zs);
      return Status::Invalid("decompresses to more than the " + std::to_string(max_bytes) +
                             "-byte limit");
    }
    // Several gzip members in a row (`gzip -c >> file`, as nvidia-bug-report.sh writes one per
    // section) are their concatenation, as gunzip reads them: go on with the next member.
    if (rc == Z_STREAM_END && zs.avail_in >= 2 && zs.next_in[0] == 0x1f && zs.next_in[1] == 0x8b) {
      if (inflateReset(&zs) != Z_OK) break;
      rc = Z_OK;
      continue;
    }
    if (rc == Z_OK && zs.avail_in == 0 && zs.avail_out != 0) {
      inflateEnd(&zs);
      return Status::Invalid("corrupt gzip data: truncated data");
    }
  }
  inflateEnd(&zs);
  return out;
}

Result<KernelConfig> ReadKernelConfig(const Host& host) {
  constexpr const char* kProcConfig = "/proc/config.gz";
  std::string path, text;
  auto gz = host.ReadFile(kProcConfig);
  if (gz.ok()) {
    auto plain = Gunzip(*gz, Host::kMaxFileBytes);
    if (!plain.ok())
      return Status::Invalid(host.Resolve(kProcConfig) + ": " + plain.status().message());
    path = kProcConfig;
    text = std::move(*plain);
  } else if (gz.status().code() != StatusCode::kNotFound) {
    return gz.status();
  } else {
    auto release = host.ReadLine("/proc/sys/kernel/osrelease");
    std::string boot = release.ok() && !release->empty() ? "/boot/config-" + *release : "";
    if (boot.empty()) {
      return Status::NotFound(host.Resolve(kProcConfig) +
                              " is absent and the kernel release is unknown (no " +
                              host.Resolve("/proc/sys/kernel/osrelease") + ")");
    }
    auto file = host.ReadFile(boot);
    if (!file.ok()) {
      if (file.status().code() == StatusCode::kNotFound) {
        return Status::NotFound("neither " + host.Resolve(kProcConfig) + " nor " +
                                host.Resolve(boot) + " exists");
      }
      return file.status();
    }
    path = boot;
    text = std::move(*file);
  }
  auto cfg = ParseKernelConfig(text);
  if (!cfg.ok()) return Status::Invalid(host.Resolve(path) + ": " + cfg.status().message());
  cfg->path = path;
  return cfg;
}

}  // namespace ys::host
