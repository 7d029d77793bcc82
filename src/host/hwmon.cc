#include "host/hwmon.h"

#include <algorithm>

#include "core/text.h"

namespace ys::host {

Result<double> ParseHwmonMillidegrees(std::string_view text, std::string_view path) {
  auto v = ParseInt(Trim(text));
  if (!v) {
    return Status::Invalid(std::string(path) + ": expected millidegrees Celsius, got \"" +
                           SanitizeForDisplay(Trim(text)) + "\"");
  }
  return static_cast<double>(*v) / 1000.0;
}

HwmonScan ReadHwmonTemps(const Host& host) {
  HwmonScan scan;
  constexpr std::string_view kClass = "/sys/class/hwmon";
  for (const std::string& hw : host.ListMatching(kClass, "hwmon[0-9]*")) {
    const std::string dir = std::string(kClass) + "/" + hw;
    auto chip = host.ReadLine(dir + "/name");
    std::vector<std::pair<int, std::string>> inputs;  // sensor number, file name
    for (const std::string& f : host.ListMatching(dir, "temp[0-9]*_input")) {
      auto n = ParseInt(std::string_view(f).substr(4, f.size() - 4 - 6));
      if (n) inputs.emplace_back(static_cast<int>(*n), f);
    }
    std::sort(inputs.begin(), inputs.end());
    for (const auto& [n, file] : inputs) {
      const std::string path = dir + "/" + file;
      auto text = host.ReadFile(path);
      if (!text.ok()) {
        scan.errors.push_back(text.status().message());
        continue;
      }
      auto c = ParseHwmonMillidegrees(*text, path);
      if (!c.ok()) {
        scan.errors.push_back(c.status().message());
        continue;
      }
      HwmonTemp t{.hwmon = hw, .chip = chip.ok() ? *chip : "", .celsius = *c, .path = path};
      auto label = host.ReadLine(dir + "/temp" + std::to_string(n) + "_label");
      t.label = label.ok() && !label->empty() ? *label : "temp" + std::to_string(n);
      scan.temps.push_back(std::move(t));
    }
  }
  return scan;
}

}  // namespace ys::host
