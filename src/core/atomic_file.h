// The one writer of whole files that readers may open at any moment (run documents, reports,
// checkpoints, heartbeats, drain ids, sbatch scripts): the content goes to a fresh file beside
// the target (created exclusively, no link followed), then is renamed over it, so a reader sees
// the old file or the new one, never half of one. A failure removes the fresh file and leaves
// the target as it was.
//
// Thread safety: safe to call from several threads for different paths; two writers of one path
// in one process race (the last rename wins).
#ifndef YARDSTICK_CORE_ATOMIC_FILE_H_
#define YARDSTICK_CORE_ATOMIC_FILE_H_

#include <sys/types.h>

#include <string>
#include <string_view>

#include "core/status.h"

namespace ys {

struct AtomicWriteOptions {
  // fsync the file before the rename and its folder after it: the new content survives a crash
  // or a power cut once the call returns (burn-in checkpoints, drain ids).
  bool durable = false;
  // Permission bits of the new file (before the umask).
  mode_t mode = 0644;
};

// Replaces `path` with `content`. On failure: Io "<path>: cannot write (<why>)".
[[nodiscard]] Status WriteFileAtomic(const std::string& path, std::string_view content,
                                     const AtomicWriteOptions& options = {});

}  // namespace ys

#endif  // YARDSTICK_CORE_ATOMIC_FILE_H_
