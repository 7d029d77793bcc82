#include "host/needs.h"

#include <unistd.h>

#include <string>

#include "host/runtime_context.h"

namespace ys::host {

Status HostProvides(const Host& host, Need need) {
  switch (need) {
    case Need::kLiveHost:
      return host.live()
                 ? Status::Ok()
                 : Status::Unsupported(std::string("not the live host (") + host.root() + ")");
    case Need::kRoot:
      if (!host.live()) return Status::Unsupported("not the live host: root cannot be judged");
      return geteuid() == 0 ? Status::Ok() : Status::Unsupported("needs root (run as root)");
    case Need::kContainer: {
      auto c = DetectContainer(host, "/proc/self", host.env());
      if (!c.ok()) return c.status();
      return c->inside() ? Status::Ok() : Status::Unsupported("not inside a container");
    }
    case Need::kSlurm:
      return SlurmFromEnvironment(host.env()).inside()
                 ? Status::Ok()
                 : Status::Unsupported("not inside a Slurm job (no SLURM_JOB_ID)");
    case Need::kInfiniband:
      return host.Exists("/sys/class/infiniband")
                 ? Status::Ok()
                 : Status::Unsupported("no InfiniBand device (/sys/class/infiniband absent)");
    case Need::kGpu:
    case Need::kGpuState:
    case Need::kMpi:
      break;
  }
  return Status::Internal(std::string("need ") + NeedName(need) +
                          " is answered by the run's context, not the host");
}

}  // namespace ys::host
