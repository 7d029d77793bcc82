#include "core/dir_lock.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <utility>

#include "core/text.h"

namespace ys {
namespace {

// "pid 4711, `yardstick run`, since 2026-12-07T09:14:53Z": what the holder wrote, or a plain
// "another process" when it wrote nothing readable yet.
std::string HolderOf(int fd) {
  char buf[256] = {};
  const ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
  std::string text = n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
  text = std::string(Trim(text));
  return text.empty() ? "another process" : text;
}

std::string UtcNow() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char out[32];
  std::strftime(out, sizeof(out), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return out;
}

}  // namespace

DirLock::DirLock(DirLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

DirLock& DirLock::operator=(DirLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

DirLock::~DirLock() {
  if (fd_ >= 0) close(fd_);  // closing releases the lock; the file stays for the next holder
}

Result<DirLock> DirLock::Acquire(const std::string& dir, std::string_view command) {
  const std::string path = dir + "/" + kDirLockFile;
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    return Status::Io(fmt::format("--out {}: cannot make the lock file {} ({})", dir, kDirLockFile,
                                  std::strerror(errno)));
  }
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    std::string holder = err == EWOULDBLOCK ? HolderOf(fd) : "";
    close(fd);
    if (err != EWOULDBLOCK) {
      return Status::Io(
          fmt::format("--out {}: cannot lock {} ({})", dir, kDirLockFile, std::strerror(err)));
    }
    return Status::Invalid(fmt::format(
        "--out {} is in use by another yardstick ({}): wait for it to finish or give another "
        "--out",
        dir, holder));
  }
  const std::string me =
      fmt::format("pid {}, `yardstick {}`, since {}\n", getpid(), command, UtcNow());
  // Who holds it, for a second process's message; the lock holds without the note (a second
  // process then names "another process").
  if (ftruncate(fd, 0) == 0) (void)!pwrite(fd, me.data(), me.size(), 0);
  return DirLock(fd);
}

}  // namespace ys
