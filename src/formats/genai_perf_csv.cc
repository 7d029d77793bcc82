// Format unit: GenAI-Perf's summary CSV, profile_export_genai_perf.csv: a statistics block
// ("Metric,avg,min,max,p99,p95,p90,p75,p50,p25", figures of 1000 and more quoted with thousands
// separators: "1,146.31"), a blank line, and a value block ("Metric,Value": output token and
// request throughput, request count). Read into the serving point of
// validate/inference_result.h; GenAI-Perf's "Inter Token Latency" is our TPOT.
#include "core/document_file.h"
#include "formats/format_text.h"
#include "formats/perf_csv_blocks.h"
#include "validate/inference_result.h"
#include "validate/run_evaluation.h"

namespace ys::formats {
namespace {

constexpr size_t kMaxGenaiPerfCsvBytes = size_t{16} << 20;

FormatSniff SniffGenaiPerfCsv(std::string_view head) {
  return SniffPerfCsv(head, PerfCsvTool::kGenaiPerf);
}

Result<validate::InferenceResult> ParseGenaiPerfCsv(std::string_view text,
                                                    const std::string& name) {
  auto read = ParsePerfCsv(text, name, "genai-perf-csv", "genai-perf", "GenAI-Perf");
  if (!read.ok()) return read.status();
  return std::move(read->result);
}

Result<std::any> ReadGenaiPerfCsv(const FormatRequest& r) {
  auto text =
      ReadFormatContent(r, kMaxGenaiPerfCsvBytes, "a GenAI-Perf profile_export_genai_perf.csv");
  if (!text.ok()) return text.status();
  auto parsed = ParseGenaiPerfCsv(*text, r.path);
  if (!parsed.ok()) return parsed.status();
  return std::any(validate::EvaluateInference(std::move(*parsed), IngestOptionsOf(r), r.path));
}

}  // namespace

YS_FORMAT(SniffGenaiPerfCsv, ReadGenaiPerfCsv,
          {.name = "genai-perf-csv",
           .produces = FormatProduct::kWorkloadRun,
           .summary = "GenAI-Perf's summary CSV (profile_export_genai_perf.csv): per-request "
                      "statistics, throughputs and the request count",
           .example = "Metric,avg,min,max,p99,p95,p90,p75,p50,p25"})

}  // namespace ys::formats
