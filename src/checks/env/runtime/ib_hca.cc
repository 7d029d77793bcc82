// env.runtime.ib_hca: which RDMA ports NCCL_IB_HCA makes NCCL use, and prefixes that reach further
// than meant. An entry without '=' is a prefix: "mlx5_1" also takes mlx5_10 .. mlx5_17. With site
// devices.intended_hcas the selection is compared with it; without, an entry that names a device
// exactly but also reaches others is taken as a mistake (a bare "mlx5" is intentional).
#include <algorithm>

#include "checks/check.h"
#include "checks/env/internal/runtime_facts.h"
#include "core/text.h"

namespace ys::checks::runtime {
namespace {

bool In(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// The devices the selection takes (or leaves out) beyond what was meant.
std::vector<std::string> Extra(
    const host::IbHcaSpec& spec, const std::vector<std::string>& devices,
    const std::vector<std::string>& selected, const std::vector<std::string>& intended,
    const std::function<std::vector<int>(const std::string&)>& ports_of) {
  std::vector<std::string> extra;
  if (!intended.empty()) {
    for (const auto& dev : devices) {
      bool used = In(selected, dev);
      if (!spec.exclude && used && !In(intended, dev)) extra.push_back(dev);
      if (spec.exclude && !used && In(intended, dev)) extra.push_back(dev);
    }
    return extra;
  }
  std::vector<std::string> named;
  for (const auto& e : spec.entries) {
    if (In(devices, e.name)) named.push_back(e.name);
  }
  for (const auto& dev : devices) {
    if (In(named, dev) || !host::IbHcaListsDevice(spec, dev, ports_of(dev))) continue;
    for (const auto& e : spec.entries) {
      if (In(named, e.name) && StartsWith(dev, e.name)) {
        extra.push_back(dev);
        break;
      }
    }
  }
  return extra;
}

void CheckHcaPrefixes(const CheckContext& ctx, const Setting& s, const host::IbHcaSpec& spec,
                      const std::vector<std::string>& devices,
                      const std::vector<host::IbPort>& rates, CheckResult& r) {
  auto ports_of = [&](const std::string& dev) {
    std::vector<int> out;
    for (const auto& p : rates) {
      if (p.device == dev) out.push_back(p.port);
    }
    if (out.empty()) out.push_back(1);
    return out;
  };
  std::vector<std::string> selected;
  for (const auto& dev : devices) {
    if (host::IbHcaSelectsDevice(spec, dev, ports_of(dev))) selected.push_back(dev);
  }
  r.Note("nccl.ib_hca", host::FormatIbHcaSpec(spec) + " -> uses " +
                            (selected.empty() ? "no device" : Join(selected)));
  if (spec.ignored > 0)
    r.Note("nccl.ib_hca.ignored", std::to_string(spec.ignored) + " entries past NCCL's 32");
  if (spec.exact || devices.empty()) return;
  const auto& intended = ctx.expect().devices.intended_hcas;
  std::vector<std::string> extra = Extra(spec, devices, selected, intended, ports_of);
  if (extra.empty()) return;
  std::string verb = spec.exclude ? "excludes" : "selects";
  Finding f = EnvFinding(
      "YS-ENV-002",
      "NCCL_IB_HCA=" + s.value + " " + verb + " " + std::to_string(extra.size()) +
          " device(s) more than intended by prefix: " + Join(extra),
      "NCCL_IB_HCA", s,
      "write exact names with a leading '=': NCCL_IB_HCA=" + std::string(spec.exclude ? "^" : "") +
          "=" + host::FormatIbHcaSpec(host::IbHcaSpec{false, false, spec.entries, 0}));
  f.evidence.emplace_back(host::kInfinibandClassDir, Join(devices));
  if (!intended.empty()) f.evidence.emplace_back("site.devices.intended_hcas", Join(intended));
  r.Add(std::move(f));
}

class IbHcaCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    CheckResult early;
    auto q = ReadRuntime(ctx, early);
    if (q == nullptr) return early;
    CheckResult r = StartResult(*q);
    if (const Setting* s = q->Get("NCCL_IB_HCA")) {
      CheckHcaPrefixes(ctx, *s, *q->hca, q->ib_devices, q->rates, r);
    }
    Conclude(*q, r);
    return r;
  }
};

}  // namespace

YS_REGISTER(IbHcaCheck,
            {.id = "env.runtime.ib_hca",
             .summary = "NCCL_IB_HCA selects the intended RDMA devices, not more by prefix.",
             .needs = {},
             .codes = {{"YS-ENV-002", Severity::kWarn,
                        "NCCL_IB_HCA prefix matches more devices than intended"}}})

}  // namespace ys::checks::runtime
