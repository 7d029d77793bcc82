#include "host/host.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "core/text.h"
#include "host/rooted_open.h"

namespace ys::host {

void PathRecorder::Add(std::string path) {
  std::lock_guard<std::mutex> lock(mu_);
  paths_.insert(std::move(path));
}

std::set<std::string> PathRecorder::Paths() const {
  std::lock_guard<std::mutex> lock(mu_);
  return paths_;
}

namespace {

Status ErrnoStatus(int err, const std::string& shown) {
  std::string msg = shown + ": " + std::strerror(err);
  switch (err) {
    case ENOENT:
    case ENOTDIR:
      return Status::NotFound(msg);
    case EACCES:
    case EPERM:
      return Status::Denied(msg);
    default:
      return Status::Io(msg);
  }
}

// Closes a descriptor when it goes out of scope.
struct Fd {
  int fd;
  explicit Fd(int f) : fd(f) {}
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
};

// "a FIFO" for what stat says is not a regular file; "" for a regular file.
const char* NonRegularKind(mode_t mode) {
  if (S_ISREG(mode)) return "";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a regular file";
}

Status RefuseNonRegular(const struct stat& st, const std::string& shown) {
  const char* kind = NonRegularKind(st.st_mode);
  if (*kind == '\0') return Status::Ok();
  if (S_ISDIR(st.st_mode)) return Status::Invalid(shown + ": expected a file, found a directory");
  return Status::Invalid(shown + ": " + kind + ", expected a regular file");
}

std::string Bytes(size_t n) { return std::to_string(n) + "-byte limit"; }

}  // namespace

// The root directory of a recorded tree, held open so that every path is resolved against it.
struct Host::RootDir {
  int fd = -1;
  int err = 0;  // why it could not be opened
  explicit RootDir(const std::string& path) {
    fd = ::open(path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) err = errno;
  }
  ~RootDir() {
    if (fd >= 0) ::close(fd);
  }
  RootDir(const RootDir&) = delete;
  RootDir& operator=(const RootDir&) = delete;
};

Host Host::Live() { return Host("/", Environment::FromProcess(), /*live=*/true); }

Result<Host> Host::AtRoot(const std::string& root) {
  struct stat st {};
  if (::stat(root.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return Status::NotFound("host root " + root + " is not a directory");
  }
  char buf[PATH_MAX];
  if (::realpath(root.c_str(), buf) == nullptr) return ErrnoStatus(errno, root);
  std::string canon(buf);
  if (canon == "/") return Live();
  Host h(canon, Environment(), /*live=*/false);
  auto block = h.ReadFile("/proc/self/environ");
  if (block.ok()) h.env_ = Environment::FromEnvironBlock(*block);
  return h;
}

Host::Host(std::string root, Environment env, bool live)
    : root_(root == "/" ? "" : std::move(root)), env_(std::move(env)), live_(live) {
  while (!root_.empty() && root_.back() == '/') root_.pop_back();
  if (!root_.empty()) dir_ = std::make_shared<const RootDir>(root_);
}

std::string Host::Resolve(std::string_view path) const {
  std::string out = root_;
  if (path.empty() || path.front() != '/') out += '/';
  out += path;
  return out;
}

void Host::Record(std::string_view path) const {
  if (recorder_) recorder_->Add(std::string(path));
}

int Host::Open(std::string_view path, int flags) const {
  if (dir_ == nullptr) {
    int fd = ::open(Resolve(path).c_str(), flags | O_CLOEXEC);
    return fd < 0 ? -errno : fd;
  }
  if (dir_->fd < 0) return -dir_->err;
  return OpenInRoot(dir_->fd, path, flags);
}

Result<std::string> Host::Read(std::string_view path, size_t max_bytes, ReadMode mode) const {
  Record(path);
  const std::string full = Resolve(path);
  struct stat st {};
  if (dir_ != nullptr) {
    // Look before opening: opening a device node can have effects of its own.
    Fd probe(Open(path, O_PATH));
    if (probe.fd < 0) return ErrnoStatus(-probe.fd, full);
    if (::fstat(probe.fd, &st) != 0) return ErrnoStatus(errno, full);
    YS_RETURN_IF_ERROR(RefuseNonRegular(st, full));
  }
  // Non-blocking, so that not even the open waits on a FIFO.
  Fd fd(Open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY));
  if (fd.fd < 0) return ErrnoStatus(-fd.fd, full);
  if (::fstat(fd.fd, &st) != 0) return ErrnoStatus(errno, full);
  const bool device = mode == ReadMode::kDevice && S_ISCHR(st.st_mode) && dir_ == nullptr;
  if (!device) YS_RETURN_IF_ERROR(RefuseNonRegular(st, full));
  if (mode != ReadMode::kFirstLine && S_ISREG(st.st_mode) &&
      static_cast<uint64_t>(st.st_size) > max_bytes) {
    return Status::Invalid(full + ": file of " + std::to_string(st.st_size) +
                           " bytes is larger than the " + Bytes(max_bytes));
  }
  std::string out;
  char buf[65536];
  while (true) {
    ssize_t n = ::read(fd.fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (device && errno == EPIPE) continue;  // kmsg: records overwritten; the next read goes on
      if (errno == EAGAIN) break;              // a device with nothing more to give now
      return ErrnoStatus(errno, full);
    }
    if (n == 0) break;
    size_t old = out.size();
    out.append(buf, static_cast<size_t>(n));
    if (mode == ReadMode::kFirstLine && out.find('\n', old) != std::string::npos) break;
    if (out.size() > max_bytes) {
      return Status::Invalid(
          full +
          (mode == ReadMode::kFirstLine ? ": first line longer than the " : ": larger than the ") +
          Bytes(max_bytes));
    }
  }
  return out;
}

Result<std::string> Host::ReadFile(std::string_view path) const {
  return Read(path, kMaxFileBytes, ReadMode::kWhole);
}

Result<std::string> Host::ReadDevice(std::string_view path, size_t max_bytes) const {
  return Read(path, max_bytes, ReadMode::kDevice);
}

Result<std::string> Host::ReadLine(std::string_view path) const {
  auto content = Read(path, kMaxLineBytes, ReadMode::kFirstLine);
  if (!content.ok()) return content.status();
  std::string_view s = *content;
  size_t nl = s.find('\n');
  return std::string(Trim(nl == std::string_view::npos ? s : s.substr(0, nl)));
}

Result<int64_t> Host::ReadInt(std::string_view path) const {
  auto line = ReadLine(path);
  if (!line.ok()) return line.status();
  auto v = ParseInt(*line);
  if (!v) {
    std::string shown = line->substr(0, 40);
    return Status::Invalid(Resolve(path) + ": expected an integer, got \"" + shown + "\"");
  }
  return *v;
}

bool Host::Exists(std::string_view path) const {
  Record(path);
  Fd fd(Open(path, O_PATH | O_NOFOLLOW));  // as lstat: a dangling link exists
  return fd.fd >= 0;
}

bool Host::IsDirectory(std::string_view path) const {
  Fd fd(Open(path, O_PATH));
  struct stat st {};
  return fd.fd >= 0 && ::fstat(fd.fd, &st) == 0 && S_ISDIR(st.st_mode);
}

Result<std::vector<std::string>> Host::ListDir(std::string_view path) const {
  Record(path);
  std::string full = Resolve(path);
  int fd = Open(path, O_RDONLY | O_DIRECTORY | O_NONBLOCK);
  if (fd < 0) return ErrnoStatus(-fd, full);
  DIR* d = ::fdopendir(fd);
  if (d == nullptr) {
    int err = errno;
    ::close(fd);
    return ErrnoStatus(err, full);
  }
  std::vector<std::string> names;
  while (dirent* e = ::readdir(d)) {
    std::string_view n(e->d_name);
    if (n == "." || n == "..") continue;
    names.emplace_back(n);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end(),
            [](const std::string& a, const std::string& b) { return NaturalLess(a, b); });
  return names;
}

std::vector<std::string> Host::ListMatching(std::string_view dir, std::string_view glob) const {
  std::vector<std::string> out;
  auto names = ListDir(dir);
  if (!names.ok()) return out;
  for (auto& n : *names) {
    if (GlobMatch(glob, n)) out.push_back(std::move(n));
  }
  return out;
}

Result<std::string> Host::ReadLink(std::string_view path) const {
  Record(path);
  std::string full = Resolve(path);
  Fd fd(Open(path, O_PATH | O_NOFOLLOW));
  if (fd.fd < 0) return ErrnoStatus(-fd.fd, full);
  char buf[PATH_MAX];
  ssize_t n = ::readlinkat(fd.fd, "", buf, sizeof buf - 1);
  if (n < 0) return ErrnoStatus(errno, full);
  return std::string(buf, static_cast<size_t>(n));
}

Result<std::string> Host::RealPath(std::string_view path) const {
  Record(path);
  std::string full = Resolve(path);
  if (dir_ == nullptr) {
    char buf[PATH_MAX];
    if (::realpath(full.c_str(), buf) == nullptr) return ErrnoStatus(errno, full);
    return std::string(buf);
  }
  if (dir_->fd < 0) return ErrnoStatus(dir_->err, full);
  int err = 0;
  std::string canon = CanonicalInRoot(dir_->fd, path, &err);
  if (err != 0) return ErrnoStatus(err, full);
  return canon;
}

Result<std::string> Host::RegularFilePath(std::string_view path) const {
  auto canon = RealPath(path);
  if (!canon.ok()) return canon.status();
  const std::string full = Resolve(*canon);
  Fd fd(Open(*canon, O_PATH | O_NOFOLLOW));
  struct stat st {};
  if (fd.fd < 0) return ErrnoStatus(-fd.fd, full);
  if (::fstat(fd.fd, &st) != 0) return ErrnoStatus(errno, full);
  YS_RETURN_IF_ERROR(RefuseNonRegular(st, Resolve(path)));
  return full;
}

bool NaturalLess(std::string_view a, std::string_view b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) &&
        std::isdigit(static_cast<unsigned char>(b[j]))) {
      size_t i2 = i, j2 = j;
      while (i2 < a.size() && std::isdigit(static_cast<unsigned char>(a[i2]))) ++i2;
      while (j2 < b.size() && std::isdigit(static_cast<unsigned char>(b[j2]))) ++j2;
      std::string_view na = a.substr(i, i2 - i), nb = b.substr(j, j2 - j);
      while (na.size() > 1 && na.front() == '0') na.remove_prefix(1);
      while (nb.size() > 1 && nb.front() == '0') nb.remove_prefix(1);
      if (na.size() != nb.size()) return na.size() < nb.size();
      if (na != nb) return na < nb;
      i = i2;
      j = j2;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

}  // namespace ys::host
