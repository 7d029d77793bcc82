// One command at a time in an output directory: two `run --out same` (or two burn-ins resuming
// the same directory) would write one document over the other, each exiting 0. The first takes
// an advisory lock on DIR/.yardstick.lock for its lifetime and writes who it is there; the second
// is refused (exit 2) naming the holder. The lock is the kernel's (flock(2)): a holder that dies
// releases it, so a stale file never blocks a later run.
//
// Thread safety: a DirLock is one process's; move-only.
#ifndef YARDSTICK_CORE_DIR_LOCK_H_
#define YARDSTICK_CORE_DIR_LOCK_H_

#include <string>
#include <string_view>

#include "core/status.h"

namespace ys {

inline constexpr char kDirLockFile[] = ".yardstick.lock";

class DirLock {
 public:
  DirLock() = default;
  DirLock(DirLock&& other) noexcept;
  DirLock& operator=(DirLock&& other) noexcept;
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;
  ~DirLock();

  // Locks the existing directory `dir` for `command` ("run", "burnin"). Invalid when another
  // process holds it: "--out DIR is in use by another yardstick (pid 4711, `yardstick run`,
  // since 2026-12-07T09:14:53Z): wait for it to finish or give another --out"; Io when the lock
  // file cannot be made.
  static Result<DirLock> Acquire(const std::string& dir, std::string_view command);

  bool held() const { return fd_ >= 0; }

 private:
  explicit DirLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace ys

#endif  // YARDSTICK_CORE_DIR_LOCK_H_
