// What a slow figure costs a training job: each kind of figure's effect on training throughput,
// so that the fleet's ranked list drains only what matters (docs/fleet-statistics.md).
#ifndef YARDSTICK_FLEET_IMPACT_H_
#define YARDSTICK_FLEET_IMPACT_H_

#include <string_view>

#include "fleet/key.h"

namespace ys::fleet {

// The share of a relative deficit of this kind that a synchronous data- and tensor-parallel
// training job loses in throughput (1: a 5% slower GEMM costs 5%). A job runs at its slowest
// rank's pace, so a slow GPU costs its job as much as a slow node.
double ThroughputImpact(FigureKind kind);

// The share of the false-alarm rate a kind gets (fleet.h "Peers"), in proportion to this weight:
// its throughput impact, at least 0.1. The kinds of small impact (PCIe, CPU GEMM, STREAM,
// storage, launch latency) keep a tenth of GEMM's share: their faults are large, and a share in
// proportion to an impact of 0.01-0.02 would put their threshold past them.
double FalseAlarmWeight(FigureKind kind);

// The expected throughput loss of a deficit of this kind (0 for a deficit <= 0).
double ExpectedLoss(FigureKind kind, double deficit);

struct RankedFinding;  // fleet.h
// Sets a performance row's loss from its deficit, and drain (loss >= drain_loss, and `weak`
// empty) or watch; a watched row says why in its evidence. `weak`: why the evidence, however
// costly the deficit, does not pass the bar that drains (fleet.h "Peers").
void DecideAction(RankedFinding& f, FigureKind kind, double drain_loss, std::string_view weak = {});

}  // namespace ys::fleet

#endif  // YARDSTICK_FLEET_IMPACT_H_
