// Temperatures from the hwmon class (/sys/class/hwmon/hwmon*/temp<N>_input, millidegrees C,
// with the chip's `name` and the sensor's temp<N>_label when it has one): what a burn-in samples
// for its CPU cores (coretemp "Core N" / "Package id N", k10temp "Tctl" / "Tccd1").
#ifndef YARDSTICK_HOST_HWMON_H_
#define YARDSTICK_HOST_HWMON_H_

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "host/host.h"

namespace ys::host {

struct HwmonTemp {
  std::string hwmon;  // "hwmon3"
  std::string chip;   // the chip's name file: "coretemp", "k10temp", "nvme"
  std::string label;  // "Core 4", "Package id 0", "Tctl"; "temp1" when there is no label file
  double celsius = 0;
  std::string path;  // the temp<N>_input read
};

// "52000\n" (millidegrees C, may be negative) -> 52.0. Invalid naming `path` and the text
// otherwise.
Result<double> ParseHwmonMillidegrees(std::string_view text, std::string_view path);

struct HwmonScan {
  std::vector<HwmonTemp> temps;     // in hwmon order (hwmon2 < hwmon10), then sensor number
  std::vector<std::string> errors;  // inputs that could not be read or parsed ("<path>: ...")
};
// Every temperature input under the host root. No hwmon class (a VM, a container without /sys
// hwmon) gives an empty scan; a sensor that fails to read (some report EIO while idle) is left
// out with its error.
HwmonScan ReadHwmonTemps(const Host& host);

}  // namespace ys::host

#endif  // YARDSTICK_HOST_HWMON_H_
