#include "host/rooted_open.h"

#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <deque>
#include <vector>

namespace ys::host {
namespace {

constexpr int kMaxLinks = 40;  // as the kernel's own limit (ELOOP)

std::string_view Relative(std::string_view path) {
  while (!path.empty() && path.front() == '/') path.remove_prefix(1);
  return path;
}

void SplitInto(std::string_view path, std::deque<std::string>& out, bool front) {
  std::vector<std::string> parts;
  size_t i = 0;
  while (i <= path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    if (j > i) parts.emplace_back(path.substr(i, j - i));
    i = j + 1;
  }
  if (front) {
    out.insert(out.begin(), parts.begin(), parts.end());
  } else {
    out.insert(out.end(), parts.begin(), parts.end());
  }
}

long Openat2(int dirfd, const char* path, int flags) {
  struct open_how how {};
  how.flags = static_cast<uint64_t>(flags | O_CLOEXEC);
  how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
  long fd;
  // EAGAIN: a rename elsewhere raced with a ".." lookup; the kernel asks to try again.
  for (int tries = 0; tries < 8; ++tries) {
    fd = ::syscall(SYS_openat2, dirfd, path, &how, sizeof how);
    if (fd >= 0 || errno != EAGAIN) break;
  }
  return fd;
}

// The walk: directories held open from the root down (so ".." is the one we came from and
// stops at the root), every component opened with O_NOFOLLOW, links expanded by readlinkat.
class Walk {
 public:
  explicit Walk(int root_fd) : root_fd_(root_fd) {}
  ~Walk() {
    for (int fd : dirs_) ::close(fd);
  }
  Walk(const Walk&) = delete;
  Walk& operator=(const Walk&) = delete;

  // Returns a descriptor for `path` opened with `flags`, or -errno.
  int Open(std::string_view path, int flags) {
    std::deque<std::string> todo;
    SplitInto(path, todo, false);
    int links = 0;
    while (!todo.empty()) {
      std::string name = std::move(todo.front());
      todo.pop_front();
      if (name == ".") continue;
      if (name == "..") {
        Up();
        continue;
      }
      const bool last = todo.empty();
      int fd = ::openat(Current(), name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC);
      if (fd < 0) return -errno;
      struct stat st {};
      if (::fstat(fd, &st) != 0) {
        int err = errno;
        ::close(fd);
        return -err;
      }
      if (S_ISLNK(st.st_mode) && !(last && (flags & O_NOFOLLOW))) {
        char buf[PATH_MAX];
        ssize_t n = ::readlinkat(fd, "", buf, sizeof buf - 1);
        int err = errno;
        ::close(fd);
        if (n < 0) return -err;
        if (++links > kMaxLinks) return -ELOOP;
        std::string_view target(buf, static_cast<size_t>(n));
        if (!target.empty() && target.front() == '/') {
          while (!dirs_.empty()) Up();
        }
        SplitInto(target, todo, true);
        continue;
      }
      if (last) {
        names_.push_back(name);
        if (flags & O_PATH) {
          if ((flags & O_DIRECTORY) && !S_ISDIR(st.st_mode)) {
            ::close(fd);
            return -ENOTDIR;
          }
          return fd;
        }
        ::close(fd);
        // The component was not a link a moment ago; O_NOFOLLOW keeps a link swapped in since
        // from being followed (ELOOP).
        int real = ::openat(Current(), name.c_str(), flags | O_NOFOLLOW | O_CLOEXEC);
        return real < 0 ? -errno : real;
      }
      if (!S_ISDIR(st.st_mode)) {
        ::close(fd);
        return -ENOTDIR;
      }
      dirs_.push_back(fd);
      names_.push_back(std::move(name));
    }
    // The path named a directory reached by "." or ".." (or the root itself).
    int fd = ::openat(Current(), ".", flags | O_CLOEXEC);
    return fd < 0 ? -errno : fd;
  }

  std::string Canonical() const {
    if (names_.empty()) return "/";
    std::string out;
    for (const auto& n : names_) out += "/" + n;
    return out;
  }

 private:
  int Current() const { return dirs_.empty() ? root_fd_ : dirs_.back(); }
  void Up() {
    if (dirs_.empty()) return;  // ".." at the root stays at the root
    ::close(dirs_.back());
    dirs_.pop_back();
    names_.pop_back();
  }

  int root_fd_;
  std::vector<int> dirs_;
  std::vector<std::string> names_;
};

}  // namespace

bool Openat2Available() {
  static const bool available = [] {
    long fd = Openat2(AT_FDCWD, "/", O_PATH | O_DIRECTORY);
    if (fd >= 0) {
      ::close(static_cast<int>(fd));
      return true;
    }
    return false;  // ENOSYS, or EPERM from a seccomp filter that does not know the call
  }();
  return available;
}

int OpenInRoot(int root_fd, std::string_view path, int flags, RootedResolver how) {
  if (root_fd < 0) return -EBADF;
  std::string rel(Relative(path));
  if (how == RootedResolver::kOpenat2 || (how == RootedResolver::kAuto && Openat2Available())) {
    long fd = Openat2(root_fd, rel.empty() ? "." : rel.c_str(), flags);
    return fd < 0 ? -errno : static_cast<int>(fd);
  }
  Walk w(root_fd);
  return w.Open(rel, flags);
}

std::string CanonicalInRoot(int root_fd, std::string_view path, int* err) {
  *err = 0;
  if (root_fd < 0) {
    *err = EBADF;
    return "";
  }
  Walk w(root_fd);
  int fd = w.Open(Relative(path), O_PATH);
  if (fd < 0) {
    *err = -fd;
    return "";
  }
  ::close(fd);
  return w.Canonical();
}

}  // namespace ys::host
