// env.runtime.qps_per_connection: NCCL_IB_QPS_PER_CONNECTION=1 on the ports NCCL uses at 400 Gb/s
// or more: one QP cannot spread a connection over the fabric's paths.
#include "checks/check.h"
#include "checks/env/internal/runtime_facts.h"

namespace ys::checks::runtime {
namespace {

class QpsPerConnectionCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    CheckResult early;
    auto q = ReadRuntime(ctx, early);
    if (q == nullptr) return early;
    CheckResult r = StartResult(*q);
    if (const Setting* s = q->Get("NCCL_IB_QPS_PER_CONNECTION");
        s && host::ParseNcclInt(s->value) == 1) {
      std::vector<const host::IbPort*> fast;
      for (const auto* p : q->used) {
        if (p->rate->gbps >= 400) fast.push_back(p);
      }
      if (!fast.empty()) {
        Finding f = EnvFinding("YS-ENV-003",
                               "NCCL_IB_QPS_PER_CONNECTION=1 on " + std::to_string(fast.size()) +
                                   " port(s) at " + FormatGbps(fast.front()->rate->gbps) +
                                   " Gb/s or more: one QP cannot spread a "
                                   "connection over the fabric's paths",
                               "NCCL_IB_QPS_PER_CONNECTION", *s,
                               "NCCL_IB_QPS_PER_CONNECTION=2, or remove the override from the job "
                               "environment and nccl.conf");
        for (const auto* p : q->used) f.evidence.emplace_back(p->dir + "/rate", p->rate->text);
        f.expected_recovery =
            "QP-limited collectives took 31% of iteration time on ConnectX-8 (Exemplar case)";
        r.Add(std::move(f));
      }
    }
    Conclude(*q, r);
    return r;
  }
};

}  // namespace

YS_REGISTER(QpsPerConnectionCheck,
            {.id = "env.runtime.qps_per_connection",
             .summary = "NCCL_IB_QPS_PER_CONNECTION is not 1 on ports of 400 Gb/s or more.",
             .needs = {},
             .codes = {{"YS-ENV-003", Severity::kFail,
                        "NCCL_IB_QPS_PER_CONNECTION=1 on 400 Gb/s or faster links"}}})

}  // namespace ys::checks::runtime
