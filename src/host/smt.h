// SMT (hyper-threading) control and state: /sys/devices/system/cpu/smt/{control,active}
// (reference: docs/node-checks.md §smt, Documentation/ABI/testing/sysfs-devices-system-cpu).
#ifndef YARDSTICK_HOST_SMT_H_
#define YARDSTICK_HOST_SMT_H_

#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"
#include "host/host.h"

namespace ys::host {

inline constexpr const char* kSmtDir = "/sys/devices/system/cpu/smt";

enum class SmtControl { kOn, kOff, kForceOff, kNotSupported, kNotImplemented };
const char* SmtControlName(SmtControl c);

// "on", "off", "forceoff", "notsupported", "notimplemented"; newer kernels also accept a thread
// count ("2") for partial SMT, read as on.
Result<SmtControl> ParseSmtControl(std::string_view text);

struct SmtState {
  SmtControl control = SmtControl::kNotSupported;
  std::string control_text;
  std::optional<bool> active;  // smt/active; unset when absent or empty
};

// NotFound when the smt directory is absent; Invalid naming the file when malformed.
Result<SmtState> ReadSmtState(const Host& host);

}  // namespace ys::host

#endif  // YARDSTICK_HOST_SMT_H_
