#include "gpu/xid_events.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>

#include "core/text.h"

namespace ys::gpu {
namespace {

bool IsHex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// The first PCI address in a message ("0000:b3:00.0", "PCI:0000:01:00", "0000:01:00"), as
// "dddd:bb:dd.f" in lower case; "" when there is none.
std::string FindPci(std::string_view s) {
  for (size_t i = 0; i + 10 <= s.size(); ++i) {
    if (i > 0 && IsHex(s[i - 1])) continue;
    std::string_view c = s.substr(i, 10);  // dddd:bb:dd
    bool shape = c[4] == ':' && c[7] == ':';
    for (size_t k : {0u, 1u, 2u, 3u, 5u, 6u, 8u, 9u}) shape = shape && IsHex(c[k]);
    if (!shape) continue;
    std::string out = ToLower(c);
    size_t after = i + 10;
    if (after + 1 < s.size() && s[after] == '.' && s[after + 1] >= '0' && s[after + 1] <= '7') {
      out += s.substr(after, 2);
    } else if (after < s.size() && IsHex(s[after])) {
      continue;  // part of something longer
    } else {
      out += ".0";
    }
    return out;
  }
  // "18:00.0": a bus address without its domain (domain 0).
  for (size_t i = 0; i + 7 <= s.size(); ++i) {
    if (i > 0 && (IsHex(s[i - 1]) || s[i - 1] == ':')) continue;
    std::string_view c = s.substr(i, 7);  // bb:dd.f
    if (IsHex(c[0]) && IsHex(c[1]) && c[2] == ':' && IsHex(c[3]) && IsHex(c[4]) && c[5] == '.' &&
        c[6] >= '0' && c[6] <= '7' && (i + 7 == s.size() || !IsHex(s[i + 7])))
      return "0000:" + ToLower(c);
  }
  return "";
}

std::string CanonicalXidPci(const std::string& printed) {
  std::string found = FindPci(printed);
  return found.empty() ? printed : found;
}

// The kind of a driver message that reports a GPU in trouble without an XID.
std::optional<GpuLogKind> NvrmKind(std::string_view text) {
  if (text.find("NVRM") == std::string_view::npos) return std::nullopt;
  if (text.find("fallen off the bus") != std::string_view::npos) return GpuLogKind::kFellOffBus;
  if (text.find("GPU is lost") != std::string_view::npos ||
      text.find("GPU lost") != std::string_view::npos)
    return GpuLogKind::kGpuLost;
  if (text.find("RmInitAdapter failed") != std::string_view::npos ||
      text.find("rm_init_adapter failed") != std::string_view::npos)
    return GpuLogKind::kInitFailed;
  if (text.find("probe routine failed") != std::string_view::npos) return GpuLogKind::kProbeFailed;
  return std::nullopt;
}

double TimeOf(const host::KernelLogLine& l) { return l.wall >= 0 ? l.wall : l.seconds; }

class Grouper {
 public:
  Grouper(const GpuLogEventOptions& o, GpuLogEvents& out) : o_(o), out_(out) {}

  void Line(const std::vector<host::KernelLogLine>& log, size_t i) {
    const host::KernelLogLine& l = log[i];
    if (auto x = ParseXidLine(l.text)) {
      ++out_.xid_lines;
      AddXid(l, *x);
    } else if (auto kind = NvrmKind(l.text)) {
      std::string pci = FindPci(l.text);
      // A message split over several records names the GPU in an earlier one.
      for (size_t back = 1; pci.empty() && back <= 3 && back <= i; ++back) {
        if (log[i - back].text.find("NVRM") != std::string::npos) pci = FindPci(log[i - back].text);
      }
      AddDriverMessage(l, *kind, pci);
    }
  }

 private:
  GpuLogEvent Start(const host::KernelLogLine& l, GpuLogKind kind, std::string pci) {
    GpuLogEvent e;
    e.kind = kind;
    e.pci = std::move(pci);
    e.first_t = e.last_t = TimeOf(l);
    e.first_when = e.last_when = LineWhen(l);
    e.first_line = e.last_line = l.text;
    e.boot = l.boot;
    return e;
  }

  static void Extend(GpuLogEvent& e, const host::KernelLogLine& l) {
    ++e.lines;
    e.last_t = TimeOf(l);
    e.last_when = LineWhen(l);
    e.last_line = l.text;
  }

  // Whether a line at time t is within `window` after an event that ended at last_t.
  static bool Within(double last_t, double t, double window) {
    if (last_t < 0 || t < 0) return last_t < 0 && t < 0;
    return t - last_t <= window && t >= last_t - 1e-9;
  }

  void AddXid(const host::KernelLogLine& l, const XidEvent& x) {
    std::string pci = CanonicalXidPci(x.pci);
    double t = TimeOf(l);
    auto latest = latest_.find(pci);
    if (latest != latest_.end()) {
      GpuLogEvent& prev = out_.events[latest->second];
      if (prev.kind == GpuLogKind::kXid && prev.xid.xid == x.xid &&
          prev.xid.caused_by == x.caused_by && Within(prev.last_t, t, o_.burst_window_s)) {
        Extend(prev, l);
        if (x.stated == XidStated::kFatal) prev.xid.stated = XidStated::kFatal;
        if (x.recovery != RecoveryAction::kUnknown) prev.xid.recovery = x.recovery;
        return;
      }
    }
    GpuLogEvent e = Start(l, GpuLogKind::kXid, pci);
    e.xid = x;
    if (x.caused_by != 0) {
      for (int k = static_cast<int>(out_.events.size()) - 1; k >= 0; --k) {
        const GpuLogEvent& c = out_.events[k];
        if (c.pci == pci && c.kind == GpuLogKind::kXid && c.xid.xid == x.caused_by) {
          e.follows = c.follows >= 0 ? c.follows : k;
          break;
        }
      }
    } else if ((x.xid == 43 || x.xid == 45) && latest != latest_.end()) {
      const GpuLogEvent& prev = out_.events[latest->second];
      if (Within(prev.last_t, t, o_.follow_window_s)) {
        e.follows = prev.follows >= 0 ? prev.follows : static_cast<int>(latest->second);
      }
    }
    latest_[pci] = out_.events.size();
    out_.events.push_back(std::move(e));
  }

