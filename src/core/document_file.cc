#include "core/document_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ys {
namespace {

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  int Release() {
    int f = fd;
    fd = -1;
    return f;
  }
};

const char* FileTypeName(mode_t mode) {
  if (S_ISDIR(mode)) return "is a directory";
  if (S_ISFIFO(mode)) return "is a FIFO";
  if (S_ISSOCK(mode)) return "is a socket";
  if (S_ISCHR(mode)) return "is a character device";
  if (S_ISBLK(mode)) return "is a block device";
  return "is not a regular file";
}

Status OpenError(const std::string& path, int err) {
  if (err == ENOENT) return Status::NotFound(path + ": no such file");
  if (err == EACCES) return Status::Denied(path + ": permission denied");
  return Status::Io(path + ": cannot open: " + std::strerror(err));
}

// Opens PATH read-only without blocking (a FIFO with no writer would block a plain open) and
// refuses anything but a regular file.
Result<int> OpenRegular(const std::string& path, std::string_view what) {
  Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)};
  if (f.fd < 0) return OpenError(path, errno);
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) return Status::Io(path + ": cannot stat: " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) {
    return Status::Invalid(path + ": " + FileTypeName(st.st_mode) + ", expected a regular file (" +
                           std::string(what) + ")");
  }
  // Regular files never block; clear the flag so stdio reads behave normally.
  ::fcntl(f.fd, F_SETFL, ::fcntl(f.fd, F_GETFL) & ~O_NONBLOCK);
  return f.Release();
}

}  // namespace

size_t MaxBytesOf(DocumentKind kind) {
  switch (kind) {
    case DocumentKind::kJson:
      return kMaxJsonDocumentBytes;
    case DocumentKind::kState:
      return kMaxStateDocumentBytes;
    case DocumentKind::kToml:
      return kMaxTomlDocumentBytes;
    case DocumentKind::kKernelLog:
      return kMaxKernelLogBytes;
  }
  return kMaxStateDocumentBytes;
}

const char* DocumentKindName(DocumentKind kind) {
  switch (kind) {
    case DocumentKind::kJson:
      return "a JSON document";
    case DocumentKind::kState:
      return "a JSON state file";
    case DocumentKind::kToml:
      return "a TOML file";
    case DocumentKind::kKernelLog:
      return "a kernel log";
  }
  return "a document";
}

Result<std::string> ReadDocumentFile(const std::string& path, DocumentKind kind) {
  return ReadDocumentFile(path, MaxBytesOf(kind), DocumentKindName(kind));
}

Result<std::string> ReadDocumentFile(const std::string& path, size_t max_bytes,
                                     std::string_view what) {
  auto opened = OpenRegular(path, what);
  if (!opened.ok()) return opened.status();
  Fd f{*opened};
  std::string text;
  char buf[1 << 16];
  while (true) {
    ssize_t n = ::read(f.fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::Io(path + ": read error: " + std::strerror(errno));
    }
    if (n == 0) break;
    if (text.size() + static_cast<size_t>(n) > max_bytes) {
      return Status::Invalid(path + ": larger than " + std::to_string(max_bytes) +
                             " bytes, the limit for " + std::string(what));
    }
    text.append(buf, static_cast<size_t>(n));
  }
  return text;
}

Result<DocumentStream> OpenDocumentStream(const std::string& path, std::string_view what) {
  auto opened = OpenRegular(path, what);
  if (!opened.ok()) return opened.status();
  std::FILE* file = ::fdopen(*opened, "rb");
  if (file == nullptr) {
    int err = errno;
    ::close(*opened);
    return Status::Io(path + ": cannot open: " + std::strerror(err));
  }
  return DocumentStream(file, &std::fclose);
}

}  // namespace ys
