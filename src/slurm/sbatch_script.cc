#include "slurm/sbatch_script.h"

#include <fmt/format.h>

#include <map>

#include "core/path_component.h"
#include "slurm/shell_quote.h"

namespace ys::slurm {

std::string SubstitutePlaceholders(const std::string& arg,
                                   const std::map<std::string, std::string>& values) {
  std::string out;
  for (size_t i = 0; i < arg.size();) {
    if (arg[i] == '{') {
      size_t e = arg.find('}', i);
      if (e != std::string::npos) {
        auto it = values.find(arg.substr(i + 1, e - i - 1));
        if (it != values.end()) {
          out += it->second;
          i = e + 1;
          continue;
        }
      }
    }
    out += arg[i++];
  }
  return out;
}

Status AppendQuoted(std::string* line, std::string_view value) {
  auto q = ShellQuote(value);
  if (!q.ok()) return q.status();
  *line += ' ';
  *line += *q;
  return Status::Ok();
}

Result<std::string> ContainerFlags(const ClusterConfig& c, const std::string& image) {
  std::string flags;
  if (image.empty()) return flags;
  std::string mounts;
  for (const auto& m : c.mounts) mounts += (mounts.empty() ? "" : ",") + m;
  if (!c.nccl_topo_file.empty()) {
    mounts += (mounts.empty() ? "" : ",") + c.nccl_topo_file + ":" + c.nccl_topo_mount + ":ro";
  }
  YS_RETURN_IF_ERROR(AppendQuoted(&flags, "--container-image=" + image));
  if (!mounts.empty()) YS_RETURN_IF_ERROR(AppendQuoted(&flags, "--container-mounts=" + mounts));
  flags += " --container-writable --no-container-mount-home";
  return flags;
}

Result<std::string> ScriptRunsDir(const std::string& runs_dir) {
  if (runs_dir.empty() || runs_dir[0] != '/')
    return Status::Invalid("runs directory '" + runs_dir + "': must be absolute");
  YS_RETURN_IF_ERROR(ValidateSbatchToken("runs directory", runs_dir));
  std::string dir = runs_dir;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir;
}

Result<std::string> SbatchPreamble(const ClusterConfig& c, const SbatchJob& job,
                                   std::string_view comment,
                                   const std::map<std::string, std::string>& extra_env) {
  std::string line(comment);  // one comment line, whatever the suite's strings hold
  for (char& ch : line) ch = (ch == '\n' || ch == '\r') ? ' ' : ch;
  std::string s = "#!/bin/bash\n# " + line + "\n";
  s += "#SBATCH --job-name=" + job.job_name + "\n";
  s += "#SBATCH --partition=" + c.partition + "\n";
  if (!c.account.empty()) s += "#SBATCH --account=" + c.account + "\n";
  if (!c.qos.empty()) s += "#SBATCH --qos=" + c.qos + "\n";
  s += "#SBATCH --time=" + c.time_limit + "\n";
  s += fmt::format("#SBATCH --nodes={}\n#SBATCH --ntasks-per-node={}\n", job.nodes,
                   job.tasks_per_node);
  if (c.gres) s += fmt::format("#SBATCH --gres=gpu:{}\n", job.tasks_per_node);
  s += "#SBATCH --exclusive\n#SBATCH --mem=0\n";
  s += "#SBATCH --output=" + job.log_pattern + "\n";
  for (const auto& o : c.sbatch_options) {
    YS_RETURN_IF_ERROR(ValidateSbatchToken("sbatch option", o));
    s += "#SBATCH " + o + "\n";
  }
  s += "set -euo pipefail\n";
  std::map<std::string, std::string> env = c.environment;
  if (!c.nccl_topo_file.empty()) env["NCCL_TOPO_FILE"] = c.nccl_topo_mount;
  for (const auto& [k, v] : extra_env) env[k] = v;
  for (const auto& [k, v] : env) {
    YS_RETURN_IF_ERROR(ValidateEnvName("environment variable", k));
    auto q = ShellQuote(v);
    if (!q.ok()) return Status::Invalid("environment " + k + ": " + q.status().message());
    s += "export " + k + "=" + *q + "\n";
  }
  return s;
}

namespace {

// The script's last line: srun with the container flags and the [launch] command, its
// placeholders filled in for this workload, every word quoted.
Result<std::string> SrunLine(const ClusterConfig& c, const validate::SuiteWorkload& w,
                             const SbatchJob& job, const std::string& dir) {
  std::string srun = "exec srun --mpi=pmix";
  auto container = ContainerFlags(c, c.image);
  if (!container.ok()) return container.status();
  srun += *container;
  for (const auto& o : c.srun_options) YS_RETURN_IF_ERROR(AppendQuoted(&srun, o));
  srun += " --";
  const std::map<std::string, std::string> values = {
      {"workload", w.id},
      {"model", w.model},
      {"size", w.size},
      {"dtype", w.dtype},
      {"gpus", std::to_string(w.gpus)},
      {"nodes", std::to_string(job.nodes)},
      {"gpus_per_node", std::to_string(c.gpus_per_node)},
      {"seq_len", std::to_string(w.seq_len)},
      {"gbs", std::to_string(w.gbs)},
      {"framework", w.framework},
      {"runs_dir", dir},
      {"log_dir", job.log_dir}};
  for (const auto& a : c.command) {
    if (Status st = AppendQuoted(&srun, SubstitutePlaceholders(a, values)); !st.ok()) {
      return Status::Invalid("[launch] command: " + st.message());
    }
  }
  return srun;
}

}  // namespace

Result<SbatchJob> MakeSbatchJob(const ClusterConfig& c, const validate::Suite& suite,
                                const validate::SuiteWorkload& w, const std::string& runs_dir) {
  YS_RETURN_IF_ERROR(ValidatePathComponent("workload id", w.id));
  YS_RETURN_IF_ERROR(ValidatePathComponent("suite chip", suite.chip));
  YS_RETURN_IF_ERROR(ValidatePathComponent("suite recipe_release", suite.recipe_release));
  auto runs = ScriptRunsDir(runs_dir);
  if (!runs.ok()) return runs.status();
  const std::string& dir = *runs;
  if (c.command.empty()) {
    return Status::Invalid(fmt::format(
        "workload {}: {} has no [launch] command (a training workload needs one)", w.id, c.path));
  }

  SbatchJob job;
  job.workload = w.id;
  job.job_name = "ys_" + w.id;
  if (w.gpus <= 0) return Status::Invalid("workload " + w.id + ": no GPU count");
  if (w.gpus < c.gpus_per_node) {
    job.nodes = 1;
    job.tasks_per_node = w.gpus;
  } else if (w.gpus % c.gpus_per_node != 0) {
    return Status::Invalid(
        fmt::format("workload {}: {} GPUs is not a whole number of nodes of {} GPUs "
                    "({} gpus_per_node)",
                    w.id, w.gpus, c.gpus_per_node, c.path));
  } else {
    job.nodes = w.gpus / c.gpus_per_node;
    job.tasks_per_node = c.gpus_per_node;
  }
  if (c.nodes > 0 && job.nodes > c.nodes) {
    return Status::Invalid(
        fmt::format("workload {}: needs {} nodes ({} GPUs at {} per node); {} says the "
                    "cluster has {} (nodes)",
                    w.id, job.nodes, w.gpus, c.gpus_per_node, c.path, c.nodes));
  }
  job.log_dir = dir + "/" + w.id;
  job.log_pattern = job.log_dir + "/log-" + w.id + "_%j_0.out";
  job.script_path = job.log_dir + "/" + w.id + ".sbatch";

  auto s = SbatchPreamble(
      c, job,
      fmt::format("Generated by `yardstick submit`: suite {} ({}), workload {}, {} GPUs on {} "
                  "node(s).",
                  suite.chip, suite.recipe_release, w.id, w.gpus, job.nodes),
      {{"YARDSTICK_WORKLOAD", w.id}});
  if (!s.ok()) return s.status();

  auto srun = SrunLine(c, w, job, dir);
  if (!srun.ok()) return srun.status();
  *s += *srun + "\n";
  job.script = std::move(*s);
  return job;
}

}  // namespace ys::slurm
