#include "host/capture.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "core/text.h"
#include "host/kernel_log.h"
#include "host/tree_writer.h"

namespace ys::host {

namespace fs = std::filesystem;

bool IsCapturedEnvVar(std::string_view name) {
  static constexpr std::string_view kPrefixes[] = {"NCCL_",
                                                   "SLURM_",
                                                   "CUDA_",
                                                   "PYXIS_",
                                                   "ENROOT_",
                                                   "OMPI_COMM_WORLD_",
                                                   "PMIX_RANK",
                                                   "UCX_",
                                                   "NVIDIA_",
                                                   "GPU_DEVICE_ORDINAL",
                                                   "OMP_NUM_THREADS",
                                                   "LOCAL_RANK",
                                                   "RANK",
                                                   "WORLD_SIZE",
                                                   "container",
                                                   "HOSTNAME"};
  for (auto p : kPrefixes) {
    if (StartsWith(name, p)) return true;
  }
  return false;
}

namespace {

// "/proc/1234/status" of the capturing process is not what the tree means by /proc/self.
bool IsSelfLink(const std::string& logical) {
  return logical == "/proc/self" || logical == "/proc/thread-self";
}

// Reproduces the symbolic links met on the way to `path` (each with its own link text, placed
// at its real parent folder, so relative links keep working inside the tree) and returns the
// path with every link resolved, where the content itself belongs.
std::string MirrorLinks(const std::string& path, TreeWriter& tree, CaptureStats& stats) {
  std::string resolved;
  for (std::string_view comp : Split(path, '/')) {
    if (comp.empty()) continue;
    std::string candidate = resolved + "/" + std::string(comp);
    struct stat st {};
    if (IsSelfLink(candidate) || ::lstat(candidate.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) {
      resolved = candidate;
      continue;
    }
    char buf[4096];
    ssize_t n = ::readlink(candidate.c_str(), buf, sizeof buf - 1);
    std::error_code ec;
    fs::path real = fs::canonical(candidate, ec);
    if (n <= 0 || ec) {
      resolved = candidate;
      continue;
    }
    std::string target(buf, static_cast<size_t>(n));
    // Absolute targets would point out of the tree: make them relative to the link's folder.
    if (!target.empty() && target.front() == '/') {
      target = fs::path(target).lexically_relative(fs::path(candidate).parent_path()).string();
    }
    const std::string at = candidate.substr(1);
    if (!tree.IsSymlink(at) && tree.Symlink(at, target).ok()) stats.links++;
    resolved = real.string();
  }
  return resolved;
}

}  // namespace

Result<CaptureStats> WriteCapture(const Host& live, const std::set<std::string>& paths,
                                  const std::string& dir_name,
                                  const std::map<std::string, std::string>& extra_files) {
  auto tree = TreeWriter::Create(dir_name);
  if (!tree.ok()) return tree.status();

  CaptureStats stats;
  std::set<std::string> written;  // two recorded paths may lead through links to one file
  for (const std::string& path : paths) {
    if (path == "/proc/self/environ") continue;  // written filtered below
    std::string real = MirrorLinks(path, *tree, stats);
    if (written.count(real)) continue;
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) continue;  // recorded as absent: absent in the tree too
    if (S_ISDIR(st.st_mode)) {
      YS_RETURN_IF_ERROR(tree->MakeDirs(real.substr(1)));
      stats.directories++;
      continue;
    }
    // The kernel log is the one device the checks read (host/kernel_log.h); it becomes a file.
    auto content =
        path == kKernelLogPath ? live.ReadDevice(path, Host::kMaxFileBytes) : live.ReadFile(path);
    if (!content.ok()) {
      stats.unreadable++;
      continue;
    }
    YS_RETURN_IF_ERROR(tree->WriteFile(real.substr(1), *content));
    written.insert(real);
    stats.files++;
  }

  std::string env;
  for (const auto& [k, v] : live.env().vars()) {
    if (IsCapturedEnvVar(k)) env += k + "=" + v + std::string(1, '\0');
  }
  YS_RETURN_IF_ERROR(tree->WriteFile("proc/self/environ", env));
  for (const auto& [path, content] : extra_files) {
    YS_RETURN_IF_ERROR(
        tree->WriteFile(path.substr(!path.empty() && path.front() == '/' ? 1 : 0), content));
    stats.files++;
  }
  return stats;
}

}  // namespace ys::host
