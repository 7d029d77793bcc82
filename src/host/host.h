// Host: the read-only view of a machine. Every absolute path a unit reads goes through here and
// is resolved under the host root ("/" in production, a recorded tree in tests), so that a field
// report captured with `yardstick capture` replays exactly.
//
// A recorded tree is data nobody here wrote, so every path under it is resolved inside it
// (host/rooted_open.h): a link to /etc/passwd or ../../.. names a file of the tree, never one of
// this machine. Only regular files are read (a FIFO, socket or device is refused by name, and
// nothing blocks), and every read has a size cap.
//
// Thread safety: reads are safe from several threads. When a recorder is attached, every path
// read is added to it (under its own lock); `yardstick capture` uses that to copy what the checks
// read.
#ifndef YARDSTICK_HOST_HOST_H_
#define YARDSTICK_HOST_HOST_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "host/environment.h"

namespace ys::host {

// Collects the absolute (root-relative) paths that were read, listed or followed.
class PathRecorder {
 public:
  void Add(std::string path);
  std::set<std::string> Paths() const;

 private:
  mutable std::mutex mu_;
  std::set<std::string> paths_;
};

class Host {
 public:
  // Files larger than this are refused with an error naming the file, never read whole.
  static constexpr size_t kMaxFileBytes = 16u << 20;
  // ReadLine and ReadInt read at most this much (sysfs attributes are one page): a first line
  // longer than this is refused.
  static constexpr size_t kMaxLineBytes = 1u << 20;

  // The running machine: root "/", the real environment, and live measurements allowed.
  static Host Live();
  // A recorded tree. The environment comes from <root>/proc/self/environ when present.
  static Result<Host> AtRoot(const std::string& root);

  Host(std::string root, Environment env, bool live);

  const std::string& root() const { return root_; }
  bool live() const { return live_; }
  const Environment& env() const { return env_; }
  Environment& mutable_env() { return env_; }

  // "/sys/x" -> "<root>/sys/x". `path` must be absolute.
  std::string Resolve(std::string_view path) const;

  // Whole regular file. NotFound when absent; Invalid when larger than kMaxFileBytes or not a
  // regular file ("<path>: a FIFO, expected a regular file"); Io otherwise.
  Result<std::string> ReadFile(std::string_view path) const;
  // What a character device such as /dev/kmsg holds now, read without blocking until it has
  // nothing more to give or `max_bytes` (then Invalid); a regular file is read as ReadFile does.
  // Devices are read on the live host only: under a recorded root this is ReadFile.
  Result<std::string> ReadDevice(std::string_view path, size_t max_bytes) const;
  // First line, trimmed. An empty file gives "".
  Result<std::string> ReadLine(std::string_view path) const;
  // A single integer file ("1\n"); Invalid names the path and the content when it is not one.
  Result<int64_t> ReadInt(std::string_view path) const;
  bool Exists(std::string_view path) const;
  bool IsDirectory(std::string_view path) const;
  // Entry names, sorted, without "." and "..".
  Result<std::vector<std::string>> ListDir(std::string_view path) const;
  // Entries of `dir` whose names match a glob ("cpu[0-9]*"), sorted naturally (cpu2 < cpu10).
  std::vector<std::string> ListMatching(std::string_view dir, std::string_view glob) const;
  // The target text of a symbolic link.
  Result<std::string> ReadLink(std::string_view path) const;
  // Canonical absolute path, root-relative, following links (inside the root).
  Result<std::string> RealPath(std::string_view path) const;
  // For a library that opens a file itself (a recorded NVML state, a timeline): the real path of
  // `path` with every link already followed inside the root ("<root>/<canonical>"), once it is
  // known to be a regular file. NotFound when absent; Invalid when not a regular file.
  Result<std::string> RegularFilePath(std::string_view path) const;

  void set_recorder(std::shared_ptr<PathRecorder> r) { recorder_ = std::move(r); }

 private:
  struct RootDir;
  enum class ReadMode { kWhole, kFirstLine, kDevice };

  void Record(std::string_view path) const;
  // `path` opened with open(2) flags: directly on the live host, inside the root otherwise.
  // Returns the descriptor or -errno.
  int Open(std::string_view path, int flags) const;
  Result<std::string> Read(std::string_view path, size_t max_bytes, ReadMode mode) const;

  std::string root_;                    // without trailing slash; "" for "/"
  std::shared_ptr<const RootDir> dir_;  // the root, held open; null for "/"
  Environment env_;
  bool live_;
  std::shared_ptr<PathRecorder> recorder_;
};

// Natural ordering for names with numbers: "cpu2" < "cpu10", "state9" < "state10".
bool NaturalLess(std::string_view a, std::string_view b);

}  // namespace ys::host

#endif  // YARDSTICK_HOST_HOST_H_
