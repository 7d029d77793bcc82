#include "host/smt.h"

#include "core/text.h"
#include "host/sysfs_attr.h"

namespace ys::host {

const char* SmtControlName(SmtControl c) {
  switch (c) {
    case SmtControl::kOn:
      return "on";
    case SmtControl::kOff:
      return "off";
    case SmtControl::kForceOff:
      return "forceoff";
    case SmtControl::kNotSupported:
      return "notsupported";
    case SmtControl::kNotImplemented:
      return "notimplemented";
  }
  return "notsupported";
}

Result<SmtControl> ParseSmtControl(std::string_view text) {
  std::string_view t = Trim(text);
  if (t == "on") return SmtControl::kOn;
  if (t == "off") return SmtControl::kOff;
  if (t == "forceoff") return SmtControl::kForceOff;
  if (t == "notsupported") return SmtControl::kNotSupported;
  if (t == "notimplemented") return SmtControl::kNotImplemented;
  if (auto n = ParseInt(t); n && *n >= 1 && *n <= 64) {
    return *n == 1 ? SmtControl::kOff : SmtControl::kOn;
  }
  return Status::Invalid("expected on, off, forceoff, notsupported or notimplemented, got \"" +
                         std::string(t.substr(0, 40)) + "\"");
}

Result<SmtState> ReadSmtState(const Host& host) {
  std::string dir = kSmtDir;
  if (!host.IsDirectory(dir)) return Status::NotFound(host.Resolve(dir) + ": no smt directory");
  SmtState s;
  auto control = host.ReadLine(dir + "/control");
  if (!control.ok()) return control.status();
  if (control->empty()) {
    // The kernel always names a state; an empty file (a copy that could not read it) says none.
    return Status::NotFound(host.Resolve(dir + "/control") + ": empty file, no SMT state recorded");
  }
  auto parsed = ParseSmtControl(*control);
  if (!parsed.ok())
    return Status::Invalid(host.Resolve(dir + "/control") + ": " + parsed.status().message());
  s.control = *parsed;
  s.control_text = *control;
  // An empty `active` (a copy that could not read it) is unknown, as when absent: the control
  // state stands for it.
  if (auto line = host.ReadLine(dir + "/active"); line.ok() && line->empty()) return s;
  auto active = ReadOptionalFlag(host, dir + "/active");
  if (!active.ok()) return active.status();
  s.active = *active;
  return s;
}

}  // namespace ys::host
