#include "testing/scratch_copy.h"

#include <filesystem>

namespace ys::testing {

namespace fs = std::filesystem;

ScratchCopy::ScratchCopy(std::string fixture) : fixture_(std::move(fixture)), tmp_(fixture_) {}

void ScratchCopy::Write(std::string_view path, std::string_view content) {
  // Remember the topmost ancestor that does not exist yet (or the file itself).
  std::string p(path), top = p;
  for (fs::path a = fs::path(p).parent_path(); a != "/" && !a.empty(); a = a.parent_path()) {
    std::error_code ec;
    if (fs::exists(fs::symlink_status(tmp_.root() + a.string(), ec))) break;
    top = a.string();
  }
  touched_.insert(top);
  tmp_.Write(path, content);
}

void ScratchCopy::Remove(std::string_view path) {
  touched_.insert(std::string(path));
  tmp_.Remove(path);
}

void ScratchCopy::Reset() {
  for (const auto& p : touched_) {
    fs::path dst = tmp_.root() + p, src = FixturePath(fixture_) + p;
    std::error_code ec;
    fs::remove_all(dst, ec);
    if (fs::exists(fs::symlink_status(src, ec))) {
      fs::create_directories(dst.parent_path());
      fs::copy(src, dst, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
    }
  }
  touched_.clear();
}

}  // namespace ys::testing
