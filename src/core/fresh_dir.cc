#include "core/fresh_dir.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace ys {

Result<std::string> MakeFreshDirectory(const std::string& base) {
  std::string clean = base;
  while (clean.size() > 1 && clean.back() == '/') clean.pop_back();
  if (clean.empty()) return Status::Invalid("an empty directory name");
  std::filesystem::path parent = std::filesystem::path(clean).parent_path();
  if (!parent.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(parent, ec);
    if (ec)
      return Status::Invalid(parent.string() + ": cannot create the directory (" + ec.message() +
                             ")");
  }
  constexpr int kMaxSuffix = 10000;
  for (int n = 1; n <= kMaxSuffix; ++n) {
    std::string candidate = n == 1 ? clean : clean + "-" + std::to_string(n);
    if (::mkdir(candidate.c_str(), 0777) == 0) return candidate;
    if (errno != EEXIST) {
      return Status::Invalid(candidate + ": cannot create the directory (" + std::strerror(errno) +
                             ")");
    }
  }
  return Status::Invalid(clean + ": " + std::to_string(kMaxSuffix) +
                         " directories of this name exist already");
}

}  // namespace ys
