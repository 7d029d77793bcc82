// Format unit: the table GenAI-Perf prints on the console after each run, under its title
// "NVIDIA GenAI-Perf | LLM Metrics": box-drawing characters, a header row "Statistic | avg | min |
// max | p99 | p90 | p75", a row per per-request metric, then rows with an avg only (output token
// and request throughput, request count). A sweep prints one table per load; each is one serving
// point, its concurrency or request rate taken from the lines around it (perf_analyzer's
// "--concurrency-range 8", the artifact directory "...-concurrency8/"). GenAI-Perf's "Inter Token
// Latency" is our TPOT (validate/inference_result.h).
#include <fmt/format.h>

#include "core/document_file.h"
#include "formats/format_text.h"
#include "formats/perf_csv_blocks.h"
#include "validate/inference_result.h"
#include "validate/run_evaluation.h"

namespace ys::formats {
namespace {

constexpr size_t kMaxGenaiConsoleBytes = size_t{16} << 20;
constexpr std::string_view kGenaiTitle = "NVIDIA GenAI-Perf | ";
constexpr std::string_view kGenaiLlmTitle = "NVIDIA GenAI-Perf | LLM Metrics";
constexpr std::string_view kHeavyBar = "\xE2\x94\x83";  // U+2503, the header's column bar
constexpr std::string_view kLightBar = "\xE2\x94\x82";  // U+2502, a row's column bar
constexpr std::string_view kBottom = "\xE2\x94\x94";    // U+2514, the table's last line

// The cells between the bars of a table line: "│ a │ b │" -> {"a", "b"}.
std::vector<std::string> GenaiCells(std::string_view line, std::string_view bar) {
  std::vector<std::string> cells;
  line = Trim(line);
  if (!StartsWith(line, bar)) return cells;
  line.remove_prefix(bar.size());
  for (size_t at = line.find(bar); at != std::string_view::npos; at = line.find(bar)) {
    cells.emplace_back(Trim(line.substr(0, at)));
    line.remove_prefix(at + bar.size());
  }
  return cells;
}

bool IsGenaiHeader(std::string_view line) {
  std::vector<std::string> cells = GenaiCells(line, kHeavyBar);
  return cells.size() >= 2 && cells[0] == "Statistic";
}

FormatSniff SniffGenaiPerfConsole(std::string_view head) {
  if (auto line = FirstLine(head, [](std::string_view l) {
        return l.find(kGenaiLlmTitle) != std::string_view::npos;
      })) {
    return Whole(Clip(*line));
  }
  if (auto line = FirstLine(head, IsGenaiHeader)) {
    return Fragment(Clip(*line), "the 'NVIDIA GenAI-Perf | LLM Metrics' title");
  }
  return {};
}

struct GenaiRow {
  std::string name;
  std::vector<std::string> cells;
  int64_t line = 0;
};

// One table: where it stands in the text (line indexes) and its rows.
struct GenaiTable {
  size_t begin = 0, end = 0;
  std::vector<std::string> stats;  // the header's statistic names, after "Statistic"
  std::vector<GenaiRow> rows;
};

// A row whose value cells are all empty continues the name of the row above it (a long name
// wrapped by the console width).
void AddGenaiRow(GenaiTable& t, std::vector<std::string> cells, int64_t line) {
  if (cells.empty()) return;
  bool continuation = !t.rows.empty();
  for (size_t i = 1; i < cells.size(); ++i) continuation = continuation && cells[i].empty();
  if (continuation) {
    t.rows.back().name += " " + cells[0];
    return;
  }
  std::string name = cells[0];
  cells.erase(cells.begin());
  t.rows.push_back(GenaiRow{.name = std::move(name), .cells = std::move(cells), .line = line});
}

// The LLM-metrics tables of `lines`: a title opens one (other GenAI-Perf tables, such as its GPU
// telemetry, are skipped); a header without a title opens one too (a table pasted without it).
std::vector<GenaiTable> FindGenaiTables(const std::vector<std::string_view>& lines) {
  std::vector<GenaiTable> tables;
  bool open = false, skipping = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    if (line.find(kGenaiTitle) != std::string_view::npos) {
      skipping = line.find(kGenaiLlmTitle) == std::string_view::npos;
      open = !skipping;
      if (open) tables.push_back(GenaiTable{.begin = i, .end = i});
    } else if (IsGenaiHeader(line) && !skipping) {
      if (!open) tables.push_back(GenaiTable{.begin = i, .end = i});
      open = true;
      std::vector<std::string> cells = GenaiCells(line, kHeavyBar);
      tables.back().stats.assign(cells.begin() + 1, cells.end());
    } else if (open && StartsWith(Trim(line), kLightBar)) {
      AddGenaiRow(tables.back(), GenaiCells(line, kLightBar), static_cast<int64_t>(i) + 1);
    } else if (open && StartsWith(Trim(line), kBottom)) {
      tables.back().end = i;
      open = false;
    }
    if (!tables.empty() && open) tables.back().end = i;
    if (skipping && StartsWith(Trim(line), kBottom)) skipping = false;
  }
  return tables;
}

// The rows of one table into a point; false when none is a serving figure.
Result<bool> FillGenaiPoint(const GenaiTable& t, const std::string& name,
                            validate::ServingPoint& p) {
  bool figures = false;
  for (const GenaiRow& row : t.rows) {
    std::optional<PerfMetricName> m = PerfMetricOf(row.name);
    if (!m) continue;
    validate::ServingStats stats;
    for (size_t i = 0; i < row.cells.size() && i < t.stats.size(); ++i) {
      std::string stat = validate::StatName(t.stats[i]);
      bool bad = false;
      std::optional<double> v = PerfNumber(row.cells[i], &bad);
      if (bad) {
        return Status::Invalid(fmt::format("{}:{}: '{}': \"{}\" in column {} (expected a number)",
                                           name, row.line, row.name, row.cells[i], t.stats[i]));
      }
      if (v && !stat.empty()) stats[stat] = *v;
    }
    if (!TakePerfFigure(*m, stats, "GenAI-Perf", p)) {
      return Status::Invalid(
          fmt::format("{}:{}: '{}': a value out of range (expected a number "
                      ">= 0, counts whole)",
                      name, row.line, row.name));
    }
    figures = figures || !stats.empty();
  }
  return figures;
}

// The lines from `from` up to (not including) `to`, joined; only those holding `only` when given.
std::string GenaiSpan(const std::vector<std::string_view>& lines, size_t from, size_t to,
                      std::string_view only = {}) {
  std::string out;
  for (size_t i = from; i < to && i < lines.size(); ++i) {
    if (only.empty() || lines[i].find(only) != std::string_view::npos) (out += lines[i]) += '\n';
  }
  return out;
}

Result<validate::InferenceResult> ParseGenaiPerfConsole(std::string_view text,
                                                        const std::string& name) {
  std::vector<std::string_view> lines = SplitLines(text);
  for (std::string_view& l : lines) {
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
  }
  std::vector<GenaiTable> tables = FindGenaiTables(lines);
  if (tables.empty()) {
    return Status::Invalid(name +
                           ": no GenAI-Perf table: expected the 'NVIDIA GenAI-Perf | LLM "
                           "Metrics' title and its 'Statistic | avg | ...' rows");
  }
  validate::InferenceResult result;
  result.format = "genai-perf-console";
  for (size_t i = 0; i < tables.size(); ++i) {
    validate::ServingPoint p;
    p.tool = "genai-perf";
    auto filled = FillGenaiPoint(tables[i], name, p);
    if (!filled.ok()) return filled.status();
    if (!*filled) continue;
    // The run's load: the exporter's lines after the table ("Generating artifacts/...-concurrency8/
    // profile_export_genai_perf.csv"; not the next run's command), else the lines before it.
    const size_t next = i + 1 < tables.size() ? tables[i + 1].begin : lines.size();
    const size_t prev = i > 0 ? tables[i - 1].end + 1 : 0;
    if (!TakePerfLoad(GenaiSpan(lines, tables[i].end + 1, next, "Generating "), p)) {
      TakePerfLoad(GenaiSpan(lines, prev, tables[i].begin), p);
    }
    FinishPerfPoint(p);
    result.points.push_back(std::move(p));
  }
  return result;
}

Result<std::any> ReadGenaiPerfConsole(const FormatRequest& r) {
  auto text = ReadFormatContent(r, kMaxGenaiConsoleBytes, "GenAI-Perf's console output");
  if (!text.ok()) return text.status();
  auto parsed = ParseGenaiPerfConsole(*text, r.path);
  if (!parsed.ok()) return parsed.status();
  return std::any(validate::EvaluateInference(std::move(*parsed), IngestOptionsOf(r), r.path));
}

}  // namespace

YS_FORMAT(SniffGenaiPerfConsole, ReadGenaiPerfConsole,
          {.name = "genai-perf-console",
           .produces = FormatProduct::kWorkloadRun,
           .summary = "the 'NVIDIA GenAI-Perf | LLM Metrics' table GenAI-Perf prints on the "
                      "console, one per run of a sweep",
           .example = "NVIDIA GenAI-Perf | LLM Metrics"})

}  // namespace ys::formats
