#include "host/gpudirect.h"

#include <cctype>

#include "core/text.h"

namespace ys::host {

Result<NvidiaDriverVersion> ParseNvidiaDriverVersion(std::string_view text) {
  auto lines = SplitLines(text);
  std::string_view first = lines.empty() ? std::string_view() : Trim(lines.front());
  constexpr std::string_view kPrefix = "NVRM version:";
  auto bad = [&] {
    return Status::Invalid(
        "expected \"NVRM version: NVIDIA UNIX ... Kernel Module <version> ...\", got \"" +
        std::string(first.substr(0, 80)) + "\"");
  };
  if (!StartsWith(first, kPrefix)) return bad();
  NvidiaDriverVersion v;
  v.open_module = first.find("Open Kernel Module") != std::string_view::npos;
  // The version is the first token of digits and dots with at least one dot ("580.95.05").
  for (std::string_view tok : SplitWhitespace(first.substr(kPrefix.size()))) {
    bool digits_dots = !tok.empty() && std::isdigit(static_cast<unsigned char>(tok.front()));
    int dots = 0;
    for (char c : tok) {
      if (c == '.') {
        ++dots;
      } else if (!std::isdigit(static_cast<unsigned char>(c))) {
        digits_dots = false;
      }
    }
    if (digits_dots && dots >= 1 && tok.back() != '.') {
      v.version = std::string(tok);
      break;
    }
  }
  if (v.version.empty()) return bad();
  return v;
}

Result<KernelRelease> ParseKernelRelease(std::string_view text) {
  std::string_view t = Trim(text);
  auto parts = Split(t, '.');
  if (parts.size() >= 2) {
    std::string_view minor = parts[1];
    size_t end = 0;
    while (end < minor.size() && std::isdigit(static_cast<unsigned char>(minor[end]))) ++end;
    auto ma = ParseInt(parts[0]);
    auto mi = ParseInt(minor.substr(0, end));
    if (ma && mi && *ma >= 0 && *ma < 1000 && *mi >= 0 && *mi < 1000) {
      return KernelRelease{static_cast<int>(*ma), static_cast<int>(*mi)};
    }
  }
  return Status::Invalid("expected a kernel release like \"6.8.0-60-generic\", got \"" +
                         std::string(t.substr(0, 60)) + "\"");
}

Result<GpuDirectState> ReadGpuDirectState(const Host& host) {
  GpuDirectState s;
  for (const char* p :
       {"/sys/module/nvidia_peermem", "/sys/kernel/mm/memory_peers/nv_mem/version",
        "/sys/kernel/mm/memory_peers/nv_mem_nc/version", "/sys/module/nv_peer_mem"}) {
    if (host.Exists(p)) s.peer_memory.emplace_back(p);
  }
  // An empty version or release file (a copy that could not read it) is unknown, as when absent.
  constexpr const char* kVersion = "/proc/driver/nvidia/version";
  auto version = host.ReadFile(kVersion);
  if (!version.ok() && version.status().code() != StatusCode::kNotFound) return version.status();
  if (version.ok() && !Trim(*version).empty()) {
    auto v = ParseNvidiaDriverVersion(*version);
    if (!v.ok()) return Status::Invalid(host.Resolve(kVersion) + ": " + v.status().message());
    s.driver = *v;
  }
  constexpr const char* kRelease = "/proc/sys/kernel/osrelease";
  auto release = host.ReadLine(kRelease);
  if (!release.ok() && release.status().code() != StatusCode::kNotFound) return release.status();
  if (release.ok() && !release->empty()) {
    auto k = ParseKernelRelease(*release);
    if (!k.ok()) return Status::Invalid(host.Resolve(kRelease) + ": " + k.status().message());
    s.kernel = *k;
    s.kernel_text = *release;
  }
  return s;
}

}  // namespace ys::host
