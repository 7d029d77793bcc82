// `yardstick topo --from FILE`: a saved `nvidia-smi topo -m` (or -mp) judged from the matrix
// alone, with no expectation file and nothing read from this machine.
//
// Three judgements, each with the cells it rests on and how sure it is:
//   nvlink         on a board where GPUs are NVLinked to two or more peers (SXM/HGX), every pair
//                  should show NV# with the count of the others: a pair at SYS/NODE/PHB/PXB/PIX
//                  is a missing or down NVLink, a lower count (NV12 among NV18) links down: FAIL.
//                  A board with no NV# (PCIe only), or with GPUs bridged two by two (NV4 pairs of
//                  PCIe cards), or a partial mesh where every GPU has the same number of NVLinked
//                  peers (the DGX-1 hybrid cube-mesh), is judged as what it is.
//   nic placement  a GPU whose nearest NIC is SYS (across the socket interconnect) while a NIC
//                  is PIX/PXB/PHB/NODE to other GPUs: its GPUDirect RDMA crosses the socket: WARN.
//   affinity       GPUs whose CPU or NUMA affinity shows N/A: WARN where the matrix shows more
//                  than one NUMA node (ranks cannot be bound near the GPU), else noted.
// A judgement whose cells are not in the copy (a cut matrix) is INCONCLUSIVE and names them; one
// that does not apply (no NIC in the matrix, a single GPU) is not judged and says why.
#ifndef YARDSTICK_REPORT_TOPO_JUDGE_H_
#define YARDSTICK_REPORT_TOPO_JUDGE_H_

#include <string>
#include <string_view>
#include <vector>

#include "core/run_document.h"
#include "core/verdict.h"
#include "report/topo_expect.h"

namespace ys::report {

struct TopoJudgement {
  std::string area;    // "nvlink", "nic placement", "affinity"
  bool judged = true;  // false: does not apply to this matrix; `message` says why
  VerdictState state = VerdictState::kPass;
  Confidence confidence = Confidence::kHigh;
  std::string message;                // one line: what the cells say
  std::vector<std::string> evidence;  // the cells it rests on: "GPU0-GPU3 SYS", "GPU4-mlx4_0 SYS"
  std::vector<std::string> notes;     // what the operator may also want to know
  std::string fix;                    // for WARN and FAIL: what recovers it
};

struct TopoJudgeResult {
  int gpus = 0, nics = 0;     // columns of the header
  int rows = 0, columns = 0;  // rows in the copy, device columns of the header
  VerdictState state = VerdictState::kPass;
  std::string reason;  // one line: the judgement that decided it
  std::vector<TopoJudgement> judgements;
};

// In verdict order (docs/verdict.md): a FAIL judgement -> FAIL; one that could not be judged ->
// INCONCLUSIVE; a WARN -> WARN; else PASS. No judgement that applies -> INCONCLUSIVE.
TopoJudgeResult JudgeSmiTopo(const SmiTopo& topo);

// The console form: one block per judgement (state, confidence, message, evidence, notes, fix)
// and the verdict line last.
std::string TopoJudgeText(const TopoJudgeResult& r, std::string_view name);

}  // namespace ys::report

#endif  // YARDSTICK_REPORT_TOPO_JUDGE_H_
