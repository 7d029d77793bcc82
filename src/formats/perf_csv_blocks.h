// What NVIDIA's load generators (AIPerf, GenAI-Perf) print in their summary CSVs and console
// tables, shared by the readers of those formats (aiperf_csv.cc, genai_perf_csv.cc,
// genai_perf_console.cc):
//   - the CSV's blocks: comma-separated tables (RFC 4180 quoting, CRLF or LF) parted by blank
//     lines, each under its own header row ("Metric,avg,min,...", "Metric,Value",
//     "Endpoint,GPU_Index,...");
//   - the display names both tools give a metric ("Time to First Token (ms)", "Time To First
//     Token (ms)", "Output Token Throughput (per sec)", "Request Count (count)") and where each
//     goes in a serving point, with its conversion to our definitions
//     (validate/inference_result.h).
// Pure functions of their text; nothing here opens a file.
#ifndef YARDSTICK_FORMATS_PERF_CSV_BLOCKS_H_
#define YARDSTICK_FORMATS_PERF_CSV_BLOCKS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/format_registry.h"
#include "core/status.h"
#include "validate/inference_result.h"

namespace ys::formats {

// One CSV row: its cells unquoted, and its line in the file (1-based).
struct PerfCsvRow {
  std::vector<std::string> cells;
  int64_t line = 0;
};

// One block: the header row, then the rows up to the next blank line.
struct PerfCsvBlock {
  PerfCsvRow header;
  std::vector<PerfCsvRow> rows;
};

// The blocks of `text` (a UTF-8 byte-order mark and CR line ends allowed). Invalid naming `name`
// and the line for an unterminated quoted field.
Result<std::vector<PerfCsvBlock>> SplitPerfCsvBlocks(std::string_view text, std::string_view name);

// A figure as both tools print it: "1,146.31" (thousands separators), "9.55", "-21.09". nullopt
// for an empty cell or "N/A"; Invalid-worthy text (not a number) gives `bad` = true.
std::optional<double> PerfNumber(std::string_view cell, bool* bad);

// The serving figures the tools' display names stand for.
enum class PerfFigure {
  kTtft,           // Time to First Token
  kTpot,           // Inter Token Latency: (latency - TTFT) / (OSL - 1), our TPOT
  kItl,            // Inter Chunk Latency: the gap between streamed chunks, our ITL
  kE2el,           // Request Latency
  kOsl,            // Output Sequence Length
  kIsl,            // Input Sequence Length
  kTokensPerUser,  // Output Token Throughput Per User
  kRequestRate,    // Request Throughput
  kOutputRate,     // Output Token Throughput
  kTotalRate,      // Total Token Throughput
  kRequestCount,   // Request Count: requests that completed without error
  kErrorCount,     // Error Request Count
  kOslMismatch,    // OSL Mismatch Count
  kDuration,       // Benchmark Duration
};

// A display name read: the figure and the factor that turns its unit into ours (ms, s, tokens).
struct PerfMetricName {
  PerfFigure figure;
  double scale = 1;
};

// "Time To First Token (ms)" -> {kTtft, 1}; "Time To First Token (ns)" -> {kTtft, 1e-6}. Case and
// surrounding spaces do not matter. nullopt for a metric that is not a serving figure ("Time to
// Second Token", "GPU Power Usage (W)") or a latency in a unit we do not know.
std::optional<PerfMetricName> PerfMetricOf(std::string_view display_name);

// One metric row of a table: its statistics keyed by validate::StatName ("mean", "p99", ...),
// or, for a "Metric,Value" row, its value under "value".
// Puts `stats` (already in the file's unit) into `p` after `m.scale`; the first time a
// conversion is made it adds its note to `p.notes` ("TPOT from AIPerf's Inter Token Latency").
// Invalid-worthy input gives false: a count that is not a whole number >= 0, a negative latency.
bool TakePerfFigure(const PerfMetricName& m, const validate::ServingStats& stats,
                    std::string_view tool_label, validate::ServingPoint& p);

// The load a run was driven at, from the artifact directory names both tools print and write
// ("artifacts/Qwen_Qwen3-14B-openai-chat-concurrency1/...", "...-request_rate10.0/") or from
// perf_analyzer's own lines ("--concurrency-range 1", "Request concurrency: 1"): sets
// `max_concurrency` or `request_rate`, then `mode` (latency at concurrency 1, else serving).
// Returns whether it found one.
bool TakePerfLoad(std::string_view text, validate::ServingPoint& p);

// The requests of a point once all its rows are read: asked = completed + errors when the tool
// printed an error count.
void FinishPerfPoint(validate::ServingPoint& p);

// The serving point of a summary CSV: its statistics block ("Metric,avg,min,...") and its value
// block ("Metric,Value"); other blocks (AIPerf's GPU telemetry) are the caller's. `tool_label`
// ("AIPerf", "GenAI-Perf") names the tool in notes. Invalid naming `name`, the line and the
// metric for a malformed figure, and a file with neither block; nullopt when the blocks hold no
// serving figure.
Result<std::optional<validate::ServingPoint>> ReadPerfCsvPoint(
    const std::vector<PerfCsvBlock>& blocks, std::string_view tool_label, std::string_view name);

// A summary CSV read whole: the result (format `format`, its one point's tool `tool`, its load
// from the artifact directory in `name`) and the blocks, for what only one tool prints.
struct PerfCsvRead {
  validate::InferenceResult result;
  std::vector<PerfCsvBlock> blocks;
};
Result<PerfCsvRead> ParsePerfCsv(std::string_view text, const std::string& name,
                                 std::string_view format, std::string_view tool,
                                 std::string_view tool_label);

// Which tool wrote a summary CSV, told from its header rows.
enum class PerfCsvTool { kUnknown, kAiperf, kGenaiPerf };

// Whose statistics header `line` is: AIPerf's ends with "std" and lists percentiles upward from
// p1; GenAI-Perf's has no "std" and lists p99 first, downward.
PerfCsvTool PerfCsvToolOfHeader(std::string_view line);

// The sniff of a head for `tool`'s summary CSV: whole on its statistics header; a fragment on a
// "Metric,Value" block in that tool's units ("(requests/sec)" for AIPerf, "(per sec)" for
// GenAI-Perf) without the statistics block before it.
FormatSniff SniffPerfCsv(std::string_view head, PerfCsvTool tool);

}  // namespace ys::formats

#endif  // YARDSTICK_FORMATS_PERF_CSV_BLOCKS_H_
