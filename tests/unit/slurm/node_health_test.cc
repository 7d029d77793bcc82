#include "slurm/node_health.h"

#include <gtest/gtest.h>

#include "core/finding_codes.h"
#include "core/registry.h"

namespace ys::slurm {
namespace {

CheckResult Check(const std::string& id, Outcome o, const std::string& code = "",
                  const std::string& msg = "") {
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

// A node as scontrol shows it; `user` is the one in Slurm's "[user@time]" suffix.
NodeInfo Node(const std::string& state, const std::string& reason = "",
              const std::string& user = "root") {
  return {"vm", state, reason, reason.empty() ? "" : user,
          reason.empty() ? "" : "2026-11-29T19:11:03"};
}

const DrainOwner kOwner{"3f9a2c1b4d5e6f70", "root"};
std::string Ours(const std::string& reason) { return WithDrainId(reason, kOwner.id); }

TEST(NodeHealthTest, Verdicts) {
  auto ok = JudgeHealth(Doc({Check("gpu.ecc", Outcome::kPass), Check("ib.ports", Outcome::kSkip)}));
  EXPECT_EQ(ok.state, HealthState::kOk);
  EXPECT_EQ(ok.summary, "2 checks passed or did not apply");
  EXPECT_TRUE(ok.drain_reason.empty());

  auto crit =
      JudgeHealth(Doc({Check("gpu.xid", Outcome::kFail, "YS-GPU-040", "fatal XID 79"),
                       Check("gpu.ecc", Outcome::kFail, "YS-GPU-026", "volatile uncorrected ECC"),
                       Check("gpu.thermal", Outcome::kError)}));
  EXPECT_EQ(crit.state, HealthState::kCritical);
  EXPECT_EQ(crit.summary, "YS-GPU-040 gpu3: fatal XID 79 (+1 more)");
  EXPECT_EQ(crit.drain_reason, "yardstick: YS-GPU-040 gpu3: fatal XID 79 (+1 more)");
  EXPECT_EQ(crit.details.size(), 3u);

  auto unknown = JudgeHealth(Doc(
      {Check("gpu.ecc", Outcome::kError), Check("gpu.pcie", Outcome::kWarn, "YS-GPU-056", "gen")}));
  EXPECT_EQ(unknown.state, HealthState::kUnknown);
  EXPECT_EQ(unknown.summary, "could not evaluate: gpu.ecc: summary of gpu.ecc");

  auto warn =
      JudgeHealth(Doc({Check("gpu.pcie", Outcome::kWarn, "YS-GPU-056", "gen 4 under load")}));
  EXPECT_EQ(warn.state, HealthState::kWarning);
  EXPECT_EQ(std::string(HealthStateName(warn.state)), "WARNING");
  EXPECT_EQ(static_cast<int>(HealthState::kUnknown), 3);
}

// A finding of gpu.xid as the check writes it: the XID number first in its "xid" evidence.
Finding XidFinding(const std::string& entity, int xid) {
  Finding f = MakeFinding("YS-GPU-040", entity, "fatal XID " + std::to_string(xid));
  f.evidence.emplace_back("xid", std::to_string(xid) + " (NVIDIA: RESET_GPU; DCGM: fatal)");
  return f;
}

TEST(NodeHealthTest, AGpuLostComesFirstAndEveryFindingIsListed) {
  CheckResult thermal = Check("gpu.thermal", Outcome::kFail, "YS-GPU-020", "at slowdown");
  thermal.findings.push_back(MakeFinding("YS-GPU-021", "gpu5", "near slowdown"));
  thermal.findings.back().severity = Severity::kWarn;
  CheckResult xid = Check("gpu.xid", Outcome::kFail);
  xid.findings = {XidFinding("gpu1", 48), XidFinding("gpu6", 79), XidFinding("gpu7", 79)};
  CheckResult pcie = Check("gpu.pcie", Outcome::kWarn, "YS-GPU-056", "gen 4 under load");
  // Registry order puts gpu.thermal before gpu.xid: urgency, not that order, decides.
  auto v = JudgeHealth(Doc({pcie, thermal, xid}));
  EXPECT_EQ(v.state, HealthState::kCritical);
  EXPECT_EQ(v.summary, "YS-GPU-040 gpu6: fatal XID 79 (+3 more)");
  // Every finding, not the first of each check; the two alike (gpu6, gpu7) on one line.
  ASSERT_EQ(v.details.size(), 5u);
  EXPECT_EQ(v.details[0], "fail gpu.xid: YS-GPU-040 ×2 (gpu6-gpu7): fatal XID 79");
  EXPECT_EQ(v.details[1], "fail gpu.xid: YS-GPU-040 gpu1: fatal XID 48");
  EXPECT_EQ(v.details[2], "fail gpu.thermal: YS-GPU-020 gpu3: at slowdown");
  EXPECT_EQ(v.details[3], "warn gpu.pcie: YS-GPU-056 gpu3: gen 4 under load");
  EXPECT_EQ(v.details[4], "warn gpu.thermal: YS-GPU-021 gpu5: near slowdown");
}

// Eight GPUs with the same inactive link: one line with the count and the GPUs, after the more
// urgent XID and before the warning, as urgency orders them.
TEST(NodeHealthTest, RepeatedFindingsAreOneLineWithTheirCount) {
  CheckResult links = Check("gpu.nvlink", Outcome::kFail);
  for (int i = 0; i < 8; ++i)
    links.findings.push_back(
        MakeFinding("YS-GPU-045", "gpu" + std::to_string(i), "link 7 inactive"));
  links.findings.push_back(MakeFinding("YS-GPU-045", "gpu2", "link 3 inactive"));
  CheckResult pcie = Check("gpu.pcie", Outcome::kWarn, "YS-GPU-056", "gen 4 under load");
  CheckResult xid = Check("gpu.xid", Outcome::kFail);
  xid.findings = {XidFinding("gpu6", 79)};
  auto v = JudgeHealth(Doc({pcie, links, xid}));
  ASSERT_EQ(v.details.size(), 4u);
  EXPECT_EQ(v.details[0], "fail gpu.xid: YS-GPU-040 gpu6: fatal XID 79");
  EXPECT_EQ(v.details[1], "fail gpu.nvlink: YS-GPU-045 ×8 (gpu0-gpu7): link 7 inactive");
  EXPECT_EQ(v.details[2], "fail gpu.nvlink: YS-GPU-045 gpu2: link 3 inactive");
  EXPECT_EQ(v.details[3], "warn gpu.pcie: YS-GPU-056 gpu3: gen 4 under load");
  EXPECT_EQ(v.summary, "YS-GPU-040 gpu6: fatal XID 79 (+9 more)");  // counts every finding
}

TEST(NodeHealthTest, AGpuMissingFromNvmlOutranksAThermalFailure) {
  auto v = JudgeHealth(Doc({Check("gpu.count", Outcome::kFail, "YS-GPU-002", "not in NVML"),
                            Check("gpu.thermal", Outcome::kFail, "YS-GPU-020", "at slowdown")}));
  // gpu.count before gpu.thermal either way; the reverse order tells urgency from check order.
  auto r = JudgeHealth(Doc({Check("gpu.thermal", Outcome::kFail, "YS-GPU-020", "at slowdown"),
                            Check("gpu.count", Outcome::kFail, "YS-GPU-002", "not in NVML")}));
  EXPECT_EQ(v.summary, "YS-GPU-002 gpu3: not in NVML (+1 more)");
  EXPECT_EQ(r.summary, "YS-GPU-002 gpu3: not in NVML (+1 more)");
}

TEST(NodeHealthTest, DrainReasonIsOneSafeLine) {
  EXPECT_EQ(MakeDrainReason("YS-X a\nb\tc"), "yardstick: YS-X a b c");
  std::string long_reason = MakeDrainReason(std::string(500, 'x'));
  EXPECT_EQ(long_reason.size(), 170u);
  EXPECT_EQ(long_reason.substr(167), "...");
  EXPECT_EQ(WithDrainId("yardstick: YS-X a", "00ff"), "yardstick: YS-X a (drain id 00ff)");
  EXPECT_LE(WithDrainId(long_reason, kOwner.id).size(), 200u);
}

TEST(NodeHealthTest, DrainsResumesAndNeverTouchesAnAdminsDrain) {
  HealthVerdict fail{
      HealthState::kCritical, "YS-GPU-040 gpu3: x", "yardstick: YS-GPU-040 gpu3: x", {}};
  HealthVerdict pass{HealthState::kOk, "ok", "", {}};
  HealthVerdict warn{HealthState::kWarning, "w", "", {}};
  HealthVerdict unknown{HealthState::kUnknown, "?", "", {}};
  auto act = [](const HealthVerdict& v, const NodeInfo& n) {
    return DecideNodeAction(v, n, kOwner).action;
  };

  EXPECT_EQ(act(fail, Node("IDLE")), NodeAction::kDrain);
  EXPECT_EQ(act(fail, Node("MIXED")), NodeAction::kDrain);
  EXPECT_EQ(act(fail, Node("IDLE+DRAIN", Ours("yardstick: YS-GPU-040 gpu3: x"))),
            NodeAction::kNothing);
  EXPECT_EQ(act(fail, Node("IDLE+DRAIN", Ours("yardstick: YS-GPU-026 gpu1: y"))),
            NodeAction::kUpdateReason);
  auto keep = DecideNodeAction(fail, Node("IDLE+DRAIN", "admin: maintenance", "alice"), kOwner);
  EXPECT_EQ(keep.action, NodeAction::kKeepOtherDrain);
  EXPECT_NE(keep.why.find("admin: maintenance, set by alice"), std::string::npos) << keep.why;

  EXPECT_EQ(act(pass, Node("IDLE+DRAIN", Ours("yardstick: YS-GPU-040 gpu3: x"))),
            NodeAction::kResume);
  EXPECT_EQ(act(warn, Node("MIXED+DRAINING", Ours("yardstick: old"))), NodeAction::kResume);
  EXPECT_EQ(act(pass, Node("DOWN*+DRAIN", Ours("yardstick: old"))), NodeAction::kResume);
  auto admin = DecideNodeAction(pass, Node("IDLE+DRAIN", "admin: maintenance"), kOwner);
  EXPECT_EQ(admin.action, NodeAction::kNothing);
  EXPECT_NE(admin.why.find("not resumed"), std::string::npos);
  // "yardstick" without the colon, or the prefix later in the text, is not ours.
  EXPECT_EQ(act(pass, Node("IDLE+DRAIN", "yardstick said so")), NodeAction::kNothing);
  EXPECT_EQ(act(pass, Node("IDLE+DRAIN", "admin: after yardstick: x")), NodeAction::kNothing);
  // A node that is down but not drained is Slurm's business, not ours.
  EXPECT_EQ(act(pass, Node("DOWN", "Not responding")), NodeAction::kNothing);
  EXPECT_EQ(act(pass, Node("IDLE")), NodeAction::kNothing);
  // Unknown health: neither drain nor resume.
  EXPECT_EQ(act(unknown, Node("IDLE")), NodeAction::kNothing);
  EXPECT_EQ(act(unknown, Node("IDLE+DRAIN", Ours("yardstick: x"))), NodeAction::kNothing);
}

// The prefix is something anyone can type: a drain is ours only with the id recorded for this
// node AND set by the user yardstick runs as.
TEST(NodeHealthTest, AYardstickReasonFromSomeoneElseIsNotOurs) {
  HealthVerdict pass{HealthState::kOk, "ok", "", {}};
  HealthVerdict fail{
      HealthState::kCritical, "YS-GPU-040 gpu3: x", "yardstick: YS-GPU-040 gpu3: x", {}};
  const std::string foreign = "yardstick: do NOT resume, waiting for RMA";
  for (const NodeInfo& n :
       {Node("IDLE+DRAIN", foreign), Node("IDLE+DRAIN", foreign, "alice"),
        Node("IDLE+DRAIN", WithDrainId("yardstick: x", "0000000000000000")),
        Node("IDLE+DRAIN", Ours("yardstick: x"), "alice"),  // right id, another user
        Node("IDLE+DRAIN", Ours("yardstick: x"), ""),       // no user suffix
        Node("IDLE+DRAIN", Ours("admin: yardstick: x")),    // not our format
        Node("IDLE+DRAIN", Ours("yardstick: x") + " more")}) {
    EXPECT_FALSE(IsOwnDrain(n, kOwner)) << n.reason << " by " << n.reason_user;
    EXPECT_EQ(DecideNodeAction(pass, n, kOwner).action, NodeAction::kNothing) << n.reason;
    EXPECT_EQ(DecideNodeAction(fail, n, kOwner).action, NodeAction::kKeepOtherDrain) << n.reason;
  }
  // No id recorded (none drained by us here, or the record was lost): nothing is ours.
  EXPECT_FALSE(IsOwnDrain(Node("IDLE+DRAIN", Ours("yardstick: x")), DrainOwner{"", "root"}));
  EXPECT_TRUE(IsOwnDrain(Node("IDLE+DRAIN", Ours("yardstick: x")), kOwner));
  EXPECT_FALSE(IsOwnDrain(Node("IDLE", Ours("yardstick: x")), kOwner));
}

TEST(NodeHealthTest, DefaultSubsetIsRegistered) {
  for (const auto& id : DefaultHealthChecks()) {
    EXPECT_NE(UnitRegistry::Global().Find(UnitKind::kCheck, id), nullptr)
        << id << " is not a registered check";
  }
}

}  // namespace
}  // namespace ys::slurm
