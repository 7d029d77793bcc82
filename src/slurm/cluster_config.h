// cluster.toml: how `yardstick submit` reaches a Slurm cluster and launches a suite's recipes
// there (examples/cluster.toml). Read strictly: an unknown key, a missing required key or a
// value of the wrong type is an error naming the file, the line and the key.
#ifndef YARDSTICK_SLURM_CLUSTER_CONFIG_H_
#define YARDSTICK_SLURM_CLUSTER_CONFIG_H_

#include <map>
#include <string>
#include <vector>

#include "core/status.h"

namespace ys::slurm {

struct ClusterConfig {
  // [slurm]
  std::string partition;
  std::string account;     // empty: none
  std::string qos;         // empty: none
  std::string time_limit;  // Slurm's format: "MM", "HH:MM:SS", "D-HH:MM:SS"
  int gpus_per_node = 8;
  int nodes = 0;     // nodes available to these jobs; 0: not stated (no check)
  bool gres = true;  // #SBATCH --gres=gpu:N; false on clusters without a GPU GRES
  std::vector<std::string> sbatch_options;  // extra #SBATCH lines, each "--key=value" or "--flag"
  // [container] (Pyxis); an empty image: no container flags
  std::string image;
  std::vector<std::string> mounts;  // "host[:container[:flags]]"
  std::string nccl_topo_file;       // host path of the NCCL topology file; empty: none
  std::string nccl_topo_mount = "/opt/yardstick/nccl-topo.xml";  // its path in the container
  // [launch]
  // The program each rank runs (srun ... -- command). Placeholders replaced per workload:
  // {workload} {model} {size} {dtype} {gpus} {nodes} {gpus_per_node} {seq_len} {gbs}
  // {framework} {runs_dir} {log_dir}.
  std::vector<std::string> command;
  std::vector<std::string> srun_options;  // extra srun options, each one argument
  // [environment]: exported before srun (and so seen inside the container).
  std::map<std::string, std::string> environment;
  std::string path;  // the file it was read from
};

Result<ClusterConfig> ParseClusterConfig(std::string_view toml_text, const std::string& path);
Result<ClusterConfig> LoadClusterConfig(const std::string& path);

}  // namespace ys::slurm

#endif  // YARDSTICK_SLURM_CLUSTER_CONFIG_H_
