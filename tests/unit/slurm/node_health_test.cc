#include "slurm/node_health.h"

#include <gtest/gtest.h>

#include "core/finding_codes.h"
#include "core/registry.h"

namespace ys::slurm {
namespace {

CheckResult Check(const std::string& id, Outcome o, const std::string& code = "", const std::string& msg = "") {
  CheckResult c;
  c.unit_id = id;
  c.outcome = o;
  c.summary = "summary of " + id;
  if (!code.empty()) c.findings.push_back(MakeFinding(code, "gpu3", msg));
  return c;
}

RunDocument Doc(std::vector<CheckResult> checks) {
  RunDocument d;
  d.checks = std::move(checks);
  return d;
}

NodeInfo Node(const std::string& state, const std::string& reason = "") { return {"vm", state, reason}; }

TEST(NodeHealthTest, Verdicts) {
  auto ok = JudgeHealth(Doc({Check("gpu.ecc", Outcome::kPass), Check("ib.ports", Outcome::kSkip)}));
  EXPECT_EQ(ok.state, HealthState::kOk);
  EXPECT_EQ(ok.summary, "2 checks passed or did not apply");
  EXPECT_TRUE(ok.drain_reason.empty());

  auto crit = JudgeHealth(Doc({Check("gpu.xid", Outcome::kFail, "YS-GPU-040", "fatal XID 79"),
                               Check("gpu.ecc", Outcome::kFail, "YS-GPU-026", "volatile uncorrected ECC"),
                               Check("gpu.thermal", Outcome::kError)}));
  EXPECT_EQ(crit.state, HealthState::kCritical);
  EXPECT_EQ(crit.summary, "YS-GPU-040 gpu3: fatal XID 79 (+1 more)");
  EXPECT_EQ(crit.drain_reason, "yardstick: YS-GPU-040 gpu3: fatal XID 79 (+1 more)");
  EXPECT_EQ(crit.details.size(), 3u);

  auto unknown = JudgeHealth(Doc({Check("gpu.ecc", Outcome::kError), Check("gpu.pcie", Outcome::kWarn, "YS-GPU-056", "gen")}));
  EXPECT_EQ(unknown.state, HealthState::kUnknown);
  EXPECT_EQ(unknown.summary, "could not evaluate: gpu.ecc: summary of gpu.ecc");

  auto warn = JudgeHealth(Doc({Check("gpu.pcie", Outcome::kWarn, "YS-GPU-056", "gen 4 under load")}));
  EXPECT_EQ(warn.state, HealthState::kWarning);
  EXPECT_EQ(std::string(HealthStateName(warn.state)), "WARNING");
  EXPECT_EQ(static_cast<int>(HealthState::kUnknown), 3);
}

TEST(NodeHealthTest, DrainReasonIsOneSafeLine) {
  EXPECT_EQ(MakeDrainReason("YS-X a\nb\tc"), "yardstick: YS-X a b c");
  std::string long_reason = MakeDrainReason(std::string(500, 'x'));
  EXPECT_EQ(long_reason.size(), 200u);
  EXPECT_EQ(long_reason.substr(197), "...");
}

TEST(NodeHealthTest, DrainsResumesAndNeverTouchesAnAdminsDrain) {
  HealthVerdict fail{HealthState::kCritical, "YS-GPU-040 gpu3: x", "yardstick: YS-GPU-040 gpu3: x", {}};
  HealthVerdict pass{HealthState::kOk, "ok", "", {}};
  HealthVerdict warn{HealthState::kWarning, "w", "", {}};
  HealthVerdict unknown{HealthState::kUnknown, "?", "", {}};

  EXPECT_EQ(DecideNodeAction(fail, Node("IDLE")).action, NodeAction::kDrain);
  EXPECT_EQ(DecideNodeAction(fail, Node("MIXED")).action, NodeAction::kDrain);
  EXPECT_EQ(DecideNodeAction(fail, Node("IDLE+DRAIN", "yardstick: YS-GPU-040 gpu3: x")).action, NodeAction::kNothing);
  EXPECT_EQ(DecideNodeAction(fail, Node("IDLE+DRAIN", "yardstick: YS-GPU-026 gpu1: y")).action, NodeAction::kUpdateReason);
  auto keep = DecideNodeAction(fail, Node("IDLE+DRAIN", "admin: maintenance"));
  EXPECT_EQ(keep.action, NodeAction::kKeepOtherDrain);
  EXPECT_NE(keep.why.find("admin: maintenance"), std::string::npos);

  EXPECT_EQ(DecideNodeAction(pass, Node("IDLE+DRAIN", "yardstick: YS-GPU-040 gpu3: x")).action, NodeAction::kResume);
  EXPECT_EQ(DecideNodeAction(warn, Node("MIXED+DRAINING", "yardstick: old")).action, NodeAction::kResume);
  EXPECT_EQ(DecideNodeAction(pass, Node("DOWN*+DRAIN", "yardstick: old")).action, NodeAction::kResume);
  auto admin = DecideNodeAction(pass, Node("IDLE+DRAIN", "admin: maintenance"));
  EXPECT_EQ(admin.action, NodeAction::kNothing);
  EXPECT_NE(admin.why.find("not resumed"), std::string::npos);
  // "yardstick" without the colon, or the prefix later in the text, is not ours.
  EXPECT_EQ(DecideNodeAction(pass, Node("IDLE+DRAIN", "yardstick said so")).action, NodeAction::kNothing);
  EXPECT_EQ(DecideNodeAction(pass, Node("IDLE+DRAIN", "admin: after yardstick: x")).action, NodeAction::kNothing);
  // A node that is down but not drained is Slurm's business, not ours.
  EXPECT_EQ(DecideNodeAction(pass, Node("DOWN", "Not responding")).action, NodeAction::kNothing);
  EXPECT_EQ(DecideNodeAction(pass, Node("IDLE")).action, NodeAction::kNothing);
  // Unknown health: neither drain nor resume.
  EXPECT_EQ(DecideNodeAction(unknown, Node("IDLE")).action, NodeAction::kNothing);
  EXPECT_EQ(DecideNodeAction(unknown, Node("IDLE+DRAIN", "yardstick: x")).action, NodeAction::kNothing);
}

TEST(NodeHealthTest, DefaultSubsetIsRegistered) {
  for (const auto& id : DefaultHealthChecks()) {
    const RegisteredUnit* u = UnitRegistry::Global().Find(id);
    EXPECT_TRUE(u != nullptr && u->kind == UnitKind::kCheck) << id << " is not a registered check";
  }
}

}  // namespace
}  // namespace ys::slurm
