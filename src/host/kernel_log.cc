#include "host/kernel_log.h"

#include <algorithm>
#include <iterator>

#include "core/document_file.h"
#include "core/format_registry.h"
#include "core/text.h"
#include "host/kernel_log_formats.h"

namespace ys::host {
namespace {

// " SUBSYSTEM=pci": a kmsg dictionary line, not a continuation of the message.
bool IsKmsgDictionary(std::string_view line) {
  std::string_view t = Trim(line);
  size_t eq = t.find('=');
  if (eq == std::string_view::npos || eq == 0) return false;
  for (size_t i = 0; i < eq; ++i) {
    char c = t[i];
    if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

// Tracks the boot boundaries while lines are read in order.
class BootTracker {
 public:
  void Marker() { pending_ = true; }

  int BootOf(const klog::LinePrefix& p) {
    bool boundary = pending_;
    if (!p.boot_id.empty()) {
      if (!boot_id_.empty() && p.boot_id != boot_id_) boundary = true;
      boot_id_ = p.boot_id;
    }
    // The time since boot going back by more than a second: the counter restarted.
    if (p.seconds >= 0 && last_seconds_ >= 0 && p.seconds + 1.0 < last_seconds_) boundary = true;
    if (StartsWith(p.text, "Linux version ")) boundary = true;
    if (boundary && lines_in_boot_ > 0) {
      ++boot_;
      lines_in_boot_ = 0;
      last_seconds_ = -1;
    }
    pending_ = false;
    ++lines_in_boot_;
    if (p.seconds >= 0) last_seconds_ = p.seconds;
    return boot_;
  }

 private:
  bool pending_ = false;
  int boot_ = 0;
  int lines_in_boot_ = 0;
  double last_seconds_ = -1;
  std::string boot_id_;
};

}  // namespace

std::vector<KernelLogLine> ParseKernelLog(std::string_view content) {
  std::vector<KernelLogLine> out;
  BootTracker boots;
  for (std::string_view line : SplitLines(content)) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (Trim(line).empty()) continue;
    if (line.front() == ' ' || line.front() == '\t') {
      // An indented line continues the message above it (dmesg's multi-line messages), unless it
      // is a kmsg dictionary entry.
      if (IsKmsgDictionary(line) || out.empty()) continue;
      std::string_view more = Trim(line);
      if (StartsWith(more, "NVRM: ") && StartsWith(out.back().text, "NVRM: "))
        more.remove_prefix(6);
      out.back().text += " ";
      out.back().text += more;
      continue;
    }
    klog::Marker marker = klog::JournalMarker(line);
    if (marker == klog::Marker::kBoot) boots.Marker();
    if (marker != klog::Marker::kNone) continue;
    klog::LinePrefix p = klog::ParseLinePrefix(line);
    KernelLogLine l;
    l.priority = p.priority;
    l.seconds = p.seconds;
    l.wall = p.wall;
    l.stamp = std::move(p.stamp);
    l.boot = boots.BootOf(p);
    l.text = std::move(p.text);
    out.push_back(std::move(l));
  }
  return out;
}

int BootCount(const std::vector<KernelLogLine>& log) {
  return log.empty() ? 0 : log.back().boot + 1;
}

std::vector<KernelLogLine> LastBoot(const std::vector<KernelLogLine>& log) {
  if (log.empty()) return {};
  int last = log.back().boot;
  std::vector<KernelLogLine> out;
  std::copy_if(log.begin(), log.end(), std::back_inserter(out),
               [last](const KernelLogLine& l) { return l.boot == last; });
  return out;
}

Result<std::vector<KernelLogLine>> ReadKernelLog(const Host& host,
                                                 const std::string& override_path) {
  // A saved log (--kernel-log) through the format room: text that no kernel-log form claims is
  // refused with what it lacked, never read as a log without events. An empty file is a log with
  // no lines yet (a burn-in watching a file that grows).
  if (!override_path.empty()) {
    auto head = ReadFormatHead(override_path, "a kernel log");
    if (!head.ok()) return head.status();
    if (head->empty()) return std::vector<KernelLogLine>{};
    return ReadFormatAs<std::vector<KernelLogLine>>(override_path, FormatProduct::kKernelLog, {},
                                                    Unclaimed::kRefuse);
  }
  // The live /dev/kmsg is a character device: read what it holds now, without waiting for more.
  auto content = host.ReadDevice(kKernelLogPath, Host::kMaxFileBytes);
  if (!content.ok()) return content.status();
  return ParseKernelLog(*content);
}

}  // namespace ys::host
