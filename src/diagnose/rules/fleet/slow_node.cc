// fleet.slow_node: a node far below its peers' median in this run (YS-FLEET-001) holds a
// synchronous job to its pace (the rule: diagnose/rules/fleet/internal/slow_member.h).
#include "diagnose/rules/fleet/internal/slow_member.h"

namespace ys::diagnose {
namespace {

class SlowNodeRule : public SlowMemberRule {
 public:
  SlowNodeRule() : SlowMemberRule("fleet.slow_node", "YS-FLEET-001", "node") {}
};

}  // namespace

YS_REGISTER(SlowNodeRule, {.id = "fleet.slow_node",
                           .summary = "A node far below its peers' median (YS-FLEET-001) "
                                      "holds a synchronous job to its pace"});

}  // namespace ys::diagnose
