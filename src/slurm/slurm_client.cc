#include "slurm/slurm_client.h"

#include <fmt/format.h>

#include "host/subprocess.h"

namespace ys::slurm {

namespace {

std::string Join(const std::vector<std::string>& v, std::string_view sep) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : std::string(sep)) + s;
  return out;
}

}  // namespace

Result<std::string> SlurmClient::Run(const std::vector<std::string>& argv) const {
  host::SubprocessOptions o;
  o.argv = argv;
  o.timeout = timeout_;
  auto r = host::RunSubprocess(o);
  std::string cmd =
      argv[0] + (argv.size() > 1 ? " " + argv[1] : "") + (argv.size() > 2 ? " " + argv[2] : "");
  if (!r.ok()) return Status(r.status().code(), cmd + ": " + r.status().message());
  if (r->timed_out) {
    return Status::Io(
        fmt::format("{}: no answer within {:.0f} s (killed); is slurmctld reachable? (SLURM_CONF, "
                    "SlurmctldHost)",
                    cmd, static_cast<double>(timeout_.count()) / 1000.0));
  }
  if (!r->Succeeded()) {
    std::string why = r->Explain(cmd);
    if (r->err.find("Unable to contact slurm controller") != std::string::npos) {
      return Status::Io("slurmctld unreachable: " + why);
    }
    return Status::Io(why);
  }
  return std::move(r->out);
}

Result<std::string> SlurmClient::Submit(const std::string& script_path) const {
  auto out = Run({"sbatch", "--parsable", script_path});
  if (!out.ok()) return out.status();
  // "<jobid>" or "<jobid>;<cluster>", then a newline.
  std::string id = out->substr(0, out->find_first_of(";\n"));
  if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos) {
    return Status::Invalid("sbatch --parsable " + script_path + ": expected a job id, got '" +
                           *out + "'");
  }
  return id;
}

Result<std::vector<QueueEntry>> SlurmClient::Queue(const std::vector<std::string>& job_ids) const {
  auto out = Run({"squeue", "-h", "-j", Join(job_ids, ","), "-o", "%i %T"});
  if (!out.ok()) return out.status();
  return ParseSqueue(*out);
}

Result<JobInfo> SlurmClient::Job(const std::string& job_id) const {
  auto out = Run({"scontrol", "show", "job", job_id});
  if (out.ok()) return ParseScontrolJob(*out);
  auto acct = Run({"sacct", "-n", "-P", "-j", job_id, "-o",
                   "JobID,JobName,State,Submit,Start,End,ExitCode,NodeList"});
  if (acct.ok()) return ParseSacct(*acct, job_id);
  return Status::Io(out.status().message() + "; and " + acct.status().message());
}

Result<NodeInfo> SlurmClient::Node(const std::string& node) const {
  auto out = Run({"scontrol", "show", "node", node});
  if (!out.ok()) return out.status();
  return ParseScontrolNode(*out);
}

Status SlurmClient::Drain(const std::string& node, const std::string& reason) const {
  auto out = Run({"scontrol", "update", "NodeName=" + node, "State=DRAIN", "Reason=" + reason});
  return out.ok() ? Status::Ok() : out.status();
}

Status SlurmClient::Resume(const std::string& node) const {
  auto out = Run({"scontrol", "update", "NodeName=" + node, "State=RESUME"});
  return out.ok() ? Status::Ok() : out.status();
}

}  // namespace ys::slurm
