// A new directory for one run's outputs, never one that another run already took: the default
// output paths (./yardstick-runs/<UTC time>-<host>/ and the like) are named by the second they
// start in, so two runs started in the same second, or two ranks or hosts sharing a directory,
// would otherwise write into each other's folder.
#ifndef YARDSTICK_CORE_FRESH_DIR_H_
#define YARDSTICK_CORE_FRESH_DIR_H_

#include <string>

#include "core/status.h"

namespace ys {

// Creates `base`'s parents, then `base` itself, or when that exists `base`-2, `base`-3, ...:
// each candidate is claimed with one mkdir(2), so of two processes racing for a name exactly one
// gets it. Returns the directory made. Invalid naming the path and the reason when no directory
// can be made (a parent that cannot be created, no permission, 10000 names taken).
Result<std::string> MakeFreshDirectory(const std::string& base);

}  // namespace ys

#endif  // YARDSTICK_CORE_FRESH_DIR_H_
