// Fuzz target: the serving-benchmark readers of the format room (src/formats/, every format that
// produces a workload run from a serving tool's output: vLLM and SGLang JSON and console, AIPerf,
// GenAI-Perf, trtllm-bench, MLPerf LoadGen ...) and the validity rules behind them
// (validate/serving_validity.cc, through EvaluateInference). The input's first line names the
// format ("aiperf-json"); the rest is the file, read from a scratch file as `ingest` reads it and
// also from memory. A name that is not a workload-run format is read by the auto-detection.
#include <any>

#include "core/format_registry.h"
#include "fuzz_target.h"
#include "fuzz_util.h"

YS_FUZZ_TARGET(serving) {
  std::string_view text = ys::fuzz::AsText(data, size);
  size_t eol = text.find('\n');
  if (eol == std::string_view::npos) return 0;
  std::string_view name = text.substr(0, eol);
  text.remove_prefix(eol + 1);
  const ys::RegisteredFormat* format = ys::FormatRegistry::Global().Find(name);
  ys::fuzz::WriteScratch("serving.input", text);
  const std::string path = ys::fuzz::ScratchDir() + "/serving.input";
  if (format == nullptr || format->info.produces != ys::FormatProduct::kWorkloadRun) {
    auto chosen = ys::ChooseFormat(path, text, ys::FormatProduct::kWorkloadRun);
    if (!chosen.ok()) return 0;
    format = chosen->format;
  }
  (void)format->read(ys::FormatRequest{.path = path});
  (void)format->read(ys::FormatRequest{.path = path, .text = text});
  return 0;
}
