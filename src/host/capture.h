// Capture: writes what was read from this machine into a host tree that `--root` replays, so a
// field report becomes a test. Paths come from a PathRecorder attached to the live Host while
// the checks ran. Symbolic links on the way to each path are reproduced (sysfs is made of them),
// /proc/self is written as a directory, and the environment is kept only for the variables the
// checks judge (NCCL_*, SLURM_*, CUDA_*, ...), never secrets.
#ifndef YARDSTICK_HOST_CAPTURE_H_
#define YARDSTICK_HOST_CAPTURE_H_

#include <map>
#include <set>
#include <string>

#include "core/status.h"
#include "host/host.h"

namespace ys::host {

struct CaptureStats {
  int files = 0;
  int directories = 0;
  int links = 0;
  int unreadable = 0;  // recorded paths that could not be read (permissions, vanished processes)
};

// Copies each recorded path from the live host into `dir` (created if needed; must be empty or
// absent, and not a symbolic link). Written through host/tree_writer.h: no link found in `dir`,
// even one placed there while it is written, is ever followed, and no file is overwritten.
// `extra_files` are written verbatim (host path -> content), e.g. recorded measurements.
Result<CaptureStats> WriteCapture(const Host& live, const std::set<std::string>& paths,
                                  const std::string& dir,
                                  const std::map<std::string, std::string>& extra_files);

// True for environment variables a capture keeps.
bool IsCapturedEnvVar(std::string_view name);

}  // namespace ys::host

#endif  // YARDSTICK_HOST_CAPTURE_H_
