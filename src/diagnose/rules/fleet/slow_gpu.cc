// fleet.slow_gpu: a GPU, NIC or other device far below its peers' median in this run (YS-FLEET-002)
// holds a synchronous job to its pace (the rule: diagnose/rules/fleet/internal/slow_member.h).
#include "diagnose/rules/fleet/internal/slow_member.h"

namespace ys::diagnose {
namespace {

class SlowGpuRule : public SlowMemberRule {
 public:
  SlowGpuRule() : SlowMemberRule("fleet.slow_gpu", "YS-FLEET-002", "device") {}
};

}  // namespace

YS_REGISTER(SlowGpuRule, {.id = "fleet.slow_gpu",
                          .summary = "A GPU, NIC or other device far below its peers' median "
                                     "(YS-FLEET-002) holds a synchronous job to its pace"});

}  // namespace ys::diagnose
