#include "host/cpu_cache.h"

#include <algorithm>
#include <cctype>

#include "core/text.h"

namespace ys::host {

Result<uint64_t> ParseCacheSize(std::string_view text) {
  std::string_view t = Trim(text);
  uint64_t multiplier = 1;
  if (!t.empty()) {
    switch (std::toupper(static_cast<unsigned char>(t.back()))) {
      case 'K':
        multiplier = 1ULL << 10;
        break;
      case 'M':
        multiplier = 1ULL << 20;
        break;
      case 'G':
        multiplier = 1ULL << 30;
        break;
      default:
        break;
    }
  }
  std::string_view digits = multiplier == 1 ? t : t.substr(0, t.size() - 1);
  auto n = ParseUint(digits);
  if (!n || *n == 0 || *n > (1ULL << 40) / multiplier) {
    return Status::Invalid("cache size \"" + std::string(text.substr(0, 40)) +
                           "\": expected a positive size such as 32768K");
  }
  return *n * multiplier;
}

Result<std::vector<CpuCache>> LoadCpuCaches(const Host& host) {
  std::vector<CpuCache> out;
  const std::string cpu_dir = "/sys/devices/system/cpu";
  for (const std::string& cpu : host.ListMatching(cpu_dir, "cpu[0-9]*")) {
    const std::string cache_dir = cpu_dir + "/" + cpu + "/cache";
    for (const std::string& index : host.ListMatching(cache_dir, "index[0-9]*")) {
      const std::string dir = cache_dir + "/" + index;
      auto level = host.ReadInt(dir + "/level");
      auto type = host.ReadLine(dir + "/type");
      auto size = host.ReadLine(dir + "/size");
      auto shared = host.ReadLine(dir + "/shared_cpu_list");
      // Some hypervisors expose index directories without a size: not a cache we can count.
      if (!level.ok() || !type.ok() || !size.ok() || !shared.ok() || size->empty()) continue;
      auto bytes = ParseCacheSize(*size);
      if (!bytes.ok()) return Status::Invalid(dir + "/size: " + bytes.status().message());
      auto cpus = CpuSet::ParseList(*shared);
      if (!cpus.ok()) return Status::Invalid(dir + "/shared_cpu_list: " + cpus.status().message());
      CpuCache c{.level = static_cast<int>(*level),
                 .type = *type,
                 .size_bytes = *bytes,
                 .shared_cpus = *cpus};
      if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(std::move(c));
    }
  }
  if (out.empty()) return Status::NotFound(cpu_dir + "/cpu*/cache: no cache information");
  return out;
}

uint64_t LastLevelCacheBytes(const std::vector<CpuCache>& caches, const CpuSet& cpus) {
  int top = 0;
  for (const auto& c : caches) {
    if (c.type != "Instruction" && c.shared_cpus.Intersects(cpus)) top = std::max(top, c.level);
  }
  uint64_t sum = 0;
  for (const auto& c : caches) {
    if (c.level == top && c.type != "Instruction" && c.shared_cpus.Intersects(cpus))
      sum += c.size_bytes;
  }
  return sum;
}

}  // namespace ys::host
