#include "core/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/fd_write.h"

namespace ys {

namespace {

Status CannotWrite(const std::string& path, std::string_view why) {
  return Status::Io(path + ": cannot write (" + std::string(why) + ")");
}

}  // namespace

Status WriteFileAtomic(const std::string& path, std::string_view content,
                       const AtomicWriteOptions& options) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  ::unlink(tmp.c_str());  // a leftover of a killed writer with this pid
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, options.mode);
  if (fd < 0) return CannotWrite(path, tmp + ": " + std::strerror(errno));
  std::string why;
  if (Status s = WriteAll(fd, content, tmp); !s.ok()) why = s.message();
  if (why.empty() && options.durable && ::fsync(fd) != 0)
    why = std::string("fsync: ") + std::strerror(errno);
  if (::close(fd) != 0 && why.empty()) why = std::string("close: ") + std::strerror(errno);
  if (why.empty() && ::rename(tmp.c_str(), path.c_str()) != 0) {
    why = std::string("rename into place: ") + std::strerror(errno);
  }
  if (!why.empty()) {
    ::unlink(tmp.c_str());
    return CannotWrite(path, why);
  }
  if (options.durable) {
    std::string dir = std::filesystem::path(path).parent_path().string();
    int dfd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
      ::fsync(dfd);
      ::close(dfd);
    }
  }
  return Status::Ok();
}

}  // namespace ys
