// Format unit: AIPerf's summary CSV, profile_export_aiperf.csv: a statistics block
// ("Metric,avg,min,max,sum,p1,...,p99,std", one row per per-request metric under its display
// name), a blank line, a value block ("Metric,Value": throughputs, counts, the duration), and with
// --gpu-telemetry a block of DCGM readings per GPU ("Endpoint,GPU_Index,GPU_Name,GPU_UUID,...").
// Written with CRLF line ends. Read into the serving point of validate/inference_result.h;
// AIPerf's "Inter Token Latency" is our TPOT and its "Inter Chunk Latency" our ITL.
#include <fmt/format.h>

#include <set>

#include "core/document_file.h"
#include "formats/format_text.h"
#include "formats/perf_csv_blocks.h"
#include "validate/inference_result.h"
#include "validate/run_evaluation.h"

namespace ys::formats {
namespace {

constexpr size_t kMaxAiperfCsvBytes = size_t{16} << 20;

FormatSniff SniffAiperfCsv(std::string_view head) {
  return SniffPerfCsv(head, PerfCsvTool::kAiperf);
}

// The GPUs of the telemetry block, by UUID. They are the GPUs a DCGM exporter reported, which need
// not be the GPUs that served the run (a node's other GPUs, a decode-only endpoint), so they are
// noted, never taken as the point's GPU count.
void NoteAiperfTelemetry(const std::vector<PerfCsvBlock>& blocks, validate::ServingPoint& p) {
  for (const PerfCsvBlock& b : blocks) {
    const std::vector<std::string>& h = b.header.cells;
    if (h.empty() || h[0] != "Endpoint") continue;
    size_t uuid_at = h.size();
    for (size_t i = 0; i < h.size(); ++i) {
      if (h[i] == "GPU_UUID") uuid_at = i;
    }
    if (uuid_at == h.size()) continue;
    std::set<std::string> uuids;
    for (const PerfCsvRow& row : b.rows) {
      if (uuid_at < row.cells.size() && !row.cells[uuid_at].empty()) {
        uuids.insert(row.cells[uuid_at]);
      }
    }
    if (uuids.empty()) continue;
    p.notes.push_back(fmt::format(
        "GPU telemetry covers {} GPU(s); it does not say they served the run, so per-GPU "
        "figures need --gpus",
        uuids.size()));
  }
}

Result<validate::InferenceResult> ParseAiperfCsv(std::string_view text, const std::string& name) {
  auto read = ParsePerfCsv(text, name, "aiperf-csv", "aiperf", "AIPerf");
  if (!read.ok()) return read.status();
  for (validate::ServingPoint& p : read->result.points) NoteAiperfTelemetry(read->blocks, p);
  return std::move(read->result);
}

Result<std::any> ReadAiperfCsv(const FormatRequest& r) {
  auto text = ReadFormatContent(r, kMaxAiperfCsvBytes, "an AIPerf profile_export_aiperf.csv");
  if (!text.ok()) return text.status();
  auto parsed = ParseAiperfCsv(*text, r.path);
  if (!parsed.ok()) return parsed.status();
  return std::any(validate::EvaluateInference(std::move(*parsed), IngestOptionsOf(r), r.path));
}

}  // namespace

YS_FORMAT(SniffAiperfCsv, ReadAiperfCsv,
          {.name = "aiperf-csv",
           .produces = FormatProduct::kWorkloadRun,
           .summary = "AIPerf's summary CSV (profile_export_aiperf.csv): per-request statistics, "
                      "throughputs and counts, GPU telemetry",
           .example = "Metric,avg,min,max,sum,p1,p5,p10,p25,p50,p75,p90,p95,p99,std"})

}  // namespace ys::formats
