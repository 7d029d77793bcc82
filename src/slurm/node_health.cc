#include "slurm/node_health.h"

#include <fmt/format.h>

namespace ys::slurm {

namespace {

constexpr std::string_view kDrainIdOpen = " (drain id ";

std::string Reason(const NodeInfo& node) {
  std::string r = node.reason.empty() ? std::string("none") : node.reason;
  if (!node.reason_user.empty()) r += ", set by " + node.reason_user;
  return r;
}

// "YS-GPU-040 gpu3: fatal XID 79" for a check's first finding, else its summary.
std::string Describe(const CheckResult& c) {
  for (const auto& f : c.findings) {
    if ((c.outcome == Outcome::kFail && f.severity == Severity::kFail) ||
        c.outcome != Outcome::kFail) {
      return fmt::format("{} {}: {}", f.code, f.entity, f.message);
    }
  }
  if (!c.findings.empty()) {
    const auto& f = c.findings.front();
    return fmt::format("{} {}: {}", f.code, f.entity, f.message);
  }
  return c.unit_id + ": " + c.summary;
}

}  // namespace

const std::vector<std::string>& DefaultHealthChecks() {
  static const std::vector<std::string> kChecks = {
      "gpu.nvml",  "gpu.count",  "gpu.driver", "gpu.ecc",  "gpu.memory_repair",
      "gpu.xid",   "gpu.nvlink", "gpu.fabric", "gpu.pcie", "gpu.thermal",
      "gpu.power", "ib.ports",   "pcie.links"};
  return kChecks;
}

const char* HealthStateName(HealthState s) {
  switch (s) {
    case HealthState::kOk:
      return "OK";
    case HealthState::kWarning:
      return "WARNING";
    case HealthState::kCritical:
      return "CRITICAL";
    case HealthState::kUnknown:
      return "UNKNOWN";
  }
  return "UNKNOWN";
}

std::string MakeDrainReason(std::string_view text) {
  std::string out = std::string(kDrainReasonPrefix) + " ";
  for (char c : text) {
    unsigned char u = static_cast<unsigned char>(c);
    out += (u < 0x20 || u == 0x7f) ? ' ' : c;
  }
  constexpr size_t kMax = 170;
  if (out.size() > kMax) out = out.substr(0, kMax - 3) + "...";
  return out;
}

std::string WithDrainId(std::string_view reason, std::string_view id) {
  return std::string(reason) + std::string(kDrainIdOpen) + std::string(id) + ")";
}

bool IsOwnDrain(const NodeInfo& node, const DrainOwner& owner) {
  if (!node.Drained() || owner.id.empty() || owner.user.empty()) return false;
  const std::string& r = node.reason;
  const std::string suffix = std::string(kDrainIdOpen) + owner.id + ")";
  bool id_matches =
      r.size() > suffix.size() && r.compare(r.size() - suffix.size(), suffix.size(), suffix) == 0;
  bool prefix = r.compare(0, kDrainReasonPrefix.size(), kDrainReasonPrefix) == 0;
  return prefix && id_matches && node.reason_user == owner.user;
}

HealthVerdict JudgeHealth(const RunDocument& doc) {
  HealthVerdict v;
  std::vector<const CheckResult*> failed, errored, warned;
  for (const auto& c : doc.checks) {
    if (c.outcome == Outcome::kFail) failed.push_back(&c);
    if (c.outcome == Outcome::kError) errored.push_back(&c);
    if (c.outcome == Outcome::kWarn) warned.push_back(&c);
  }
  for (const auto* list : {&failed, &errored, &warned}) {
    for (const auto* c : *list)
      v.details.push_back(
          fmt::format("{} {}: {}", OutcomeName(c->outcome), c->unit_id, Describe(*c)));
  }
  auto first = [](const std::vector<const CheckResult*>& l) {
    std::string s = Describe(*l.front());
    return l.size() > 1 ? s + fmt::format(" (+{} more)", l.size() - 1) : s;
  };
  if (!failed.empty()) {
    v.state = HealthState::kCritical;
    v.summary = first(failed);
    v.drain_reason = MakeDrainReason(v.summary);
  } else if (!errored.empty()) {
    v.state = HealthState::kUnknown;
    v.summary = "could not evaluate: " + first(errored);
  } else if (!warned.empty()) {
    v.state = HealthState::kWarning;
    v.summary = first(warned);
  } else {
    v.summary = fmt::format("{} checks passed or did not apply", doc.checks.size());
  }
  return v;
}

NodeDecision DecideNodeAction(const HealthVerdict& v, const NodeInfo& node,
                              const DrainOwner& owner) {
  bool ours = IsOwnDrain(node, owner);
  switch (v.state) {
    case HealthState::kCritical:
      if (!node.Drained()) return {NodeAction::kDrain, "drained"};
      if (ours) {
        if (node.reason == WithDrainId(v.drain_reason, owner.id))
          return {NodeAction::kNothing, "already drained by yardstick"};
        return {NodeAction::kUpdateReason, "already drained by yardstick; reason updated"};
      }
      return {NodeAction::kKeepOtherDrain, "already drained by someone else (reason: " +
                                               Reason(node) + "); their drain and reason are kept"};
    case HealthState::kOk:
    case HealthState::kWarning:
      if (ours)
        return {NodeAction::kResume, "resumed (yardstick had drained it: " + node.reason + ")"};
      if (node.Drained()) {
        return {NodeAction::kNothing,
                "drained by someone else (reason: " + Reason(node) + "); not resumed"};
      }
      return {NodeAction::kNothing, ""};
    case HealthState::kUnknown:
      return {NodeAction::kNothing, "node state left as it is"};
  }
  return {};
}

}  // namespace ys::slurm
