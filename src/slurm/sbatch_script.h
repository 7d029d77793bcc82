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

#include <string>

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

}  // namespace ys::slurm

#endif  // YARDSTICK_SLURM_SBATCH_SCRIPT_H_
