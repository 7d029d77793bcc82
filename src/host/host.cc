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
    case ENOTDIR: return Status::NotFound(msg);
    case EACCES:
    case EPERM: return Status::Denied(msg);
    default: return Status::Io(msg);
  }
}

}  // namespace

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

Result<std::string> Host::ReadFile(std::string_view path) const {
  Record(path);
  std::string full = Resolve(path);
  int fd = ::open(full.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return ErrnoStatus(errno, full);
  struct stat st {};
  if (::fstat(fd, &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      ::close(fd);
      return Status::Invalid(full + ": expected a file, found a directory");
    }
    if (S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > kMaxFileBytes) {
      ::close(fd);
      return Status::Invalid(full + ": file of " + std::to_string(st.st_size) +
                             " bytes is larger than the " + std::to_string(kMaxFileBytes) +
                             "-byte limit");
    }
  }
  std::string out;
  char buf[65536];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      if (err == EAGAIN) break;  // a character device with nothing more to give
      return ErrnoStatus(err, full);
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
    if (out.size() > kMaxFileBytes) {
      ::close(fd);
      return Status::Invalid(full + ": larger than the " + std::to_string(kMaxFileBytes) +
                             "-byte limit");
    }
  }
  ::close(fd);
  return out;
}

Result<std::string> Host::ReadLine(std::string_view path) const {
  auto content = ReadFile(path);
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
  struct stat st {};
  return ::lstat(Resolve(path).c_str(), &st) == 0;
}

bool Host::IsDirectory(std::string_view path) const {
  struct stat st {};
  return ::stat(Resolve(path).c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

Result<std::vector<std::string>> Host::ListDir(std::string_view path) const {
  Record(path);
  std::string full = Resolve(path);
  DIR* d = ::opendir(full.c_str());
  if (d == nullptr) return ErrnoStatus(errno, full);
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
  char buf[PATH_MAX];
  ssize_t n = ::readlink(full.c_str(), buf, sizeof buf - 1);
  if (n < 0) return ErrnoStatus(errno, full);
  return std::string(buf, static_cast<size_t>(n));
}

Result<std::string> Host::RealPath(std::string_view path) const {
  Record(path);
  std::string full = Resolve(path);
  char buf[PATH_MAX];
  if (::realpath(full.c_str(), buf) == nullptr) return ErrnoStatus(errno, full);
  std::string canon(buf);
  if (root_.empty()) return canon;
  if (canon == root_) return std::string("/");
  if (!StartsWith(canon, root_ + "/")) {
    return Status::Invalid(full + ": resolves outside the host root " + root_);
  }
  return canon.substr(root_.size());
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
