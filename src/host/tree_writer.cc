#include "host/tree_writer.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include "core/fd_write.h"
#include "core/text.h"

namespace ys::host {

namespace {

std::string Errno(int e) { return std::strerror(e); }

// The components of a relative path; false for an absolute path, "." or "..".
bool Components(std::string_view rel, std::vector<std::string>* out) {
  if (!rel.empty() && rel.front() == '/') return false;
  for (std::string_view c : Split(rel, '/')) {
    if (c.empty()) continue;
    if (c == "." || c == "..") return false;
    out->emplace_back(c);
  }
  return !out->empty();
}

bool DirIsEmpty(int fd) {
  int dup = ::openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dup < 0) return false;
  DIR* d = ::fdopendir(dup);
  if (d == nullptr) {
    ::close(dup);
    return false;
  }
  bool empty = true;
  while (dirent* e = ::readdir(d)) {
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) empty = false;
  }
  ::closedir(d);
  return empty;
}

}  // namespace

Result<TreeWriter> TreeWriter::Create(const std::string& dir) {
  if (dir.empty()) return Status::Invalid("capture directory: empty path");
  std::string trimmed = dir;
  while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.pop_back();
  std::error_code ec;
  std::filesystem::path parent = std::filesystem::path(trimmed).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  if (ec) return Status::Io(parent.string() + ": cannot create (" + ec.message() + ")");
  bool created = ::mkdir(trimmed.c_str(), 0755) == 0;
  if (!created && errno != EEXIST)
    return Status::Io(dir + ": cannot create (" + Errno(errno) + ")");
  int fd = ::open(trimmed.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    struct stat st {};
    if (::lstat(trimmed.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
      return Status::Invalid(
          dir + ": a symbolic link; capture writes a new tree into a directory of its own");
    }
    if (e == ENOTDIR) return Status::Invalid(dir + ": not a directory");
    return Status::Io(dir + ": cannot open (" + Errno(e) + ")");
  }
  if (!created && !DirIsEmpty(fd)) {
    ::close(fd);
    return Status::Invalid(dir + ": exists and is not empty; capture writes a new tree");
  }
  return TreeWriter(dir, fd);
}

TreeWriter::~TreeWriter() {
  if (fd_ >= 0) ::close(fd_);
}

int TreeWriter::OpenParent(std::string_view rel, bool create, std::string* leaf,
                           std::string* why) const {
  std::vector<std::string> parts;
  if (!Components(rel, &parts)) {
    *why = "not a relative path inside the tree";
    return -1;
  }
  *leaf = parts.back();
  parts.pop_back();
  int cur = ::openat(fd_, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  for (const std::string& p : parts) {
    if (create && ::mkdirat(cur, p.c_str(), 0755) != 0 && errno != EEXIST) {
      *why = p + ": cannot create (" + Errno(errno) + ")";
      ::close(cur);
      return -1;
    }
    int next = ::openat(cur, p.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int e = errno;
    ::close(cur);
    if (next < 0) {
      *why = p + (e == ELOOP || e == ENOTDIR
                      ? ": a link or a file where a directory belongs; not followed"
                      : ": cannot open (" + Errno(e) + ")");
      return -1;
    }
    cur = next;
  }
  return cur;
}

Status TreeWriter::MakeDirs(std::string_view rel) {
  std::string leaf, why;
  int parent = OpenParent(std::string(rel) + "/x", /*create=*/true, &leaf, &why);
  if (parent < 0) return Status::Io(dir_ + "/" + std::string(rel) + ": " + why);
  ::close(parent);
  return Status::Ok();
}

Status TreeWriter::WriteFile(std::string_view rel, std::string_view content) {
  std::string leaf, why;
  const std::string shown = dir_ + "/" + std::string(rel);
  int parent = OpenParent(rel, /*create=*/true, &leaf, &why);
  if (parent < 0) return Status::Io(shown + ": " + why);
  int fd =
      ::openat(parent, leaf.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  int e = errno;
  ::close(parent);
  if (fd < 0) {
    return Status::Io(shown + (e == EEXIST ? ": already exists in the tree; not overwritten"
                                           : ": cannot create (" + Errno(e) + ")"));
  }
  if (Status s = WriteAll(fd, content, shown); !s.ok()) {
    ::close(fd);
    return s;
  }
  if (::close(fd) != 0) return Status::Io(shown + ": write failed (" + Errno(errno) + ")");
  return Status::Ok();
}

Status TreeWriter::Symlink(std::string_view rel, const std::string& target) {
  std::string leaf, why;
  const std::string shown = dir_ + "/" + std::string(rel);
  int parent = OpenParent(rel, /*create=*/true, &leaf, &why);
  if (parent < 0) return Status::Io(shown + ": " + why);
  int rc = ::symlinkat(target.c_str(), parent, leaf.c_str());
  int e = errno;
  struct stat st {};
  bool is_link = rc != 0 && e == EEXIST &&
                 ::fstatat(parent, leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                 S_ISLNK(st.st_mode);
  ::close(parent);
  if (rc != 0 && !is_link) return Status::Io(shown + ": cannot create the link (" + Errno(e) + ")");
  return Status::Ok();
}

bool TreeWriter::IsSymlink(std::string_view rel) const {
  std::string leaf, why;
  int parent = OpenParent(rel, /*create=*/false, &leaf, &why);
  if (parent < 0) return false;
  struct stat st {};
  bool link = ::fstatat(parent, leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
  ::close(parent);
  return link;
}

}  // namespace ys::host
