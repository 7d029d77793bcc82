// The effects on training throughput (docs/fleet-statistics.md gives the reasoning per kind):
// compute sets the pace of a dense training step (GEMM and the SM clock that drives it: 1); HBM
// bandwidth the memory-bound kernels (attention, normalisation, optimiser: about 0.3 of a step);
// NVLink, collectives and the NICs the communication left exposed after overlap (0.15); the
// proxy is a training step itself (1); host copies, CPU GEMM, STREAM and checkpoint storage serve
// the data loader and checkpoints, off the step's critical path (0.02); a kernel launch latency
// 10% higher is 0.5 us on a kernel that runs for milliseconds, and CUDA graphs hide most of it
// (0.01); other figures 0.1.
#include "fleet/impact.h"

#include <fmt/format.h>

#include <algorithm>

#include "fleet/fleet.h"

namespace ys::fleet {

double ThroughputImpact(FigureKind kind) {
  switch (kind) {
    case FigureKind::kGemm:
    case FigureKind::kClock:
    case FigureKind::kProxy:
      return 1.0;
    case FigureKind::kMemory:
      return 0.3;
    case FigureKind::kNvlink:
    case FigureKind::kCollective:
    case FigureKind::kNetwork:
      return 0.15;
    case FigureKind::kPcie:
    case FigureKind::kCpuGemm:
    case FigureKind::kStream:
    case FigureKind::kStorage:
      return 0.02;
    case FigureKind::kLaunch:
      return 0.01;
    case FigureKind::kOther:
      break;
  }
  return 0.1;
}

double FalseAlarmWeight(FigureKind kind) { return std::max(0.1, ThroughputImpact(kind)); }

double ExpectedLoss(FigureKind kind, double deficit) {
  return ThroughputImpact(kind) * std::max(0.0, deficit);
}

void DecideAction(RankedFinding& f, FigureKind kind, double drain_loss, std::string_view weak) {
  f.loss = ExpectedLoss(kind, f.deficit);
  f.drain = f.loss >= drain_loss && weak.empty();
  f.watch = !f.drain;
  f.evidence += fmt::format("; expected throughput loss {:.2f}% ({:g} x the deficit)", 100 * f.loss,
                            ThroughputImpact(kind));
  if (f.loss < drain_loss) {
    f.evidence += fmt::format(": watch, below the {:.1f}% that drains", 100 * drain_loss);
  } else if (!weak.empty()) {
    f.evidence += fmt::format(": watch, {}", weak);
  }
}

}  // namespace ys::fleet
