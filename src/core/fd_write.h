// Writing a whole buffer to a file descriptor: the loop over short writes and EINTR that every
// writer of files needs once (checkpoints, capture trees, key files, staged hwloc trees).
#ifndef YARDSTICK_CORE_FD_WRITE_H_
#define YARDSTICK_CORE_FD_WRITE_H_

#include <string_view>

#include "core/status.h"

namespace ys {

// Writes all of `data` to `fd`, retrying short writes and EINTR. The fd stays open (the caller
// owns it). On failure: Io "<shown>: write failed (<strerror>)".
[[nodiscard]] Status WriteAll(int fd, std::string_view data, std::string_view shown);

}  // namespace ys

#endif  // YARDSTICK_CORE_FD_WRITE_H_
