// What the host provides of a unit's needs (core/unit_runner.h): the needs that the host alone
// answers - the live host, root, a container, a Slurm job, InfiniBand. The GPU and MPI needs
// belong to the run's context (checks, bench), which answers them before asking here.
#ifndef YARDSTICK_HOST_NEEDS_H_
#define YARDSTICK_HOST_NEEDS_H_

#include "core/registry.h"
#include "core/status.h"
#include "host/host.h"

namespace ys::host {

// Ok when `host` provides `need`, else why not (Unsupported). kGpu and kMpi: Internal, since
// only the run's context can answer them.
Status HostProvides(const Host& host, Need need);

// The reason a benchmark gives on a recorded tree: there is nothing to measure.
inline constexpr const char* kNotLiveNothingToMeasure = "not the live host: nothing to measure";

}  // namespace ys::host

#endif  // YARDSTICK_HOST_NEEDS_H_
