#include "formats/perf_csv_blocks.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <map>

#include "formats/format_text.h"

namespace ys::formats {
namespace {

// What kind of figure a display name is, which decides its unit handling.
enum class PerfKind { kLatency, kTokens, kRate, kCount, kDuration };

struct PerfNameEntry {
  PerfFigure figure;
  PerfKind kind;
};

// Display names without their unit, lower case: AIPerf's, GenAI-Perf's (CSV and console, old and
// new spellings).
const std::map<std::string, PerfNameEntry, std::less<>>& PerfNames() {
  static const std::map<std::string, PerfNameEntry, std::less<>> kNames = {
      {"time to first token", {PerfFigure::kTtft, PerfKind::kLatency}},
      {"inter token latency", {PerfFigure::kTpot, PerfKind::kLatency}},
      {"inter chunk latency", {PerfFigure::kItl, PerfKind::kLatency}},
      {"request latency", {PerfFigure::kE2el, PerfKind::kLatency}},
      {"output sequence length", {PerfFigure::kOsl, PerfKind::kTokens}},
      {"num output token", {PerfFigure::kOsl, PerfKind::kTokens}},
      {"input sequence length", {PerfFigure::kIsl, PerfKind::kTokens}},
      {"num input token", {PerfFigure::kIsl, PerfKind::kTokens}},
      {"output token throughput per user", {PerfFigure::kTokensPerUser, PerfKind::kRate}},
      {"request throughput", {PerfFigure::kRequestRate, PerfKind::kRate}},
      {"output token throughput", {PerfFigure::kOutputRate, PerfKind::kRate}},
      {"total token throughput", {PerfFigure::kTotalRate, PerfKind::kRate}},
      {"request count", {PerfFigure::kRequestCount, PerfKind::kCount}},
      {"error request count", {PerfFigure::kErrorCount, PerfKind::kCount}},
      {"osl mismatch count", {PerfFigure::kOslMismatch, PerfKind::kCount}},
      {"benchmark duration", {PerfFigure::kDuration, PerfKind::kDuration}},
  };
  return kNames;
}

// Factor to milliseconds (latencies) or seconds (the duration); nullopt for an unknown unit.
std::optional<double> PerfTimeScale(std::string_view unit, PerfKind kind) {
  double to_ms = 0;
  if (unit == "ms") to_ms = 1;
  if (unit == "us") to_ms = 1e-3;
  if (unit == "ns") to_ms = 1e-6;
  if (unit == "s" || unit == "sec") to_ms = 1000;
  if (to_ms == 0) return std::nullopt;
  return kind == PerfKind::kLatency ? to_ms : to_ms / 1000;
}

// The statistic or value a scalar figure takes: the value block's, else the console's avg.
std::optional<double> PerfScalar(const validate::ServingStats& stats) {
  if (auto it = stats.find("value"); it != stats.end()) return it->second;
  if (auto it = stats.find("mean"); it != stats.end()) return it->second;
  return std::nullopt;
}

void PerfNote(validate::ServingPoint& p, std::string note) {
  for (const std::string& n : p.notes) {
    if (n == note) return;
  }
  p.notes.push_back(std::move(note));
}

validate::ServingStats* PerfLatencyOf(PerfFigure f, validate::ServingPoint& p) {
  switch (f) {
    case PerfFigure::kTtft:
      return &p.ttft_ms;
    case PerfFigure::kTpot:
      return &p.tpot_ms;
    case PerfFigure::kItl:
      return &p.itl_ms;
    case PerfFigure::kE2el:
      return &p.e2el_ms;
    case PerfFigure::kOsl:
      return &p.osl_tokens;
    case PerfFigure::kIsl:
      return &p.isl_tokens;
    default:
      return nullptr;
  }
}

// A distribution (latency or length) into its place; false for a negative latency.
bool TakePerfDistribution(const PerfMetricName& m, const validate::ServingStats& stats,
                          std::string_view tool_label, validate::ServingStats& into,
                          validate::ServingPoint& p) {
  const bool latency = m.figure != PerfFigure::kOsl && m.figure != PerfFigure::kIsl;
  for (const auto& [stat, v] : stats) {
    if (latency && v < 0) return false;
    into[stat == "value" ? "mean" : stat] = v * m.scale;
  }
  if (m.figure == PerfFigure::kTpot) {
    PerfNote(p, fmt::format("TPOT from {}'s Inter Token Latency ((request latency - TTFT) / "
                            "(output tokens - 1))",
                            tool_label));
  } else if (m.figure == PerfFigure::kItl) {
    PerfNote(p, fmt::format("ITL from {}'s Inter Chunk Latency (the gap between streamed chunks)",
                            tool_label));
  }
  if (m.scale != 1)
    PerfNote(p, fmt::format("latencies converted to ms from {}'s unit", tool_label));
  return true;
}

// A count: a whole number >= 0.
std::optional<int64_t> PerfCount(double v) {
  if (!(v >= 0) || v > 9e15 || std::floor(v) != v) return std::nullopt;
  return static_cast<int64_t>(v);
}

// The digits (and a fraction, when `fraction`) at the start of `s`.
std::string_view PerfLeadingNumber(std::string_view s, bool fraction) {
  size_t n = 0;
  while (n < s.size() &&
         (std::isdigit(static_cast<unsigned char>(s[n])) || (fraction && s[n] == '.' && n > 0))) {
    ++n;
  }
  return s.substr(0, n);
}

// The number after the first `marker` in `text` that is followed by one (not by a range "1:4").
std::string_view PerfNumberAfter(std::string_view text, std::string_view marker, bool fraction) {
  for (size_t at = text.find(marker); at != std::string_view::npos;
       at = text.find(marker, at + 1)) {
    std::string_view rest = text.substr(at + marker.size());
    std::string_view n = PerfLeadingNumber(rest, fraction);
    if (!n.empty() && (n.size() == rest.size() || rest[n.size()] != ':')) return n;
  }
  return {};
}

bool PerfIsStatisticsHeader(const PerfCsvRow& h) {
  return h.cells.size() >= 3 && h.cells[0] == "Metric" && h.cells[1] == "avg";
}
bool PerfIsValueHeader(const PerfCsvRow& h) {
  return h.cells.size() == 2 && h.cells[0] == "Metric" && h.cells[1] == "Value";
}

// One row of a statistics or value block into `p`; false when it is not a serving figure.
Result<bool> TakePerfCsvRow(const PerfCsvRow& header, const PerfCsvRow& row, bool value_block,
                            std::string_view tool_label, std::string_view name,
                            validate::ServingPoint& p) {
  if (row.cells.empty()) return false;
  std::optional<PerfMetricName> m = PerfMetricOf(row.cells[0]);
  if (!m) return false;
  validate::ServingStats stats;
  for (size_t i = 1; i < row.cells.size() && i < header.cells.size(); ++i) {
    std::string stat = value_block ? "value" : validate::StatName(header.cells[i]);
    if (stat.empty()) continue;  // "sum" and other columns that are no statistic
    bool bad = false;
    std::optional<double> v = PerfNumber(row.cells[i], &bad);
    if (bad) {
      return Status::Invalid(fmt::format("{}:{}: '{}': \"{}\" in column {} (expected a number)",
                                         name, row.line, row.cells[0], row.cells[i],
                                         header.cells[i]));
    }
    if (v) stats[stat] = *v;
  }
  if (!TakePerfFigure(*m, stats, tool_label, p)) {
    return Status::Invalid(fmt::format(
        "{}:{}: '{}': a value out of range (expected {})", name, row.line, row.cells[0],
        m->figure == PerfFigure::kRequestCount || m->figure == PerfFigure::kErrorCount ||
                m->figure == PerfFigure::kOslMismatch
            ? "a whole number >= 0"
            : "a number >= 0"));
  }
  return !stats.empty();
}

}  // namespace

Result<std::vector<PerfCsvBlock>> SplitPerfCsvBlocks(std::string_view text, std::string_view name) {
  if (StartsWith(text, "\xEF\xBB\xBF")) text.remove_prefix(3);
  std::vector<PerfCsvBlock> blocks;
  bool in_block = false;
  int64_t no = 0;
  for (std::string_view line : SplitLines(text)) {
    ++no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (Trim(line).empty()) {
      in_block = false;
      continue;
    }
    auto cells = SplitCsvLine(line);
    if (!cells) {
      return Status::Invalid(fmt::format("{}:{}: a quoted field is not closed on its line: \"{}\"",
                                         name, no, Clip(line)));
    }
    PerfCsvRow row{.cells = std::move(*cells), .line = no};
    if (!in_block) {
      blocks.push_back(PerfCsvBlock{.header = std::move(row)});
      in_block = true;
    } else {
      blocks.back().rows.push_back(std::move(row));
    }
  }
  return blocks;
}

std::optional<double> PerfNumber(std::string_view cell, bool* bad) {
  *bad = false;
  cell = Trim(cell);
  if (cell.empty() || cell == "N/A") return std::nullopt;
  std::string digits;
  for (char c : cell) {
    if (c != ',') digits += c;
  }
  std::optional<double> v = ParseDouble(digits);
  if (!v || !std::isfinite(*v)) {
    *bad = true;
    return std::nullopt;
  }
  return v;
}

std::optional<PerfMetricName> PerfMetricOf(std::string_view display_name) {
  std::string_view base = Trim(display_name), unit;
  if (EndsWith(base, ")")) {
    if (size_t open = base.rfind(" ("); open != std::string_view::npos) {
      unit = base.substr(open + 2, base.size() - open - 3);
      base = Trim(base.substr(0, open));
    }
  }
  auto it = PerfNames().find(ToLower(base));
  if (it == PerfNames().end()) return std::nullopt;
  PerfMetricName m{.figure = it->second.figure};
  if (it->second.kind == PerfKind::kLatency || it->second.kind == PerfKind::kDuration) {
    std::optional<double> scale = PerfTimeScale(ToLower(unit), it->second.kind);
    if (!scale) return std::nullopt;
    m.scale = *scale;
  }
  return m;
}

bool TakePerfFigure(const PerfMetricName& m, const validate::ServingStats& stats,
                    std::string_view tool_label, validate::ServingPoint& p) {
  if (validate::ServingStats* into = PerfLatencyOf(m.figure, p)) {
    return TakePerfDistribution(m, stats, tool_label, *into, p);
  }
  if (m.figure == PerfFigure::kTokensPerUser) {
    if (auto it = stats.find("mean"); it != stats.end())
      p.output_tokens_per_s_per_user = it->second;
    return true;
  }
  std::optional<double> v = PerfScalar(stats);
  if (!v) return true;
  if (*v < 0) return false;
  switch (m.figure) {
    case PerfFigure::kRequestRate:
      p.request_throughput = *v;
      return true;
    case PerfFigure::kOutputRate:
      p.output_throughput = *v;
      return true;
    case PerfFigure::kTotalRate:
      p.total_token_throughput = *v;
      return true;
    case PerfFigure::kDuration:
      p.duration_s = *v * m.scale;
      return true;
    default:
      break;
  }
  std::optional<int64_t> n = PerfCount(*v);
  if (!n) return false;
  if (m.figure == PerfFigure::kRequestCount) p.completed = n;
  if (m.figure == PerfFigure::kErrorCount) p.failed = n;
  if (m.figure == PerfFigure::kOslMismatch) p.osl_mismatch = n;
  return true;
}

bool TakePerfLoad(std::string_view text, validate::ServingPoint& p) {
  std::string_view n;
  for (std::string_view marker :
       {"-concurrency", "--concurrency-range ", "Request concurrency: "}) {
    if (n.empty()) n = PerfNumberAfter(text, marker, false);
  }
  if (auto c = ParseInt(n); c && *c > 0) {
    p.max_concurrency = *c;
    p.mode = *c == 1 ? validate::ServingMode::kLatency : validate::ServingMode::kServing;
    return true;
  }
  n = {};
  for (std::string_view marker : {"-request_rate", "--request-rate-range "}) {
    if (n.empty()) n = PerfNumberAfter(text, marker, true);
  }
  if (auto r = ParseDouble(n); r && *r > 0) {
    p.request_rate = std::string(n);
    p.mode = validate::ServingMode::kServing;
    return true;
  }
  return false;
}

void FinishPerfPoint(validate::ServingPoint& p) {
  if (p.completed && p.failed) p.num_prompts = *p.completed + *p.failed;
}

Result<std::optional<validate::ServingPoint>> ReadPerfCsvPoint(
    const std::vector<PerfCsvBlock>& blocks, std::string_view tool_label, std::string_view name) {
  validate::ServingPoint p;
  bool known_block = false, figures = false;
  for (const PerfCsvBlock& b : blocks) {
    const bool value_block = PerfIsValueHeader(b.header);
    if (!value_block && !PerfIsStatisticsHeader(b.header)) continue;  // GPU telemetry, ...
    known_block = true;
    for (const PerfCsvRow& row : b.rows) {
      auto took = TakePerfCsvRow(b.header, row, value_block, tool_label, name, p);
      if (!took.ok()) return took.status();
      figures = figures || *took;
    }
  }
  if (!known_block) {
    return Status::Invalid(fmt::format(
        "{}: no {} summary: expected the 'Metric,avg,min,max,...' block or the 'Metric,Value' "
        "block",
        name, tool_label));
  }
  if (!figures) return std::optional<validate::ServingPoint>();
  FinishPerfPoint(p);
  return std::optional<validate::ServingPoint>(std::move(p));
}

Result<PerfCsvRead> ParsePerfCsv(std::string_view text, const std::string& name,
                                 std::string_view format, std::string_view tool,
                                 std::string_view tool_label) {
  PerfCsvRead read;
  auto blocks = SplitPerfCsvBlocks(text, name);
  if (!blocks.ok()) return blocks.status();
  read.blocks = std::move(*blocks);
  auto point = ReadPerfCsvPoint(read.blocks, tool_label, name);
  if (!point.ok()) return point.status();
  read.result.format = std::string(format);
  if (point->has_value()) {
    validate::ServingPoint& p = **point;
    p.tool = std::string(tool);
    TakePerfLoad(name, p);  // the artifact directory: ".../<model>-openai-chat-concurrency8/"
    read.result.points.push_back(std::move(p));
  }
  return read;
}

PerfCsvTool PerfCsvToolOfHeader(std::string_view line) {
  auto cells = SplitCsvLine(Trim(line));
  if (!cells || !PerfIsStatisticsHeader(PerfCsvRow{.cells = *cells})) return PerfCsvTool::kUnknown;
  for (const std::string& c : *cells) {
    if (c == "std") return PerfCsvTool::kAiperf;
  }
  for (const std::string& c : *cells) {
    if (c.size() >= 2 && c[0] == 'p' && std::isdigit(static_cast<unsigned char>(c[1]))) {
      return c == "p99" ? PerfCsvTool::kGenaiPerf : PerfCsvTool::kAiperf;
    }
  }
  return PerfCsvTool::kUnknown;
}

FormatSniff SniffPerfCsv(std::string_view head, PerfCsvTool tool) {
  if (StartsWith(head, "\xEF\xBB\xBF")) head.remove_prefix(3);
  auto first = FirstLine(head, [](std::string_view l) { return !Trim(l).empty(); });
  if (!first) return {};
  std::string_view line = Trim(*first);
  const PerfCsvTool whose = PerfCsvToolOfHeader(line);
  if (whose == tool) return Whole(Clip(line));
  if (whose != PerfCsvTool::kUnknown || line != "Metric,Value") return {};
  const char* units = tool == PerfCsvTool::kAiperf ? "(requests/sec)" : "(per sec)";
  const char* alt = tool == PerfCsvTool::kAiperf ? "(tokens/sec)" : "(per sec)";
  if (auto row = FirstLine(head, [&](std::string_view l) {
        return l.find(units) != std::string_view::npos || l.find(alt) != std::string_view::npos;
      })) {
    return Fragment(Clip(*row), "the statistics block ('Metric,avg,min,max,...') before it");
  }
  return {};
}

}  // namespace ys::formats
