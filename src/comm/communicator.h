// The communicator: how the ranks of one yardstick job talk to each other (docs/design.md §layers).
//
// This is the control plane every layer may use: rank and size, a barrier, and gathering or
// broadcasting opaque byte strings (result documents, host names, a NCCL unique id). The data
// plane of the collective benchmarks (MPI on host buffers, NCCL on device buffers) lives beside
// it in comm/collectives.h.
//
// Launched without a launcher, yardstick is one process: SingleProcessCommunicator. Launched by
// mpirun or srun (detected from the launcher's environment variables), it is one rank of an MPI
// job: MpiCommunicator, which owns MPI_Init/MPI_Finalize. Not thread safe: one thread (the main
// one) makes all calls.
#ifndef YARDSTICK_COMM_COMMUNICATOR_H_
#define YARDSTICK_COMM_COMMUNICATOR_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "host/environment.h"

namespace ys::comm {

// What the launcher told this process about the job, from its environment variables:
// OpenMPI's mpirun (OMPI_COMM_WORLD_*), PMIx (PMIX_RANK), Slurm's srun (SLURM_PROCID,
// SLURM_NTASKS, SLURM_LOCALID with SLURM_STEP_ID), or PMI-1/2 (PMI_RANK, PMI_SIZE).
struct LaunchInfo {
  std::string launcher;  // "mpirun", "srun", "pmix", "pmi"; empty: not launched as a job
  int rank = 0;
  int size = 1;
  int local_rank = 0;  // rank among the processes on this node, when the launcher says
  int local_size = 1;
  bool launched() const { return !launcher.empty(); }
};
LaunchInfo DetectLaunch(const host::Environment& env);

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // "single" or "mpi".
  virtual const char* backend() const = 0;

  virtual Status Barrier() = 0;
  // Every rank contributes `mine`; every rank receives all of them, index = rank.
  virtual Result<std::vector<std::string>> AllGather(std::string_view mine) = 0;
  // Every rank contributes `mine`; rank `root` receives all of them (index = rank), the others
  // an empty vector.
  virtual Result<std::vector<std::string>> Gather(std::string_view mine, int root) = 0;
  // `data` of rank `root` replaces `data` on every other rank.
  virtual Status Broadcast(std::string& data, int root) = 0;
  // Every rank receives the maximum (the minimum) of `value` over the ranks.
  virtual Result<double> AllReduceMax(double value) = 0;
  virtual Result<double> AllReduceMin(double value) = 0;

  // The host names of all ranks, index = rank (gathered once, cached).
  Result<std::vector<std::string>> Hostnames();

 private:
  std::vector<std::string> hostnames_;
};

class SingleProcessCommunicator final : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  const char* backend() const override { return "single"; }
  Status Barrier() override { return Status::Ok(); }
  Result<std::vector<std::string>> AllGather(std::string_view mine) override {
    return std::vector<std::string>{std::string(mine)};
  }
  Result<std::vector<std::string>> Gather(std::string_view mine, int) override {
    return std::vector<std::string>{std::string(mine)};
  }
  Status Broadcast(std::string&, int) override { return Status::Ok(); }
  Result<double> AllReduceMax(double v) override { return v; }
  Result<double> AllReduceMin(double v) override { return v; }
};

// The communicator for this process: MPI when `env` shows a launcher, else single process.
// Calls MPI_Init_thread once per process; an MPI error becomes a Status naming the call.
Result<std::unique_ptr<Communicator>> OpenCommunicator(const host::Environment& env);

// The MPI communicator directly (tests and `--backend` choices); MPI_Init on first use,
// MPI_Finalize at process exit.
Result<std::unique_ptr<Communicator>> OpenMpiCommunicator();

}  // namespace ys::comm

#endif  // YARDSTICK_COMM_COMMUNICATOR_H_
