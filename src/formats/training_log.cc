#include "formats/training_log.h"

#include "formats/format_text.h"
#include "validate/ingest.h"

namespace ys::formats {

FormatSniff SniffTrainingLog(std::string_view head, validate::LogFormat f) {
  if (auto line =
          FirstLine(head, [f](std::string_view l) { return validate::LineSignature(l) == f; })) {
    return Whole(Clip(*line));
  }
  if (FirstLine(head, [](std::string_view l) {
        return (l.find("iteration") != std::string_view::npos &&
                l.find('/') != std::string_view::npos && l.find('|') != std::string_view::npos) ||
               StartsWith(Trim(l), "step:");
      })) {
    return Near(0.3,
                "a step-time field (Megatron: 'elapsed time per iteration (ms):', NeMo 2: "
                "'train_step_timing in s:', torchtitan: 'tps:' or 'tflops:')");
  }
  // A log cut before its first step (the job died in start-up, or the paste stops there): the
  // launch and start-up lines the frameworks print. Read, it says that no step was logged.
  if (auto line = FirstLine(head, [](std::string_view l) {
        return l.find("[NeMo I ") != std::string_view::npos ||
               l.find("> initializing torch distributed") != std::string_view::npos ||
               l.find("------------------------ arguments ------------------------") !=
                   std::string_view::npos ||
               l.find("torchtitan.train") != std::string_view::npos;
      })) {
    return Fragment(Clip(*line), "an iteration line (the log ends before its first step)");
  }
  return {};
}

Result<std::any> ReadTrainingLog(const FormatRequest& request, validate::LogFormat f) {
  validate::IngestOptions o = IngestOptionsOf(request);
  // Told from the content, the streaming reader detects the format again over every line (the
  // same first signature line the sniffer saw, or one past the sniffed head).
  o.format = request.forced ? f : validate::LogFormat::kAuto;
  auto run = validate::IngestLog(request.path, o);
  if (!run.ok()) return run.status();
  return std::any(std::move(*run));
}

}  // namespace ys::formats
