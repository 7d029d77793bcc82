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

// [serving] (optional): how `yardstick submit` runs a suite's serving phases
// (slurm/serving_script.h). Every command overrides the one yardstick makes from the phase's stack
// and load generator, so that a site can put in its exact launch line. Placeholders, replaced per
// phase: {phase} {model} {served_model} {stack} {gpus} {nodes} {gpus_per_node} {tp} {ep} {dp}
// {pp} {port} {isl} {osl} {runs_dir} {log_dir}; in the load command also {concurrency}
// {requests} {warmup_requests} {artifact_dir}; {host} and {url} (the head node and
// http://<head>:<port>) are known only when the job runs and are filled in by the job's shell.
// In the disaggregated worker commands {tp} is the worker's TP and {ep} equals it.
struct ServingConfig {
  bool present = false;  // the table was given
  std::string image;     // overrides the phase's container; empty: the phase's (none: host)
  int port = 8000;
  std::string health_path = "/v1/models";     // polled until it answers 200
  int health_timeout_s = 1800;                // then the job fails, saying so
  int telemetry_interval_ms = 1000;           // nvidia-smi -lms
  std::vector<std::string> server_command;    // aggregated stacks (vllm, sglang, trtllm)
  std::vector<std::string> frontend_command;  // disaggregated: the frontend/router
  std::vector<std::string> prefill_command, decode_command;  // disaggregated workers
  std::vector<std::string> load_command;  // the load generator, once per concurrency
};

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
  // [launch] (required unless [serving] is given: a cluster for serving phases only)
  // The program each rank runs (srun ... -- command). Placeholders replaced per workload:
  // {workload} {model} {size} {dtype} {gpus} {nodes} {gpus_per_node} {seq_len} {gbs}
  // {framework} {runs_dir} {log_dir}.
  std::vector<std::string> command;
  std::vector<std::string> srun_options;  // extra srun options, each one argument
  // [environment]: exported before srun (and so seen inside the container).
  std::map<std::string, std::string> environment;
  ServingConfig serving;
  std::string path;  // the file it was read from
};

Result<ClusterConfig> ParseClusterConfig(std::string_view toml_text, const std::string& path);
Result<ClusterConfig> LoadClusterConfig(const std::string& path);

}  // namespace ys::slurm

#endif  // YARDSTICK_SLURM_CLUSTER_CONFIG_H_
