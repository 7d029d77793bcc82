// The sbatch script for one workload of a suite, as the recipes run it: --exclusive --mem=0,
// the GPUs per node through #SBATCH --gres=gpu:N and --ntasks-per-node (llmb-run only sets
// SBATCH_GPUS_PER_NODE, which clusters that require --gres reject), one rank per GPU started by
// `srun --mpi=pmix`, Pyxis --container-image/--container-mounts with the NCCL topology file
// mounted and NCCL_TOPO_FILE naming its in-container path.
//
// Safety: #SBATCH values are validated tokens (slurm/shell_quote.h); everything in the shell body
// is single-quoted; the script is written to a file and submitted as `sbatch --parsable FILE`,
// never through a shell. A value that cannot be made safe is an error naming it.
#ifndef YARDSTICK_SLURM_SBATCH_SCRIPT_H_
#define YARDSTICK_SLURM_SBATCH_SCRIPT_H_

#include <map>
#include <string>
#include <string_view>

#include "core/status.h"
#include "slurm/cluster_config.h"
#include "validate/suite.h"

namespace ys::slurm {

struct SbatchJob {
  std::string workload;  // suite workload id
  std::string job_name;  // "ys_<workload>"
  int nodes = 0;
  int tasks_per_node = 0;
  std::string log_dir;      // <runs>/<workload>: where validate finds the log (plain layout)
  std::string log_pattern;  // <log_dir>/log-<workload>_%j_0.out (sbatch replaces %j)
  std::string script_path;  // <log_dir>/<workload>.sbatch
  std::string script;       // the script's text
};

// `runs_dir` must be absolute (the job runs elsewhere). Errors: a workload whose GPU count does
// not fit the cluster (not a multiple of gpus_per_node, more nodes than [slurm] nodes), or a name
// or path that cannot be placed in the script safely.
Result<SbatchJob> MakeSbatchJob(const ClusterConfig& cluster, const validate::Suite& suite,
                                const validate::SuiteWorkload& workload,
                                const std::string& runs_dir);

// The pieces the serving jobs (slurm/serving_script.h) share with the training ones.

// The runs directory as the scripts name it: absolute, safe in an #SBATCH line, no trailing '/'.
Result<std::string> ScriptRunsDir(const std::string& runs_dir);

// The script's head: shebang, `comment` (one line), the #SBATCH lines of `job` and [slurm]
// (--gres=gpu:<tasks_per_node> where [slurm] gres), `set -euo pipefail`, then the exports of
// [environment], NCCL_TOPO_FILE and `env` (which wins), values single-quoted.
Result<std::string> SbatchPreamble(const ClusterConfig& c, const SbatchJob& job,
                                   std::string_view comment,
                                   const std::map<std::string, std::string>& env);

// Every {name} of `arg` replaced by its value in `values`; other text kept as it is.
std::string SubstitutePlaceholders(const std::string& arg,
                                   const std::map<std::string, std::string>& values);

// Appends ' <value single-quoted>' to *line (errors only for a NUL).
Status AppendQuoted(std::string* line, std::string_view value);

// The Pyxis flags for `image` (empty: none): --container-image, the [container] mounts and NCCL
// topology file, --container-writable --no-container-mount-home; each quoted, each with a
// leading space.
Result<std::string> ContainerFlags(const ClusterConfig& c, const std::string& image);

}  // namespace ys::slurm

#endif  // YARDSTICK_SLURM_SBATCH_SCRIPT_H_
