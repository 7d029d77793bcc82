// Ingestion: one training log (or serving-benchmark JSON) in, one WorkloadRun out.
//
//   Result<WorkloadRun> run = IngestLog("experiments/.../log-llama_4242_1.out", options);
//
// A Result error means the input could not be read as what was asked: a missing or unreadable
// file, a directory, a file over `max_bytes`, binary data, malformed JSON, or a malformed
// llmb-config beside the log. The message names the file and says what was expected. A readable
// text with nothing parseable is not an error: it is a WorkloadRun with status no_data, which
// the verdict scores like any failed workload.
//
// Logs are read streaming, one line at a time. The format is detected from content unless
// `format` forces one. The window, the shape (sequence length, global batch size, GPUs, peak)
// and the status follow workload_run.h. Shape values given here win over what the log or its
// llmb-config says; a disagreement is noted, never silent.
#ifndef YARDSTICK_VALIDATE_INGEST_H_
#define YARDSTICK_VALIDATE_INGEST_H_

#include <string>
#include <string_view>

#include "core/status.h"
#include "validate/ingest_options.h"
#include "validate/run_evaluation.h"
#include "validate/workload_run.h"

namespace ys::validate {

Result<WorkloadRun> IngestLog(const std::string& path, const IngestOptions& options);

// The same over a text held in memory; `name` stands for the file in messages and log_path.
Result<WorkloadRun> IngestText(std::string_view text, const IngestOptions& options,
                               std::string_view name = "<text>");

// Why `head` (the first bytes of a file) is not text, or empty when it is text. A NUL byte in
// the first 512 bytes, or more than 1% control characters, is binary; NULs later on are the
// padding a crash leaves, and those lines are skipped with a note.
std::string BinaryReason(std::string_view head);

}  // namespace ys::validate

#endif  // YARDSTICK_VALIDATE_INGEST_H_
