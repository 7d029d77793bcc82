#include "core/fd_write.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace ys {

Status WriteAll(int fd, std::string_view data, std::string_view shown) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : EIO;
      return Status::Io(std::string(shown) + ": write failed (" + std::strerror(err) + ")");
    }
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

}  // namespace ys
