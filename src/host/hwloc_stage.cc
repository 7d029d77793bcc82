#include "host/hwloc_stage.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "core/fd_write.h"
#include "core/text.h"

namespace ys::host {
namespace {

bool IsGlob(std::string_view s) { return s.find_first_of("*?[") != std::string_view::npos; }

std::vector<std::string> Components(std::string_view path) {
  std::vector<std::string> out;
  for (auto part : Split(path, '/')) {
    if (!part.empty()) out.emplace_back(part);
  }
  return out;
}

Status MakeDir(const std::string& path) {
  if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) {
    return Status::Io(path + ": " + std::strerror(errno));
  }
  return Status::Ok();
}

Status WriteNew(const std::string& path, std::string_view content) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return Status::Io(path + ": " + std::strerror(errno));
  Status s = WriteAll(fd, content, path);
  ::close(fd);
  return s;
}

}  // namespace

const std::vector<std::string_view>& HwlocInputs() {
  static const std::vector<std::string_view> kInputs = {
      "/proc/cpuinfo",
      "/proc/meminfo",
      "/sys/devices/system/cpu/online",
      "/sys/devices/system/cpu/possible",
      "/sys/devices/system/cpu/cpu[0-9]*/online",
      "/sys/devices/system/cpu/cpu[0-9]*/cpu_capacity",
      "/sys/devices/system/cpu/cpu[0-9]*/topology/*",
      "/sys/devices/system/cpu/cpu[0-9]*/cache/index[0-9]*/*",
      "/sys/devices/system/cpu/cpu[0-9]*/cpufreq/base_frequency",
      "/sys/devices/system/cpu/cpu[0-9]*/cpufreq/cpuinfo_max_freq",
      "/sys/devices/system/cpu/cpu[0-9]*/acpi_cppc/nominal_freq",
      "/sys/devices/system/cpu/cpu[0-9]*/regs/identification/midr_el1",
      "/sys/devices/system/node/online",
      "/sys/devices/system/node/possible",
      "/sys/devices/system/node/node[0-9]*/cpumap",
      "/sys/devices/system/node/node[0-9]*/meminfo",
      "/sys/devices/system/node/node[0-9]*/distance",
      "/sys/devices/system/node/node[0-9]*/hugepages/hugepages-*/*",
      "/sys/devices/system/node/node[0-9]*/access[01]/initiators/*",
      "/sys/devices/system/node/node[0-9]*/memory_side_cache/index[0-9]*/*",
      "/sys/kernel/mm/hugepages/hugepages-*/*",
  };
  return kInputs;
}

Result<std::unique_ptr<HwlocStage>> HwlocStage::Create(const Host& host) {
  std::error_code ec;
  std::filesystem::path tmp = std::filesystem::temp_directory_path(ec);
  if (ec) tmp = "/tmp";
  std::string templ = (tmp / "yardstick-hwloc-XXXXXX").string();
  if (::mkdtemp(templ.data()) == nullptr) {
    return Status::Io(templ + ": cannot create a directory for hwloc: " + std::strerror(errno));
  }
  std::unique_ptr<HwlocStage> stage(new HwlocStage(templ));
  for (auto pattern : HwlocInputs()) YS_RETURN_IF_ERROR(stage->Copy(host, pattern));
  return stage;
}

HwlocStage::~HwlocStage() {
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

Status HwlocStage::Copy(const Host& host, std::string_view pattern) {
  return CopyFrom(host, "", Components(pattern), 0);
}

// `at` is a root-relative directory ("" for the root) already made in the stage; copies what
// rest[i..] matches under it.
Status HwlocStage::CopyFrom(const Host& host, const std::string& at,
                            const std::vector<std::string>& rest, size_t i) {
  std::vector<std::string> names;
  if (IsGlob(rest[i])) {
    names = host.ListMatching(at.empty() ? "/" : at, rest[i]);
  } else {
    names.push_back(rest[i]);
  }
  const bool leaf = i + 1 == rest.size();
  for (const auto& name : names) {
    std::string path = at + "/" + name;
    if (host.IsDirectory(path)) {
      // A directory is made even when nothing in it is copied: hwloc looks at which exist.
      YS_RETURN_IF_ERROR(MakeDir(dir_ + path));
      if (!leaf) YS_RETURN_IF_ERROR(CopyFrom(host, path, rest, i + 1));
      continue;
    }
    if (!leaf) continue;
    auto content = host.ReadFile(path);
    if (!content.ok()) {
      // Absent (or a link to nothing inside the root) or unreadable: hwloc would not see it
      // either. Anything else (a FIFO, a device, too large) is no tree to hand to hwloc.
      StatusCode code = content.status().code();
      if (code == StatusCode::kNotFound || code == StatusCode::kPermissionDenied) continue;
      return Status::Invalid(content.status().message());
    }
    if (++files_ > kMaxStageFiles || (bytes_ += content->size()) > kMaxStageBytes) {
      return Status::Invalid(host.Resolve(path) + ": the files hwloc reads exceed " +
                             std::to_string(kMaxStageFiles) + " files or " +
                             std::to_string(kMaxStageBytes) + " bytes");
    }
    YS_RETURN_IF_ERROR(WriteNew(dir_ + path, *content));
  }
  return Status::Ok();
}

}  // namespace ys::host
