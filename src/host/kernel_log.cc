#include "host/kernel_log.h"

#include "core/document_file.h"
#include "core/text.h"

namespace ys::host {

std::vector<KernelLogLine> ParseKernelLog(std::string_view content) {
  std::vector<KernelLogLine> out;
  for (std::string_view line : SplitLines(content)) {
    if (line.empty() || line.front() == ' ') continue;  // kmsg dictionary continuation
    KernelLogLine l;
    size_t semi = line.find(';');
    size_t first_comma = line.find(',');
    if (semi != std::string_view::npos && first_comma != std::string_view::npos &&
        first_comma < semi) {
      auto head = Split(line.substr(0, semi), ',');
      auto prio = ParseInt(head[0]);
      if (head.size() >= 3 && prio && ParseUint(head[1]) && ParseUint(head[2])) {
        l.priority = static_cast<int>(*prio & 7);
        l.seconds = static_cast<double>(*ParseUint(head[2])) / 1e6;
        l.text = std::string(line.substr(semi + 1));
        out.push_back(std::move(l));
        continue;
      }
    }
    if (line.front() == '[') {
      size_t close = line.find(']');
      if (close != std::string_view::npos) {
        if (auto s = ParseDouble(line.substr(1, close - 1))) {
          l.seconds = *s;
          l.text = std::string(Trim(line.substr(close + 1)));
          out.push_back(std::move(l));
          continue;
        }
      }
    }
    l.text = std::string(line);
    out.push_back(std::move(l));
  }
  return out;
}

Result<std::vector<KernelLogLine>> ReadKernelLog(const Host& host,
                                                 const std::string& override_path) {
  if (!override_path.empty()) {
    auto text = ReadDocumentFile(override_path, DocumentKind::kKernelLog);
    if (!text.ok()) return text.status();
    return ParseKernelLog(*text);
  }
  // The live /dev/kmsg is a character device: read what it holds now, without waiting for more.
  auto content = host.ReadDevice(kKernelLogPath, Host::kMaxFileBytes);
  if (!content.ok()) return content.status();
  return ParseKernelLog(*content);
}

}  // namespace ys::host
