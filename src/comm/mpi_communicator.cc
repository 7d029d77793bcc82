// The MPI communicator (OpenMPI through PMIx under mpirun or srun --mpi=pmix).
//
// Errors return instead of aborting the job (MPI_ERRORS_RETURN on the communicator), so that a
// rank that dies shows up as a Status naming the call rather than as a silent abort.
#include <mpi.h>

#include <cstdlib>
#include <mutex>

#include "comm/communicator.h"
#include "comm/mpi_error.h"

namespace ys::comm {
namespace {

// MPI is initialised once per process and finalised at exit (after main returns).
Status EnsureMpiInitialised() {
  static std::once_flag once;
  static Status status = Status::Ok();
  std::call_once(once, [] {
    int initialised = 0;
    MPI_Initialized(&initialised);
    if (initialised) return;
    // Plain MPI_Init, as nccl-tests and IMB use: only the main thread ever calls MPI (the
    // watchdog, the liveness responder and BLAS threads never do), and asking for
    // MPI_THREAD_FUNNELED makes Open MPI 4.1 take locks that add about 0.1 us to every small
    // call, which would show in our small-message figures and not in theirs.
    int rc = MPI_Init(nullptr, nullptr);
    if (rc != MPI_SUCCESS) {
      status = MpiError("MPI_Init", rc);
      return;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    std::atexit([] {
      int finalised = 0;
      MPI_Finalized(&finalised);
      if (!finalised) MPI_Finalize();
    });
  });
  return status;
}

class MpiCommunicator final : public Communicator {
 public:
  MpiCommunicator() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  const char* backend() const override { return "mpi"; }

  Status Barrier() override {
    int rc = MPI_Barrier(MPI_COMM_WORLD);
    return rc == MPI_SUCCESS ? Status::Ok() : MpiError("MPI_Barrier", rc);
  }

  Result<std::vector<std::string>> AllGather(std::string_view mine) override {
    int len = static_cast<int>(mine.size());
    std::vector<int> lens(size_);
    int rc = MPI_Allgather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) return MpiError("MPI_Allgather", rc);
    std::vector<int> displs(size_);
    int total = 0;
    for (int r = 0; r < size_; ++r) {
      displs[r] = total;
      total += lens[r];
    }
    std::string all(static_cast<size_t>(total), '\0');
    rc = MPI_Allgatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(),
                        MPI_CHAR, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) return MpiError("MPI_Allgatherv", rc);
    std::vector<std::string> out;
    out.reserve(size_);
    for (int r = 0; r < size_; ++r) out.push_back(all.substr(displs[r], lens[r]));
    return out;
  }

  Result<std::vector<std::string>> Gather(std::string_view mine, int root) override {
    int len = static_cast<int>(mine.size());
    std::vector<int> lens(rank_ == root ? size_ : 0);
    int rc = MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, root, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) return MpiError("MPI_Gather", rc);
    std::vector<int> displs(lens.size());
    int total = 0;
    for (size_t r = 0; r < lens.size(); ++r) {
      displs[r] = total;
      total += lens[r];
    }
    std::string all(static_cast<size_t>(total), '\0');
    rc = MPI_Gatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR,
                     root, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) return MpiError("MPI_Gatherv", rc);
    std::vector<std::string> out;
    out.reserve(lens.size());
    for (size_t r = 0; r < lens.size(); ++r) out.push_back(all.substr(displs[r], lens[r]));
    return out;
  }

  Status Broadcast(std::string& data, int root) override {
    unsigned long long len = data.size();
    int rc = MPI_Bcast(&len, 1, MPI_UNSIGNED_LONG_LONG, root, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) return MpiError("MPI_Bcast", rc);
    data.resize(len);
    rc = MPI_Bcast(data.data(), static_cast<int>(len), MPI_CHAR, root, MPI_COMM_WORLD);
    return rc == MPI_SUCCESS ? Status::Ok() : MpiError("MPI_Bcast", rc);
  }

  Result<double> AllReduceMax(double value) override { return Reduce(value, MPI_MAX); }
  Result<double> AllReduceMin(double value) override { return Reduce(value, MPI_MIN); }

 private:
  Result<double> Reduce(double value, MPI_Op op) {
    double out = 0;
    int rc = MPI_Allreduce(&value, &out, 1, MPI_DOUBLE, op, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) return MpiError("MPI_Allreduce", rc);
    return out;
  }

  int rank_ = 0;
  int size_ = 1;
};

}  // namespace

Result<std::unique_ptr<Communicator>> OpenMpiCommunicator() {
  if (Status s = EnsureMpiInitialised(); !s.ok()) return s;
  return std::unique_ptr<Communicator>(std::make_unique<MpiCommunicator>());
}

}  // namespace ys::comm
