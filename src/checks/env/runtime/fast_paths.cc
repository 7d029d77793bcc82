// env.runtime.fast_paths: NCCL variables that turn off a fast path: GPU peer-to-peer, the
// InfiniBand transport on an RDMA node, GPUDirect RDMA, the shared-memory transport.
#include "checks/check.h"
#include "checks/env/internal/runtime_facts.h"
#include "core/text.h"

namespace ys::checks::runtime {
namespace {

struct Rule {
  const char* name;
  const char* what;
  const char* fix;
};
constexpr Rule kRules[] = {
    {"NCCL_P2P_DISABLE",
     "GPU peer-to-peer (NVLink, PCIe P2P) is off: intra-node traffic goes "
     "through host memory",
     "unset NCCL_P2P_DISABLE"},
    {"NCCL_P2P_LEVEL", "NCCL_P2P_LEVEL=LOC turns GPU peer-to-peer off", "unset NCCL_P2P_LEVEL"},
    {"NCCL_IB_DISABLE",
     "the InfiniBand/RoCE transport is off on an RDMA node: inter-node "
     "traffic falls back to TCP sockets",
     "unset NCCL_IB_DISABLE"},
    {"NCCL_NET_GDR_LEVEL",
     "GPUDirect RDMA is off (LOC): NIC traffic is staged through host "
     "memory",
     "unset NCCL_NET_GDR_LEVEL (NCCL picks PXB, or P2C on C2C systems)"},
    {"NCCL_SHM_DISABLE",
     "the shared-memory transport is off: GPUs without P2P fall back to "
     "the network",
     "unset NCCL_SHM_DISABLE"},
};

void CheckFastPaths(const RuntimeFacts& q, bool rdma_node, CheckResult& r) {
  auto truthy = [](const Setting& s) { return host::ParseNcclInt(s.value).value_or(0) != 0; };
  auto loc = [](const Setting& s) {
    std::string v = ToLower(Trim(s.value));
    return v == "loc" || v == "0";
  };
  for (const Rule& rule : kRules) {
    const Setting* s = q.Get(rule.name);
    if (s == nullptr) continue;
    std::string_view n = rule.name;
    bool bad = (n == "NCCL_P2P_LEVEL" || n == "NCCL_NET_GDR_LEVEL") ? loc(*s) : truthy(*s);
    if (n == "NCCL_IB_DISABLE" && !rdma_node) bad = false;
    if (!bad) continue;
    r.Add(EnvFinding("YS-ENV-006", std::string(rule.name) + "=" + s->value + ": " + rule.what,
                     rule.name, *s,
                     std::string(rule.fix) + " in the job environment and nccl.conf"));
  }
}

class FastPathsCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    CheckResult early;
    auto q = ReadRuntime(ctx, early);
    if (q == nullptr) return early;
    CheckResult r = StartResult(*q);
    CheckFastPaths(*q, !q->ib_devices.empty(), r);
    Conclude(*q, r);
    return r;
  }
};

}  // namespace

YS_REGISTER(
    FastPathsCheck,
    {.id = "env.runtime.fast_paths",
     .summary =
         "No NCCL variable turns off a fast path (P2P, InfiniBand, GPUDirect RDMA, shared memory).",
     .needs = {},
     .codes = {{"YS-ENV-006", Severity::kFail, "NCCL fast path disabled"}}})

}  // namespace ys::checks::runtime
