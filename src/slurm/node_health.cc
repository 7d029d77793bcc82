#include "slurm/node_health.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <set>

#include "core/repeated_findings.h"

namespace ys::slurm {

namespace {

constexpr std::string_view kDrainIdOpen = " (drain id ";

std::string Reason(const NodeInfo& node) {
  std::string r = node.reason.empty() ? std::string("none") : node.reason;
  if (!node.reason_user.empty()) r += ", set by " + node.reason_user;
  return r;
}

std::string Describe(const Finding& f) {
  return fmt::format("{} {}: {}", f.code, f.entity, f.message);
}

// The GPU is gone for every job: fallen off the bus (XID 79, or the driver saying so without an
// XID) or missing from NVML while on the PCI bus.
bool LosesTheGpu(const Finding& f) {
  if (f.code == "YS-GPU-002" || f.code == "YS-GPU-043") return true;
  if (f.code != "YS-GPU-040") return false;
  for (const auto& [key, value] : f.evidence) {
    if (key == "xid" && value.rfind("79 ", 0) == 0) return true;
  }
  return false;
}

// Faults that corrupt or lose data, or make the GPUs unreachable: a job must not land here.
bool LosesData(const Finding& f) {
  static const std::set<std::string, std::less<>> kCodes = {
      "YS-GPU-040", "YS-GPU-026", "YS-GPU-031", "YS-GPU-033", "YS-GPU-075", "YS-GPU-077"};
  return kCodes.count(f.code) > 0;
}

// One line of the health check: a finding, or a check's own summary when it has none (an error).
struct HealthItem {
  int urgency = 0;  // lower first: 0 GPU lost, 1 data lost, 2 other fail, 3 error, 4 warn
  Outcome outcome = Outcome::kPass;
  std::string unit_id;
  std::string text;
  const Finding* finding = nullptr;  // null for a check's own summary
};

int Urgency(const CheckResult& c, const Finding& f) {
  if (c.outcome != Outcome::kFail || f.severity != Severity::kFail) return 4;
  if (LosesTheGpu(f)) return 0;
  return LosesData(f) ? 1 : 2;
}

// Every finding of the failed, erroring and warning checks, most urgent first (in check order
// within one urgency).
std::vector<HealthItem> RankedItems(const RunDocument& doc) {
  std::vector<HealthItem> items;
  for (const auto& c : doc.checks) {
    if (c.outcome != Outcome::kFail && c.outcome != Outcome::kWarn && c.outcome != Outcome::kError)
      continue;
    if (c.outcome == Outcome::kError || c.findings.empty()) {
      items.push_back({c.outcome == Outcome::kError  ? 3
                       : c.outcome == Outcome::kFail ? 2
                                                     : 4,
                       c.outcome, c.unit_id, c.unit_id + ": " + c.summary});
      continue;
    }
    for (const auto& f : c.findings) {
      int u = Urgency(c, f);
      items.push_back({u, u <= 2 ? Outcome::kFail : Outcome::kWarn, c.unit_id, Describe(f), &f});
    }
  }
  std::stable_sort(items.begin(), items.end(),
                   [](const HealthItem& a, const HealthItem& b) { return a.urgency < b.urgency; });
  return items;
}

// One line per item, the findings that say the same about several entities once with their count
// and entities (core/repeated_findings.h), in the items' order.
std::vector<std::string> DetailLines(const std::vector<HealthItem>& items) {
  std::vector<RepeatKey> keys;
  for (const HealthItem& i : items) {
    keys.push_back(
        {i.finding ? i.finding->code : "", i.finding ? i.finding->entity : "",
         fmt::format("{} {} {}", i.urgency, i.unit_id, i.finding ? i.finding->message : i.text)});
  }
  std::vector<std::string> lines;
  for (const RepeatGroup& g : GroupRepeats(keys)) {
    const HealthItem& i = items[g.members.front()];
    std::string text =
        i.finding ? fmt::format("{} {}: {}", i.finding->code, g.entities, i.finding->message)
                  : i.text;
    lines.push_back(fmt::format("{} {}: {}", OutcomeName(i.outcome), i.unit_id, text));
  }
  return lines;
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
  std::vector<HealthItem> items = RankedItems(doc);
  v.details = DetailLines(items);
  // The most urgent line, and how many more of the same outcome follow it.
  auto first = [&items](Outcome o) {
    size_t n = 0;
    const HealthItem* top = nullptr;
    for (const HealthItem& i : items) {
      if (i.outcome != o) continue;
      if (top == nullptr) top = &i;
      ++n;
    }
    return n > 1 ? top->text + fmt::format(" (+{} more)", n - 1) : top->text;
  };
  auto has = [&items](Outcome o) {
    return std::any_of(items.begin(), items.end(),
                       [o](const HealthItem& i) { return i.outcome == o; });
  };
  if (has(Outcome::kFail)) {
    v.state = HealthState::kCritical;
    v.summary = first(Outcome::kFail);
    v.drain_reason = MakeDrainReason(v.summary);
  } else if (has(Outcome::kError)) {
    v.state = HealthState::kUnknown;
    v.summary = "could not evaluate: " + first(Outcome::kError);
  } else if (has(Outcome::kWarn)) {
    v.state = HealthState::kWarning;
    v.summary = first(Outcome::kWarn);
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
