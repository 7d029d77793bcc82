// A private directory under the system's temporary directory ($TMPDIR, else /tmp), made with
// mkdtemp (mode 0700, a name no other process holds) and removed with everything in it when the
// owner goes out of scope. Move-only.
#ifndef YARDSTICK_CORE_SCRATCH_DIR_H_
#define YARDSTICK_CORE_SCRATCH_DIR_H_

#include <string>
#include <string_view>

#include "core/status.h"

namespace ys {

class ScratchDir {
 public:
  // `prefix` names the directory ("yardstick-report" -> /tmp/yardstick-report-Ab3xYz). Io naming
  // the temporary directory when none can be made.
  static Result<ScratchDir> Make(std::string_view prefix);
  ScratchDir(ScratchDir&& o) noexcept : path_(std::move(o.path_)) { o.path_.clear(); }
  ScratchDir& operator=(ScratchDir&& o) noexcept;
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir();

  const std::string& path() const { return path_; }

 private:
  explicit ScratchDir(std::string p) : path_(std::move(p)) {}
  std::string path_;
};

}  // namespace ys

#endif  // YARDSTICK_CORE_SCRATCH_DIR_H_
