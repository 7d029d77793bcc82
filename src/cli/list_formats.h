// `yardstick list --formats`: every file format yardstick reads (core/format_registry.h), what it
// produces, which command takes it, and an example line.
#ifndef YARDSTICK_CLI_LIST_FORMATS_H_
#define YARDSTICK_CLI_LIST_FORMATS_H_

namespace ys::cli {

// Prints the table, or JSON; the exit code (0).
int ListFormats(bool json);

}  // namespace ys::cli

#endif  // YARDSTICK_CLI_LIST_FORMATS_H_
