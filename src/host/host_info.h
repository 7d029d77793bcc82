// Identity of the host a run looked at: name, kernel, architecture, CPU model, CPU count. Read
// through the host root, so a recorded tree reports the recorded machine, not this one.
#ifndef YARDSTICK_HOST_HOST_INFO_H_
#define YARDSTICK_HOST_HOST_INFO_H_

#include "core/run_document.h"
#include "host/host.h"

namespace ys::host {

HostInfo ReadHostInfo(const Host& host);

}  // namespace ys::host

#endif  // YARDSTICK_HOST_HOST_INFO_H_
