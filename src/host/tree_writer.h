// Writes a new tree of files, directories and symbolic links below one directory without ever
// following a link found there: every step is relative to an open directory (openat, mkdirat,
// symlinkat), directories are entered with O_NOFOLLOW, files are created with O_EXCL |
// O_NOFOLLOW. A link or file someone placed in the tree, even while it is written, makes the
// write fail instead of reaching outside the tree. Links this writer creates are never followed
// by it either. Used by `capture`, whose target may be a directory other users can write.
//
// Thread safety: none; one writer per tree.
#ifndef YARDSTICK_HOST_TREE_WRITER_H_
#define YARDSTICK_HOST_TREE_WRITER_H_

#include <string>
#include <string_view>

#include "core/status.h"

namespace ys::host {

class TreeWriter {
 public:
  // Creates `dir` (its parents too; mode 0755 less the umask), or opens it when it exists as an
  // empty directory. Refused: a `dir` that is a symbolic link, not a directory, or not empty.
  static Result<TreeWriter> Create(const std::string& dir);

  TreeWriter(TreeWriter&& other) noexcept : dir_(std::move(other.dir_)), fd_(other.fd_) {
    other.fd_ = -1;
  }
  TreeWriter& operator=(TreeWriter&&) = delete;
  ~TreeWriter();

  // `rel` is relative to the tree ("sys/class/net"); "." and ".." components are refused.
  Status MakeDirs(std::string_view rel);
  // A new regular file (mode 0644 less the umask) with `content`; its directories are made.
  // Refused when something already exists at `rel`.
  Status WriteFile(std::string_view rel, std::string_view content);
  // A symbolic link at `rel` with `target` as its text. Ok when a link is already there.
  Status Symlink(std::string_view rel, const std::string& target);
  // True when `rel` is a symbolic link in the tree (its directories are not followed either).
  bool IsSymlink(std::string_view rel) const;

  const std::string& dir() const { return dir_; }

 private:
  TreeWriter(std::string dir, int fd) : dir_(std::move(dir)), fd_(fd) {}
  // An fd for the directory holding `rel`'s last component, made when `create`; -1 and the
  // reason in `*why` when it cannot be reached without following a link.
  int OpenParent(std::string_view rel, bool create, std::string* leaf, std::string* why) const;

  std::string dir_;
  int fd_ = -1;
};

}  // namespace ys::host

#endif  // YARDSTICK_HOST_TREE_WRITER_H_
