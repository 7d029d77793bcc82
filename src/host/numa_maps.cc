#include "host/numa_maps.h"

#include "core/text.h"

namespace ys::host {
namespace {

// Bounds that no real kernel prints: a node id beyond MAX_NUMNODES (1024 on the largest
// configurations, allow headroom), 2^40 pages (4 PiB of 4 KiB pages) in one VMA, pages larger
// than 16 GiB.
constexpr int64_t kMaxNodeId = 1 << 16;
constexpr uint64_t kMaxPages = uint64_t{1} << 40;
constexpr uint64_t kMaxPageKb = uint64_t{16} << 20;

// Keys whose values are page counts (numa_maps(5)).
bool IsCountKey(std::string_view key) {
  return key == "anon" || key == "dirty" || key == "mapped" || key == "mapmax" ||
         key == "swapcache" || key == "active" || key == "writeback" || key == "unevictable";
}

bool IsKnownToken(std::string_view tok) {
  if (tok == "heap" || tok == "stack" || tok == "huge") return true;
  size_t eq = tok.find('=');
  if (eq == std::string_view::npos) return false;
  std::string_view key = tok.substr(0, eq);
  return key == "file" || key == "kernelpagesize_kB" || IsCountKey(key) ||
         (key.size() > 1 && key[0] == 'N' && ParseUint(key.substr(1)).has_value());
}

std::string ShortenLine(std::string_view s) {
  return std::string(s.substr(0, 120)) + (s.size() > 120 ? "..." : "");
}

Status LineError(size_t line_no, std::string_view line, const std::string& what) {
  return Status::Invalid("line " + std::to_string(line_no) + ": " + what + " in \"" +
                         ShortenLine(line) + "\"");
}

}  // namespace

uint64_t NumaMapsEntry::TotalPages() const {
  uint64_t n = 0;
  for (const auto& [node, pages] : node_pages) n += pages;
  return n;
}

bool NumaMapsEntry::IsProcessData() const {
  if (file.empty() || huge) return true;
  return StartsWith(file, "/dev/shm/") || StartsWith(file, "/SYSV") ||
         StartsWith(file, "/memfd:") || StartsWith(file, "/anon_hugepage") ||
         StartsWith(file, "/dev/hugepages");
}

bool NumaMapsEntry::IsInterleaved() const {
  return StartsWith(policy, "interleave") || StartsWith(policy, "weighted interleave");
}

Result<std::vector<NumaMapsEntry>> ParseNumaMaps(std::string_view text) {
  std::vector<NumaMapsEntry> out;
  size_t line_no = 0;
  for (std::string_view line : SplitLines(text)) {
    ++line_no;
    if (Trim(line).empty()) continue;
    auto toks = SplitWhitespace(line);
    NumaMapsEntry e;
    auto addr = ParseHex(toks[0]);
    if (!addr || StartsWith(toks[0], "0x") || StartsWith(toks[0], "0X")) {
      return LineError(line_no, line, "expected a hex start address");
    }
    e.start = *addr;
    if (toks.size() < 2) {
      return LineError(line_no, line, "expected a memory policy after the address");
    }
    if (IsKnownToken(toks[1])) {
      return LineError(line_no, line, "expected a memory policy after the address");
    }
    e.policy = std::string(toks[1]);
    size_t i = 2;
    // Policies with a space: "prefer (many):0-1", "weighted interleave:0-3".
    while (i < toks.size() && !IsKnownToken(toks[i]) &&
           (toks[i].front() == '(' || e.policy == "weighted")) {
      e.policy += " " + std::string(toks[i]);
      ++i;
    }
    for (; i < toks.size(); ++i) {
      std::string_view tok = toks[i];
      if (tok == "heap") {
        e.heap = true;
        continue;
      }
      if (tok == "stack") {
        e.stack = true;
        continue;
      }
      if (tok == "huge") {
        e.huge = true;
        continue;
      }
      size_t eq = tok.find('=');
      if (eq == std::string_view::npos) continue;  // a bare token of a newer kernel
      std::string_view key = tok.substr(0, eq), value = tok.substr(eq + 1);
      if (key == "file") {
        if (value.empty()) return LineError(line_no, line, "empty file=");
        e.file = std::string(value);
        continue;
      }
      bool node_key = key.size() > 1 && key[0] == 'N' && ParseUint(key.substr(1)).has_value();
      if (!node_key && key != "kernelpagesize_kB" && !IsCountKey(key)) continue;  // unknown key
      auto v = ParseUint(value);
      if (!v) {
        return LineError(line_no, line, "expected a whole number for " + std::string(key) + "=");
      }
      if (node_key) {
        auto node = ParseInt(key.substr(1));
        if (!node || *node > kMaxNodeId) return LineError(line_no, line, "implausible node id");
        if (*v > kMaxPages) return LineError(line_no, line, "implausible page count");
        e.node_pages[static_cast<int>(*node)] += *v;
      } else if (key == "kernelpagesize_kB") {
        if (*v == 0 || *v > kMaxPageKb) return LineError(line_no, line, "implausible page size");
        e.page_kb = *v;
      } else if (key == "anon") {
        if (*v > kMaxPages) return LineError(line_no, line, "implausible page count");
        e.anon = *v;
      }
    }
    out.push_back(std::move(e));
  }
  return out;
}

double NumaFootprint::Sum(const std::map<int, double>& m) {
  double s = 0;
  for (const auto& [node, kb] : m) s += kb;
  return s;
}

NumaFootprint SummariseNumaMaps(const std::vector<NumaMapsEntry>& entries,
                                uint64_t default_page_kb) {
  NumaFootprint fp;
  for (const auto& e : entries) {
    ++fp.vmas;
    if (e.policy != "default") ++fp.vmas_with_policy;
    double page_kb = static_cast<double>(e.page_kb.value_or(default_page_kb));
    std::map<int, double>& into = !e.IsProcessData()  ? fp.file_kb
                                  : e.IsInterleaved() ? fp.interleaved_kb
                                                      : fp.data_kb;
    for (const auto& [node, pages] : e.node_pages) {
      into[node] += static_cast<double>(pages) * page_kb;
    }
  }
  return fp;
}

Result<std::vector<NumaMapsEntry>> ReadNumaMaps(const Host& host, const std::string& path) {
  auto text = host.ReadFile(path);
  if (!text.ok()) return text.status();
  auto parsed = ParseNumaMaps(*text);
  if (!parsed.ok()) return Status::Invalid(host.Resolve(path) + ": " + parsed.status().message());
  return parsed;
}

}  // namespace ys::host
