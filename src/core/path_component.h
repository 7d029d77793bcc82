// The one rule for a name that becomes a file or directory name: workload ids, run names, node
// and host names placed in file names. [A-Za-z0-9._-], 1 to 128 characters, not starting with
// '-' (it would read as an option), and neither "." nor ".." (they would leave the directory the
// name is meant to sit in).
#ifndef YARDSTICK_CORE_PATH_COMPONENT_H_
#define YARDSTICK_CORE_PATH_COMPONENT_H_

#include <string>
#include <string_view>

#include "core/status.h"

namespace ys {

inline constexpr std::size_t kMaxPathComponentChars = 128;

bool IsSafePathComponent(std::string_view value);

// Ok, or Invalid "WHAT 'VALUE': ..." saying what is allowed; `what` names the file and field
// ("suites/h100.toml: workload 3 id"). The value is shown with control bytes escaped.
Status ValidatePathComponent(std::string_view what, std::string_view value);

// `name` made into a safe component for a default path built from a value that is not input to
// judge, such as this machine's host name: bytes outside [A-Za-z0-9._-] become '_', a leading
// '-' too, it is cut at 128 characters, and "", "." or ".." become `fallback`.
std::string PathComponentFrom(std::string_view name, std::string_view fallback);

// This machine's host name as PathComponentFrom makes it ("host" when it has none).
std::string HostNameForPath();

}  // namespace ys

#endif  // YARDSTICK_CORE_PATH_COMPONENT_H_
