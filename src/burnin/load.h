// The burn-in's loads: sustained work from the micro-benchmarks with every result checked
// against a reference (bit for bit), one EntitySample per loaded entity per cycle.
//
//   compute  GPU: cuBLASLt BF16 GEMM on each GPU this process drives, output compared bitwise
//            with the first output (across repeats) and by SHA-256 digest across GPUs and ranks.
//            No usable GPU: OpenBLAS sgemm (one thread per core, pinned) on every core this
//            process may use, compared the same way across repeats and cores. Entities "gpuN" /
//            "cpuN" (the CPU's logical number).
//   memory   GPU: device-to-device copy of a deterministic pattern, verified. CPU: STREAM triad
//            per core worker on arrays beyond its share of the last-level cache, every element
//            verified against the exact expected value. Rate GB/s (STREAM's byte count).
//   network  all_reduce of a deterministic buffer across the job's ranks (MPI on host buffers,
//            NCCL on GPUs when usable), every element checked (comm/collective_data.h), busbw
//            with the nccl-tests factor. Entity "net" on rank 0 (job-wide). Needs >= 2 ranks.
//   mixed    all of the above that apply; the driver runs one per cycle in rotation.
//
// Where a job has several ranks on one node, CPU workers run on the node's first rank only (so
// cores are not loaded twice); each rank drives its own GPU (local rank = GPU index).
#ifndef YARDSTICK_BURNIN_LOAD_H_
#define YARDSTICK_BURNIN_LOAD_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "burnin/observation.h"
#include "burnin/timeline.h"
#include "comm/communicator.h"
#include "core/status.h"
#include "host/host.h"

namespace ys::burnin {

enum class Profile { kCompute, kMemory, kNetwork, kMixed };
const char* ProfileName(Profile p);  // "compute", "memory", "network", "mixed"
// Invalid("--profile \"x\": expected compute, memory, network or mixed").
Result<Profile> ParseProfile(std::string_view text);

enum class Device { kAuto, kCpu, kGpu };  // --backend: kAuto uses GPUs when usable

struct LoadContext {
  const host::Host* host = nullptr;
  comm::Communicator* comm = nullptr;
  comm::LaunchInfo launch;
  std::string node;  // this rank's host name (EntitySample::node)
  Device device = Device::kAuto;
  // A recorded timeline's planted faults (tests), or nullptr: a load asks it whether to flip a
  // bit of an entity's output before the check, so the check itself is what catches it.
  const Timeline* timeline = nullptr;
  // Test sizes: smaller operands so a short burn-in cycles quickly (0: the load's default).
  int gemm_n = 0;
  uint64_t stream_bytes = 0;  // per array per worker
  uint64_t allreduce_bytes = 0;
};

class Load {
 public:
  virtual ~Load() = default;
  virtual std::string_view name() const = 0;  // "compute.cpu", "memory.gpu", "network.mpi"
  // Keeps the load busy for about `seconds` from load time `at_s`, checking every result, and
  // appends one sample per entity it loads on this rank (possibly none: "net" on ranks > 0).
  // Collective loads must be entered by every rank together. An error is for this cycle only;
  // the driver records it as the entities' load_error and goes on.
  virtual Status RunCycle(double at_s, double seconds, std::vector<EntitySample>& out) = 0;
};

// The CPUs this rank's CPU loads run on (one pinned worker each): the CPUs of the process's
// affinity mask on the node's first rank when no GPU is driven; empty otherwise.
std::vector<int> CpuWorkers(const LoadContext& ctx);

// The loads of `profile` for this rank, in rotation order. Invalid when the profile cannot run
// here (network on one rank and one device: comm::kNothingToExchange; --backend gpu without a
// usable GPU); every rank gets the same answer. On a GPU node without a launcher, the network
// load's all_reduce spans every local GPU from this one process.
Result<std::vector<std::unique_ptr<Load>>> MakeLoads(Profile profile, const LoadContext& ctx);

}  // namespace ys::burnin

#endif  // YARDSTICK_BURNIN_LOAD_H_
