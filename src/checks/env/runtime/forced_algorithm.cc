// env.runtime.forced_algorithm: NCCL_ALGO or NCCL_PROTO, which override NCCL's tuner for every
// message size.
#include "checks/check.h"
#include "checks/env/internal/runtime_facts.h"
#include "core/text.h"

namespace ys::checks::runtime {
namespace {

class ForcedAlgorithmCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    CheckResult early;
    auto q = ReadRuntime(ctx, early);
    if (q == nullptr) return early;
    CheckResult r = StartResult(*q);
    std::vector<std::string> forced;
    Finding algo = MakeFinding("YS-ENV-004", "process", "");
    for (const char* name : {"NCCL_ALGO", "NCCL_PROTO"}) {
      const Setting* s = q->Get(name);
      if (s == nullptr || Trim(s->value).empty()) continue;
      forced.push_back(std::string(name) + "=" + s->value);
      algo.evidence.emplace_back(s->Where(name), s->value);
    }
    if (!forced.empty()) {
      algo.message = Join(forced, " and ") + " overrides NCCL's tuner for every message size";
      algo.fix =
          "unset NCCL_ALGO and NCCL_PROTO in production jobs (keep them only in benchmarks that "
          "pin "
          "a path on purpose)";
      algo.reference = kNcclRef;
      r.Add(std::move(algo));
    }
    Conclude(*q, r);
    return r;
  }
};

}  // namespace

YS_REGISTER(ForcedAlgorithmCheck,
            {.id = "env.runtime.forced_algorithm",
             .summary = "No NCCL_ALGO or NCCL_PROTO overrides NCCL's tuner.",
             .needs = {},
             .codes = {{"YS-ENV-004", Severity::kWarn, "NCCL algorithm or protocol forced"}}})

}  // namespace ys::checks::runtime
