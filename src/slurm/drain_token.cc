#include "slurm/drain_token.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <pwd.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "core/atomic_file.h"
#include "core/path_component.h"

namespace ys::slurm {

namespace {

constexpr size_t kIdBytes = 8;  // 16 hex digits

std::string Errno() { return std::strerror(errno); }

bool IsId(std::string_view s) {
  if (s.size() != 2 * kIdBytes) return false;
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// mkdir -p with mode 0700 for what it creates; existing components are left as they are.
Status MakeDirs(const std::string& dir) {
  std::string cur;
  size_t i = 0;
  while (i <= dir.size()) {
    size_t e = dir.find('/', i);
    if (e == std::string::npos) e = dir.size();
    cur = dir.substr(0, e);
    if (!cur.empty() && ::mkdir(cur.c_str(), 0700) != 0 && errno != EEXIST) {
      return Status::Io(cur + ": cannot create (" + Errno() + ")");
    }
    i = e + 1;
  }
  return Status::Ok();
}

}  // namespace

std::string DefaultDrainStateDir() {
  if (::geteuid() == 0) return "/var/lib/yardstick/healthcheck";
  if (const char* x = std::getenv("XDG_STATE_HOME"); x != nullptr && x[0] == '/') {
    return std::string(x) + "/yardstick/healthcheck";
  }
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr && *home != '\0' ? home : "/nonexistent") +
         "/.local/state/yardstick/healthcheck";
}

std::string EffectiveUserName() {
  uid_t uid = ::geteuid();
  struct passwd pw {};
  struct passwd* found = nullptr;
  char buf[4096];
  if (::getpwuid_r(uid, &pw, buf, sizeof buf, &found) == 0 && found != nullptr &&
      found->pw_name != nullptr) {
    return found->pw_name;
  }
  return std::to_string(uid);
}

Result<DrainTokenStore> DrainTokenStore::Open(const std::string& dir) {
  if (dir.empty()) return Status::Invalid("--state-dir: empty path");
  YS_RETURN_IF_ERROR(MakeDirs(dir));
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) return Status::Io(dir + ": " + Errno());
  auto deny = [&](const std::string& why) {
    return Status::Denied(
        fmt::format("{}: {}; healthcheck records the ids of its drains there and must be the only "
                    "one able to write them (expected a directory owned by {}, mode 0700)",
                    dir, why, EffectiveUserName()));
  };
  if (S_ISLNK(st.st_mode)) return deny("a symbolic link");
  if (!S_ISDIR(st.st_mode)) return deny("not a directory");
  if (st.st_uid != ::geteuid()) return deny(fmt::format("owned by uid {}", st.st_uid));
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
    return deny(fmt::format("writable by others (mode {:o})", st.st_mode & 0777));
  return DrainTokenStore(dir);
}

Result<std::string> DrainTokenStore::FileFor(const std::string& node) const {
  YS_RETURN_IF_ERROR(ValidatePathComponent("Slurm node name", node));
  return dir_ + "/" + node + ".drain-id";
}

Result<std::string> DrainTokenStore::Load(const std::string& node) const {
  auto path = FileFor(node);
  if (!path.ok()) return path.status();
  int fd = ::open(path->c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return std::string();
    return Status::Invalid(*path + ": cannot open (" + Errno() + ")");
  }
  struct stat st {};
  char buf[64];
  ssize_t n = -1;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::geteuid())
    n = ::read(fd, buf, sizeof buf);
  ::close(fd);
  std::string id = n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
  while (!id.empty() && id.back() == '\n') id.pop_back();
  if (!IsId(id)) {
    return Status::Invalid(*path + ": expected a regular file of this user holding a drain id of " +
                           std::to_string(2 * kIdBytes) + " hex digits");
  }
  return id;
}

Result<std::string> DrainTokenStore::Create(const std::string& node) const {
  auto path = FileFor(node);
  if (!path.ok()) return path.status();
  unsigned char raw[kIdBytes];
  if (::getrandom(raw, sizeof raw, 0) != static_cast<ssize_t>(sizeof raw)) {
    return Status::Io("getrandom: " + Errno());
  }
  std::string id;
  for (unsigned char b : raw) id += fmt::format("{:02x}", b);
  // Atomic and durable: no link is followed, no reader sees half an id, a crash keeps it.
  Status s = WriteFileAtomic(*path, id + "\n", {.durable = true, .mode = 0600});
  if (!s.ok()) return Status::Io(*path + ": cannot record the drain id (" + s.message() + ")");
  return id;
}

Status DrainTokenStore::Remove(const std::string& node) const {
  auto path = FileFor(node);
  if (!path.ok()) return path.status();
  if (::unlink(path->c_str()) != 0 && errno != ENOENT)
    return Status::Io(*path + ": cannot remove (" + Errno() + ")");
  return Status::Ok();
}

}  // namespace ys::slurm
