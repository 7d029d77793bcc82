#include "core/scratch_dir.h"

#include <stdlib.h>

#include <filesystem>
#include <system_error>

namespace ys {

namespace fs = std::filesystem;

Result<ScratchDir> ScratchDir::Make(std::string_view prefix) {
  std::error_code ec;
  fs::path tmp = fs::temp_directory_path(ec);
  if (ec) tmp = "/tmp";
  std::string pattern = (tmp / (std::string(prefix) + "-XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    return Status::Io("cannot create a temporary directory under " + tmp.string());
  }
  return ScratchDir(pattern);
}

ScratchDir& ScratchDir::operator=(ScratchDir&& o) noexcept {
  if (this != &o) {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
    path_ = std::move(o.path_);
    o.path_.clear();
  }
  return *this;
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  if (!path_.empty()) fs::remove_all(path_, ec);
}

}  // namespace ys
