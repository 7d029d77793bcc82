// env.runtime.debug_logging: NCCL_DEBUG=INFO or TRACE, which makes every rank log at init and on
// every communicator.
#include "checks/check.h"
#include "checks/env/internal/runtime_facts.h"
#include "core/text.h"

namespace ys::checks::runtime {
namespace {

class DebugLoggingCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    CheckResult early;
    auto q = ReadRuntime(ctx, early);
    if (q == nullptr) return early;
    CheckResult r = StartResult(*q);
    if (const Setting* s = q->Get("NCCL_DEBUG")) {
      std::string level = ToLower(Trim(s->value));
      if (level == "info" || level == "trace") {
        r.Add(EnvFinding(
            "YS-ENV-005",
            "NCCL_DEBUG=" + s->value +
                ": every rank logs at init and on every "
                "communicator, slowing start-up and filling job logs",
            "NCCL_DEBUG", *s,
            "NCCL_DEBUG=WARN (or unset) for production runs; use INFO only while debugging"));
      }
    }
    Conclude(*q, r);
    return r;
  }
};

}  // namespace

YS_REGISTER(DebugLoggingCheck,
            {.id = "env.runtime.debug_logging",
             .summary = "NCCL_DEBUG is not INFO or TRACE.",
             .needs = {},
             .codes = {{"YS-ENV-005", Severity::kWarn, "NCCL_DEBUG left at INFO or TRACE"}}})

}  // namespace ys::checks::runtime
