// One kernel-log line's prefixes (host/kernel_log.h lists the forms): time stamps, syslog host
// and ident, priority. Internal to host/kernel_log.cc; separate so each form is tested alone.
#ifndef YARDSTICK_HOST_KERNEL_LOG_FORMATS_H_
#define YARDSTICK_HOST_KERNEL_LOG_FORMATS_H_

#include <optional>
#include <string>
#include <string_view>

namespace ys::host::klog {

struct LinePrefix {
  int priority = -1;
  double seconds = -1;  // since boot
  double wall = -1;     // since 1970, zone ignored
  std::string stamp;    // the wall-clock stamp as printed
  std::string boot_id;  // journal JSON _BOOT_ID
  std::string text;     // what follows the prefixes
};

// What a journalctl separator line means.
enum class Marker { kNone, kBoot, kIgnore };
Marker JournalMarker(std::string_view line);

// The prefixes of one line; a line in no known form is all text.
LinePrefix ParseLinePrefix(std::string_view line);

// Seconds since 1970 of a civil date and time (proleptic Gregorian), nullopt when out of range.
std::optional<double> CivilSeconds(int year, int month, int day, int hour, int minute,
                                   double second);

}  // namespace ys::host::klog

#endif  // YARDSTICK_HOST_KERNEL_LOG_FORMATS_H_