  void AddDriverMessage(const host::KernelLogLine& l, GpuLogKind kind, const std::string& pci) {
    // The same kind of message about the same GPU (or about no named GPU) is one event.
    for (auto& e : out_.events) {
      if (e.kind == kind && e.pci == pci) {
        Extend(e, l);
        return;
      }
    }
    out_.events.push_back(Start(l, kind, pci));
  }

  const GpuLogEventOptions& o_;
  GpuLogEvents& out_;
  std::map<std::string, size_t> latest_;  // GPU -> its latest XID event
};

// Drops driver messages that repeat what an event already says: a "fallen off the bus" message
// about a GPU with an XID 79, a failed probe after a GPU's fall or failed start.
void DropRepeats(GpuLogEvents& out) {
  std::map<std::string, bool> fell, troubled;
  for (const auto& e : out.events) {
    if (e.kind == GpuLogKind::kXid && e.xid.xid == 79) fell[e.pci] = troubled[e.pci] = true;
    if (e.kind != GpuLogKind::kXid && e.kind != GpuLogKind::kProbeFailed) troubled[e.pci] = true;
  }
  const bool any_trouble = !troubled.empty();
  std::vector<GpuLogEvent> kept;
  std::vector<int> new_index(out.events.size(), -1);
  for (size_t i = 0; i < out.events.size(); ++i) {
    const GpuLogEvent& e = out.events[i];
    bool repeat = (e.kind == GpuLogKind::kFellOffBus && fell.count(e.pci) > 0) ||
                  (e.kind == GpuLogKind::kProbeFailed &&
                   (e.pci.empty() ? any_trouble : troubled.count(e.pci) > 0));
    if (repeat) continue;
    new_index[i] = static_cast<int>(kept.size());
    kept.push_back(e);
  }
  for (auto& e : kept) {
    if (e.follows >= 0) e.follows = new_index[e.follows];
  }
  out.events = std::move(kept);
}

}  // namespace

const char* GpuLogKindMeaning(GpuLogKind k) {
  switch (k) {
    case GpuLogKind::kXid:
      return "XID report";
    case GpuLogKind::kFellOffBus:
      return "GPU has fallen off the bus";
    case GpuLogKind::kGpuLost:
      return "GPU lost: the driver can no longer reach it";
    case GpuLogKind::kInitFailed:
      return "the driver could not initialise the GPU (RmInitAdapter failed)";
    case GpuLogKind::kProbeFailed:
      return "the driver's probe failed for a GPU";
  }
  return "driver message";
}

std::string LineWhen(const host::KernelLogLine& line) {
  if (!line.stamp.empty()) return line.stamp;
  char buf[96];
  if (line.wall >= 0 && std::isfinite(line.wall)) {
    // Civil date of the wall time (journal JSON carries only the number).
    int64_t secs = static_cast<int64_t>(line.wall);
    int64_t z = secs / 86400 + 719468;
    int64_t era = z / 146097, doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
    int64_t d = doy - (153 * mp + 2) / 5 + 1, m = mp < 10 ? mp + 3 : mp - 9;
    int64_t y = yoe + era * 400 + (m <= 2 ? 1 : 0);
    int64_t s = secs % 86400;
    std::snprintf(buf, sizeof buf, "%04lld-%02lld-%02lldT%02lld:%02lld:%02lld", (long long)y,
                  (long long)m, (long long)d, (long long)(s / 3600), (long long)(s / 60 % 60),
                  (long long)(s % 60));
    return buf;
  }
  if (line.seconds >= 0 && std::isfinite(line.seconds)) {
    std::snprintf(buf, sizeof buf, "%.1f s after boot", line.seconds);
    return buf;
  }
  return "time unknown";
}

GpuLogEvents GroupGpuLogEvents(const std::vector<host::KernelLogLine>& log,
                               const GpuLogEventOptions& options) {
  GpuLogEvents out;
  out.boots = host::BootCount(log);
  out.all_boots = options.all_boots;
  int last_boot = log.empty() ? 0 : log.back().boot;
  std::vector<host::KernelLogLine> lines;
  for (const auto& l : log) {
    if (options.all_boots || l.boot == last_boot) lines.push_back(l);
  }
  out.lines = lines.size();
  Grouper g(options, out);
  for (size_t i = 0; i < lines.size(); ++i) g.Line(lines, i);
  DropRepeats(out);
  return out;
}

GpuLogEvents ParseGpuLogEvents(std::string_view kernel_log_text,
                               const GpuLogEventOptions& options) {
  return GroupGpuLogEvents(host::ParseKernelLog(kernel_log_text), options);
}

}  // namespace ys::gpu
