// `yardstick healthcheck`: fit for Slurm's HealthCheckProgram. Runs a fast subset of the checks
// in a child process under a watchdog (a hung check ends the run at --timeout, killed), then
// drains this node on a fail with reason "yardstick: CODE entity: message (drain id ID)", or
// resumes it on a pass when, and only when, the drain is its own: the id it recorded under
// --state-dir and the user it runs as (slurm/drain_token.h), never a reason anyone could type.
// Every Slurm call has its own deadline, so an unreachable slurmctld is reported, not waited on.
// Nothing is changed in Slurm unless every input is this node's live state (checks/
// input_provenance.h): a recorded tree or GPU state is judged and reported, the node left alone,
// unless --act-on-recorded says otherwise (tests), which the status line then names.
// --nagios: exit 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN and a one-line status.
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "checks/input_provenance.h"
#include "cli/command.h"
#include "cli/command_watchdog.h"
#include "core/exit_codes.h"
#include "core/log.h"
#include "core/run_document_json.h"
#include "host/subprocess.h"
#include "slurm/drain_token.h"
#include "slurm/node_health.h"
#include "slurm/slurm_client.h"

namespace ys::cli::cmd_healthcheck {
namespace {

using slurm::HealthState;

struct HealthArgs {
  CheckRunArgs checks;
  double timeout_s = 30, slurm_timeout_s = 10;
  bool drain = true, nagios = false;
  bool act_on_recorded = false;  // drain or resume even when the evidence is a recording
  std::string node, state_dir;
};

// --node, else SLURMD_NODENAME (set when slurmd runs the program), else the short host name.
std::string NodeName(const std::string& flag) {
  if (!flag.empty()) return flag;
  if (const char* n = std::getenv("SLURMD_NODENAME"); n != nullptr && *n != '\0') return n;
  char host[256] = {0};
  ::gethostname(host, sizeof host - 1);
  std::string h = host;
  return h.substr(0, h.find('.'));
}

// How long past --timeout the child may take to end itself (naming its step) before it is killed.
constexpr double kChildGraceS = 2;

// The checks, run by this same binary as `yardstick preflight --json` in a child that the
// watchdog can kill: a check stuck in the kernel or in NVML cannot hang the health check. The
// child has the same --timeout and ends itself first when it can, saying which step hung.
Result<RunDocument> RunChecksUnderWatchdog(const HealthArgs& a) {
  std::error_code ec;
  std::string self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (ec) return Status::Io("/proc/self/exe: " + ec.message());
  std::vector<std::string> filters =
      a.checks.filters.empty() ? slurm::DefaultHealthChecks() : a.checks.filters;
  std::string joined;
  for (const auto& f : filters) joined += (joined.empty() ? "" : ",") + f;
  host::SubprocessOptions o;
  o.argv = {self, "preflight", "--json", "--root", a.checks.root, "--filter", joined};
  o.argv.insert(o.argv.end(), {"--timeout", fmt::format("{:g}", a.timeout_s)});
  if (!a.checks.expect.empty()) o.argv.insert(o.argv.end(), {"--expect", a.checks.expect});
  if (!a.checks.nvml_state.empty())
    o.argv.insert(o.argv.end(), {"--nvml-state", a.checks.nvml_state});
  if (!a.checks.kernel_log.empty())
    o.argv.insert(o.argv.end(), {"--kernel-log", a.checks.kernel_log});
  o.timeout = std::chrono::milliseconds(static_cast<int64_t>((a.timeout_s + kChildGraceS) * 1000));
  auto r = host::RunSubprocess(o);
  if (!r.ok()) return r.status();
  auto hung_step = StepOfExpiredWatchdog(r->err, "preflight");
  if (r->timed_out || hung_step) {
    return Status::Io(fmt::format(
        "the checks ({}) did not finish within --timeout {:g} s and were killed; a check "
        "is hung (often a GPU or driver that stopped answering){}",
        joined, a.timeout_s, hung_step ? "; hung in: " + *hung_step : ""));
  }
  auto j = nlohmann::json::parse(r->out, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::Io(r->Explain("preflight"));
  return RunDocumentFromJson(j);
}

int Report(const HealthArgs& a, HealthState state, const std::string& line,
           const std::vector<std::string>& details) {
  std::cout << "HEALTHCHECK " << slurm::HealthStateName(state) << " - " << line << "\n";
  for (const auto& d : details) std::cout << d << "\n";
  if (a.nagios) return static_cast<int>(state);
  switch (state) {
    case HealthState::kOk:
    case HealthState::kWarning:
      return kExitPass;
    case HealthState::kCritical:
      return kExitFail;
    case HealthState::kUnknown:
      return kExitCannotRun;
  }
  return kExitCannotRun;
}

// The recorded inputs of this run, "--root DIR, --nvml-state FILE"; "" when all are this node's
// live state. The options say it; the checks' document is asked too, in case a recording reached
// the checks another way.
std::string RecordedEvidence(const HealthArgs& a, const RunDocument& doc) {
  std::string given =
      checks::DescribeRecorded(checks::InputsOf(PreflightOptionsFor(a.checks, "healthcheck")));
  return !given.empty() ? given : checks::DescribeRecorded(checks::RecordedInputsOf(doc));
}

// Why the node is left alone although the verdict would drain or resume it.
std::string NotActing(HealthState state, const std::string& recorded) {
  return std::string(state == HealthState::kCritical ? "not draining"
                                                     : "node state left as it is (no resume)") +
         ": the evidence is recorded (" + recorded +
         "), not this node's live state (--act-on-recorded acts on it anyway)";
}

// Drains, updates the reason of, or resumes `node` in Slurm as the verdict and the node's
// state decide; `line` is the status line so far.
int UpdateNode(const HealthArgs& a, const std::string& node, const slurm::HealthVerdict& v,
               const std::string& line, CommandWatchdog& dog) {
  slurm::SlurmClient client(
      std::chrono::milliseconds(static_cast<int64_t>(a.slurm_timeout_s * 1000)));
  dog.Step("reading the node's state from Slurm");
  auto info = client.Node(node);
  if (!info.ok()) {
    // A failing node still reports CRITICAL; a healthy one whose state cannot be checked is
    // UNKNOWN.
    HealthState s = v.state == HealthState::kCritical ? v.state : HealthState::kUnknown;
    return Report(a, s,
                  line + "; cannot reach Slurm to " +
                      (v.state == HealthState::kCritical ? "drain" : "check") +
                      " the node: " + info.status().message(),
                  v.details);
  }
  auto store = slurm::DrainTokenStore::Open(a.state_dir.empty() ? slurm::DefaultDrainStateDir()
                                                                : a.state_dir);
  auto id = store.ok() ? store->Load(node) : Result<std::string>(store.status());
  if (!id.ok()) {
    HealthState s = v.state == HealthState::kCritical ? v.state : HealthState::kUnknown;
    return Report(a, s, line + "; node state left as it is: " + id.status().message(), v.details);
  }
  const slurm::DrainOwner owner{*id, slurm::EffectiveUserName()};
  slurm::NodeDecision d = slurm::DecideNodeAction(v, *info, owner);
  Status acted;
  dog.Step("updating the node in Slurm");
  if (d.action == slurm::NodeAction::kDrain) {
    auto fresh = store->Create(node);  // recorded before the drain exists
    acted = fresh.ok() ? client.Drain(node, slurm::WithDrainId(v.drain_reason, *fresh))
                       : fresh.status();
  } else if (d.action == slurm::NodeAction::kUpdateReason) {
    acted = client.Drain(node, slurm::WithDrainId(v.drain_reason, owner.id));
  } else if (!info->Drained() && !owner.id.empty()) {
    acted = store->Remove(node);  // our drain was resumed by someone else: its id means nothing now
  } else if (d.action == slurm::NodeAction::kResume) {
    // Read the reason again right before resuming: an admin may have drained it meanwhile.
    auto again = client.Node(node);
    if (!again.ok()) {
      acted = again.status();
    } else if (slurm::DecideNodeAction(v, *again, owner).action != slurm::NodeAction::kResume) {
      d = slurm::DecideNodeAction(v, *again, owner);
    } else {
      acted = client.Resume(node);
      if (acted.ok()) acted = store->Remove(node);
    }
  }
  if (!acted.ok()) {
    HealthState s = v.state == HealthState::kCritical ? v.state : HealthState::kUnknown;
    return Report(a, s, line + "; " + d.why + " FAILED: " + acted.message(), v.details);
  }
  return Report(a, v.state, line + (d.why.empty() ? "" : "; " + d.why), v.details);
}

int RunHealthcheck(const HealthArgs& a) {
  const std::string node = NodeName(a.node);
  // A backstop over the whole run: the checks and every Slurm call have deadlines of their own.
  CommandWatchdog dog("healthcheck", a.timeout_s + kChildGraceS + 4 * a.slurm_timeout_s + 10,
                      [&a, &node](const std::string& message) {
                        return Report(a, HealthState::kUnknown, node + ": " + message, {});
                      });
  dog.Step("running the checks");
  auto doc = RunChecksUnderWatchdog(a);
  if (!doc.ok())
    return Report(a, HealthState::kUnknown,
                  node + ": " + doc.status().message() + "; node state left as it is", {});
  slurm::HealthVerdict v = slurm::JudgeHealth(*doc);
  std::string line = node + ": " + v.summary;
  if (!a.drain || v.state == HealthState::kUnknown) {
    return Report(a, v.state,
                  line + (v.state == HealthState::kUnknown ? "; node state left as it is" : ""),
                  v.details);
  }
  // Only this node's live state may change it in Slurm: a fixture or another node's dump never.
  if (const std::string recorded = RecordedEvidence(a, *doc); !recorded.empty()) {
    if (!a.act_on_recorded)
      return Report(a, v.state, line + "; " + NotActing(v.state, recorded), v.details);
    line += "; acting on recorded evidence (" + recorded + ") as --act-on-recorded asks";
  }
  return UpdateNode(a, node, v, line, dog);
}

Action Setup(CLI::App& sub) {
  auto a = std::make_shared<HealthArgs>();
  AddCheckRunOptions(sub, a->checks, /*with_root=*/true, /*with_output=*/false);
  sub.add_option("--timeout", a->timeout_s,
                 "Watchdog: seconds the checks may take before they are killed");
  sub.add_option("--slurm-timeout", a->slurm_timeout_s, "Seconds each scontrol call may take");
  sub.add_flag(
      "--drain,!--no-drain", a->drain,
      "Drain this node on a fail and resume it on a pass when yardstick drained it (default on)");
  sub.add_flag("--act-on-recorded", a->act_on_recorded,
               "Drain or resume the node even when the evidence is recorded (--root other than "
               "/, --nvml-state, --kernel-log), not this node's live state: for tests only");
  sub.add_flag("--nagios", a->nagios, "Nagios exit codes: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN");
  sub.add_option("--node", a->node,
                 "Slurm node name (default $SLURMD_NODENAME, else the short host name)");
  sub.add_option(
      "--state-dir", a->state_dir,
      "Where the ids of yardstick's own drains are kept, a directory only this user can write "
      "(default /var/lib/yardstick/healthcheck for root, else "
      "~/.local/state/yardstick/healthcheck)");
  return [a]() -> Result<int> {
    YS_RETURN_IF_ERROR(RefuseOutOfRange(
        {CheckRange(a->timeout_s, 0, kMaxTimeoutSeconds, "--timeout", LowerBound::kExclusive),
         CheckRange(a->slurm_timeout_s, 0, kMaxTimeoutSeconds, "--slurm-timeout",
                    LowerBound::kExclusive)}));
    return RunHealthcheck(*a);
  };
}

}  // namespace

YS_REGISTER(
    CommandOf<Setup>,
    {.id = "healthcheck",
     .summary =
         "Slurm HealthCheckProgram: fast checks under a watchdog; drain on fail, resume only "
         "yardstick's own drains"})

}  // namespace ys::cli::cmd_healthcheck
