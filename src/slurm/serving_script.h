// The sbatch script of one serving phase of a suite (validate::ServingPhase): the job starts the
// serving stack the phase names, waits until it answers, runs the load generator once per
// concurrency point, and leaves in <runs>/<phase id>/ what `yardstick validate` reads:
//   c<C>/                 the load generator's exports at concurrency C (its artifact folder)
//   server.log            the stack's output (disaggregated: infra.log, frontend.log,
//                         prefill_<i>.log, decode_<i>.log)
//   gpu_telemetry_<node>.csv   nvidia-smi sampled through the run on every node (clocks, their
//                         maximum, slowdown reasons, power and its limit: what the diagnosis
//                         judges; a .txt note instead where nvidia-smi is absent)
//   dmesg_<node>.txt      the kernel log of every node at the end (XIDs)
// The job's own log (slurm-<phase id>_<job>.out, with the load generator's console) and script go
// to <runs>/<phase id>.job/, out of the folder the serving formats read (a console summary there
// would be read as a second copy of the point).
//
// Stacks and the commands yardstick makes for them (each replaceable by [serving] in
// cluster.toml, slurm/cluster_config.h):
//   vllm           vllm serve MODEL --tensor-parallel-size TP ...           (one node)
//   sglang         python3 -m sglang.launch_server --model-path MODEL ...   (one node)
//   trtllm         trtllm-serve serve MODEL --tp_size TP ...; across nodes one MPI rank per GPU
//                  (srun --mpi=pmix) through trtllm-llmapi-launch
//   dynamo-trtllm  disaggregated: NATS and etcd and the frontend on the first node, then the
//                  prefill and decode workers (python3 -m dynamo.trtllm through
//                  trtllm-llmapi-launch, one MPI rank per GPU), laid out by DisaggregatedLayout
// Load generators: aiperf (default), genai-perf, vllm (vllm bench serve --save-result).
//
// The job stops every step it started on any exit (trap EXIT, and TERM from scancel or the time
// limit), fails with a message naming the URL when the stack does not answer in
// [serving] health_timeout_s or exits first, and exits with the load generator's code.
// Safety as for slurm/sbatch_script.h: every value in the shell body is single-quoted; only the
// job's own variables ($ys_head, $ys_url) are expanded.
#ifndef YARDSTICK_SLURM_SERVING_SCRIPT_H_
#define YARDSTICK_SLURM_SERVING_SCRIPT_H_

#include <string>
#include <vector>

#include "core/status.h"
#include "slurm/cluster_config.h"
#include "slurm/sbatch_script.h"
#include "validate/serving_phase.h"
#include "validate/suite.h"

namespace ys::slurm {

// One worker of a disaggregated deployment and where it runs in the allocation.
struct ServingWorker {
  std::string role;    // "prefill" or "decode"
  int index = 0;       // within its role
  int tp = 0;          // its GPUs
  int first_node = 0;  // index into the allocation's nodes
  int nodes = 1;
  // Its GPUs on a node it shares with other workers ("0,1,2,3"); empty when it has whole nodes.
  std::string devices;
};

// Prefill workers first, then decode, packed in order: a worker of TP below gpus_per_node takes
// the next free GPUs of the current node (a new node when they do not fit), one of TP a multiple
// of gpus_per_node takes whole nodes of its own. Errors: a TP above gpus_per_node that is not a
// multiple of it. `nodes` receives the node count.
Result<std::vector<ServingWorker>> DisaggregatedLayout(const validate::ServingPhase& phase,
                                                       int gpus_per_node, int* nodes);

// The job of one phase (workload = phase id, log_dir = <runs>/<phase id>.job). `runs_dir` must be
// absolute. Errors: a topology that does not fit the cluster, a stack or load generator yardstick
// cannot launch without a [serving] command, a value that cannot be placed safely.
Result<SbatchJob> MakeServingJob(const ClusterConfig& cluster, const validate::Suite& suite,
                                 const validate::ServingPhase& phase, const std::string& runs_dir);

}  // namespace ys::slurm

#endif  // YARDSTICK_SLURM_SERVING_SCRIPT_H_
