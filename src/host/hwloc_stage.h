// What hwloc sees of a recorded host tree. hwloc's Linux backend opens files under HWLOC_FSROOT
// itself, with blocking reads and the process's own view of symbolic links: pointed at a tree
// nobody here wrote, a FIFO hangs it and a link to /etc leaves the tree. So it is pointed at a
// stage instead: a private temporary directory holding a copy, made through Host (resolved
// inside the root, regular files only, each size-capped), of just the files hwloc reads for CPUs,
// caches and NUMA nodes. The stage holds directories and regular files that yardstick wrote, and
// nothing else.
//
// Thread safety: a stage belongs to one caller.
#ifndef YARDSTICK_HOST_HWLOC_STAGE_H_
#define YARDSTICK_HOST_HWLOC_STAGE_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "host/host.h"

namespace ys::host {

// The files hwloc's Linux backend reads for CPUs, caches and NUMA nodes (hwloc 2.x,
// topology-linux.c), as globs over root-relative paths.
const std::vector<std::string_view>& HwlocInputs();

class HwlocStage {
 public:
  // Copies the HwlocInputs() present under `host`'s root. Absent files are left out, as hwloc
  // would find them absent; a file that is not a regular file, or too large, is an error naming
  // it (Invalid), and so is a tree whose inputs exceed kMaxStageBytes or kMaxStageFiles. Io when
  // the stage itself cannot be written.
  static Result<std::unique_ptr<HwlocStage>> Create(const Host& host);
  ~HwlocStage();  // removes the stage
  HwlocStage(const HwlocStage&) = delete;
  HwlocStage& operator=(const HwlocStage&) = delete;

  // The directory to give hwloc as its file-system root.
  const std::string& dir() const { return dir_; }
  size_t files() const { return files_; }

  static constexpr size_t kMaxStageBytes = 64u << 20;
  static constexpr size_t kMaxStageFiles = 200000;

 private:
  explicit HwlocStage(std::string dir) : dir_(std::move(dir)) {}
  Status Copy(const Host& host, std::string_view pattern);
  Status CopyFrom(const Host& host, const std::string& at, const std::vector<std::string>& rest,
                  size_t i);

  std::string dir_;
  size_t files_ = 0;
  size_t bytes_ = 0;
};

}  // namespace ys::host

#endif  // YARDSTICK_HOST_HWLOC_STAGE_H_
