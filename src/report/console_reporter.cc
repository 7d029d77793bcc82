#include "report/console_reporter.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <type_traits>
#include <utility>

#include "core/repeated_findings.h"
#include "core/text_table.h"
#include "core/verdict.h"

namespace ys::report {
namespace {

const char* Color(Outcome o) {
  switch (o) {
    case Outcome::kPass:
      return "\033[32m";
    case Outcome::kWarn:
      return "\033[33m";
    case Outcome::kFail:
      return "\033[31m";
    case Outcome::kError:
      return "\033[35m";
    case Outcome::kSkip:
      return "\033[2m";
  }
  return "";
}

std::string Label(Outcome o, bool color) {
  std::string name = OutcomeName(o);
  std::transform(name.begin(), name.end(), name.begin(), ::toupper);
  std::string padded = fmt::format("{:<5}", name);
  return color ? std::string(Color(o)) + padded + "\033[0m" : padded;
}

std::string OneLine(const std::string& s) {
  std::string out = s;
  std::replace(out.begin(), out.end(), '\n', ' ');
  return out;
}

// Whether every member of a group has the evidence and fix of its first (what the console shows).
bool SameDetails(const std::vector<Finding>& findings, const RepeatGroup& g, bool with_evidence) {
  const Finding& first = findings[g.members.front()];
  return std::all_of(g.members.begin(), g.members.end(), [&](size_t i) {
    return findings[i].fix == first.fix &&
           (!with_evidence || findings[i].evidence == first.evidence);
  });
}

// A unit's findings, those that say the same about several entities once
// (core/repeated_findings.h).
void WriteFindings(const std::vector<Finding>& findings, const ConsoleOptions& opt,
                   std::ostream& out) {
  std::vector<RepeatKey> keys;
  for (const Finding& f : findings) {
    keys.push_back({f.code, f.entity,
                    fmt::format("{}\n{}\n{}", SeverityName(f.severity), OneLine(f.message),
                                f.expected_recovery)});
  }
  for (const RepeatGroup& g : GroupRepeats(keys)) {
    const Finding& f = findings[g.members.front()];
    Outcome fo = f.severity == Severity::kFail ? Outcome::kFail : Outcome::kWarn;
    std::string code = opt.color ? std::string(Color(fo)) + f.code + "\033[0m" : f.code;
    out << fmt::format("       {} {}: {}\n", code, g.entities, OneLine(f.message));
    if (opt.show_evidence) {
      for (const auto& [k, v] : f.evidence) out << fmt::format("         {} = {}\n", k, OneLine(v));
    }
    if (!f.fix.empty()) out << fmt::format("         fix: {}\n", OneLine(f.fix));
    if (!f.expected_recovery.empty()) {
      out << fmt::format("         expected recovery: {}\n", f.expected_recovery);
    }
    if (!SameDetails(findings, g, opt.show_evidence)) {
      out << fmt::format("         (evidence and fix as for {}; --json lists each finding)\n",
                         f.entity);
    }
  }
}

void WriteUnit(const CheckResult& c, const ConsoleOptions& opt, size_t id_width,
               std::ostream& out) {
  std::string what = c.summary;
  if (what.empty() && !c.findings.empty()) {
    what = fmt::format("{} finding{}", c.findings.size(), c.findings.size() == 1 ? "" : "s");
  }
  out << fmt::format("{}  {:<{}}  {}\n", Label(c.outcome, opt.color), c.unit_id, id_width,
                     OneLine(what));
  WriteFindings(c.findings, opt, out);
}

// Skipped units of one family ("gpu" of gpu.clocks) that share a reason: one line for them all,
// "SKIP   14 gpu.* checks skipped: NVML not found: ...", where the first of them stood.
struct SkipGroups {
  std::map<const CheckResult*, size_t> first;  // the group's first unit -> units in the group
  std::set<const CheckResult*> rest;
};

std::string Family(const std::string& id) { return id.substr(0, id.find('.')); }

template <typename Unit>
SkipGroups GroupSkips(const std::vector<Unit>& units) {
  std::map<std::pair<std::string, std::string>, std::vector<const CheckResult*>> by_key;
  for (const Unit& u : units) {
    if (u.outcome == Outcome::kSkip) by_key[{Family(u.unit_id), u.summary}].push_back(&u);
  }
  SkipGroups g;
  for (const auto& entry : by_key) {
    const std::vector<const CheckResult*>& members = entry.second;
    if (members.size() < 2) continue;
    g.first[members.front()] = members.size();
    g.rest.insert(members.begin() + 1, members.end());
  }
  return g;
}

// Each unit's line (and a benchmark's tables), skips of one family and reason as one line.
template <typename Unit>
void WriteUnits(const std::vector<Unit>& units, const char* noun, const ConsoleOptions& opt,
                size_t id_width, std::ostream& out) {
  SkipGroups groups = GroupSkips(units);
  for (const Unit& u : units) {
    if (opt.failures_only && (u.outcome == Outcome::kPass || u.outcome == Outcome::kSkip)) continue;
    if (groups.rest.count(&u) != 0) continue;
    if (auto g = groups.first.find(&u); g != groups.first.end()) {
      out << fmt::format("{}  {} {}.* {} skipped: {}\n", Label(Outcome::kSkip, opt.color),
                         g->second, Family(u.unit_id), noun, OneLine(u.summary));
      continue;
    }
    WriteUnit(u, opt, id_width, out);
    if constexpr (std::is_same_v<Unit, BenchmarkResult>) {
      for (const auto& t : u.tables) {
        out << "\n";
        WriteTable(t, out);
        out << "\n";
      }
    }
  }
}

// 0,1,2,3,5 -> "0-3,5"
std::string CompactRanks(const std::vector<int>& ranks) {
  std::string s;
  for (size_t i = 0; i < ranks.size();) {
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    s += (s.empty() ? "" : ",") + std::to_string(ranks[i]) +
         (j > i ? "-" + std::to_string(ranks[j]) : "");
    i = j + 1;
  }
  return s;
}

}  // namespace

void WriteTable(const ResultTable& t, std::ostream& out) {
  if (!t.title.empty()) out << "# " << t.title << "\n";
  // nccl-tests' layout: right-aligned columns as wide as their widest cell, a "#" before the
  // header; a short row is padded with blank cells.
  std::vector<TextColumn> columns;
  for (const std::string& c : t.columns) columns.push_back({c, Align::kRight, 0, " "});
  TextTable table(std::move(columns), {.indent = "  ", .header_indent = "# ", .fit = true});
  for (std::vector<std::string> row : t.rows) {
    row.resize(t.columns.size());
    table.AddRow(std::move(row));
  }
  out << table.Render();
  for (const auto& f : t.footer) out << f << "\n";
}

std::string SummaryLine(const RunDocument& doc) {
  auto counts = doc.Counts();
  auto n = [&](Outcome o) { return counts.count(o) ? counts.at(o) : 0; };
  RunVerdict v = JudgeRun(doc);
  return fmt::format("{}: {} pass, {} warn, {} fail, {} skip, {} error in {:.2f} s: {}{}: {}",
                     doc.command, n(Outcome::kPass), n(Outcome::kWarn), n(Outcome::kFail),
                     n(Outcome::kSkip), n(Outcome::kError), doc.duration_ms / 1000.0,
                     VerdictStateLabel(v.state), doc.incomplete ? " (incomplete)" : "", v.reason);
}

void WriteConsole(const RunDocument& doc, const ConsoleOptions& opt, std::ostream& out) {
  // A document read from another tool's output (ingest) knows the host's name only.
  std::string facts = doc.host.arch.empty() && doc.host.kernel.empty() && doc.host.logical_cpus == 0
                          ? ""
                          : fmt::format(" ({}, {}, {} CPUs)", doc.host.arch, doc.host.kernel,
                                        doc.host.logical_cpus);
  out << fmt::format(
      "yardstick {} on {}{}{}\n", doc.command, doc.host.hostname.empty() ? "?" : doc.host.hostname,
      facts, doc.host.root == "/" || doc.host.root.empty() ? "" : ", root " + doc.host.root);
  if (!doc.host.gpu_source.empty()) {
    out << fmt::format("GPUs: {}{}\n", OneLine(doc.host.gpu_source),
                       doc.host.gpu_driver.empty() ? "" : ", driver " + doc.host.gpu_driver);
  }
  size_t id_width = 2;
  for (const auto& c : doc.checks) id_width = std::max(id_width, c.unit_id.size());
  for (const CheckResult* u : doc.AllUnits()) id_width = std::max(id_width, u->unit_id.size());
  for (const auto& n : doc.nodes) {
    out << fmt::format("node {} (rank{} {})\n", n.hostname, n.ranks.size() == 1 ? "" : "s",
                       CompactRanks(n.ranks));
    WriteUnits(n.checks, "checks", opt, id_width, out);
    WriteUnits(n.benchmarks, "benchmarks", opt, id_width, out);
  }
  if (!doc.nodes.empty() && !doc.benchmarks.empty()) out << "job-wide\n";
  WriteUnits(doc.checks, "checks", opt, id_width, out);
  WriteUnits(doc.benchmarks, "benchmarks", opt, id_width, out);
  for (const auto& r : doc.ranks) {
    if (r.state != "ok")
      out << fmt::format("rank {} on {}: {}{}\n", r.rank, r.hostname, r.state,
                         r.detail.empty() ? "" : " (" + r.detail + ")");
  }
  if (doc.incomplete && !doc.incomplete_reason.empty())
    out << "incomplete: " << doc.incomplete_reason << "\n";
  for (const auto& w : doc.warnings) out << "note: " << w << "\n";
  out << SummaryLine(doc) << "\n";
}

}  // namespace ys::report
