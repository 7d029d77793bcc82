// The three training-log formats (megatron, nemo2, torchtitan) share one sniffer and one reader:
// a log's format is the first line whose signature only that format prints
// (validate/log_format.h), read by the streaming training-log reader (validate/ingest.h).
#ifndef YARDSTICK_FORMATS_TRAINING_LOG_H_
#define YARDSTICK_FORMATS_TRAINING_LOG_H_

#include <string_view>

#include "core/format_registry.h"
#include "validate/log_format.h"

namespace ys::formats {

// Whole when a line of `head` carries format f's signature; near (0.3) when a line looks like a
// training iteration of any format without its step-time field.
FormatSniff SniffTrainingLog(std::string_view head, validate::LogFormat f);

// The log at request.path read as format f (a WorkloadRun).
Result<std::any> ReadTrainingLog(const FormatRequest& request, validate::LogFormat f);

}  // namespace ys::formats

#endif  // YARDSTICK_FORMATS_TRAINING_LOG_H_
