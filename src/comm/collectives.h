// The data plane of the collective benchmarks: buffers where the backend computes, one
// collective call at a time, and the data check (comm/collective_data.h).
//
// Two backends: MPI on host buffers (collectives_mpi.cc) and NCCL on device buffers
// (collectives_nccl.cc; libnccl.so.2 and libcuda.so.1 opened at run time, the NCCL unique id
// broadcast over the control-plane Communicator, one GPU per local rank; or, without a launcher,
// one process driving every local GPU). Every rank of the group makes the same calls in the same
// order; Split() is collective over the group.
//
// Buffers follow nccl-tests: a send and a receive buffer, each as large as the largest
// max(send, receive) bytes of the sweep; iteration i of a timed loop works at byte offset
// `shift` (nccl-tests rotates through the buffer to avoid cache effects). In place, the input
// and the output live in the receive buffer (InputRegion/OutputRegion say where).
//
// Not thread safe; one thread drives a backend.
#ifndef YARDSTICK_COMM_COLLECTIVES_H_
#define YARDSTICK_COMM_COLLECTIVES_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "comm/collective_data.h"
#include "comm/communicator.h"
#include "core/status.h"

namespace ys::comm {

enum class BufferKind { kSend, kRecv };

// Anonymous private memory from mmap: page-aligned, zero-filled, unmapped on destruction.
// Host buffers and the data check's staging use it rather than malloc so that the benchmark's
// own large allocations leave the heap (and glibc's dynamic mmap and trim thresholds) as a
// plain MPI program would have them: the MPI library allocates its temporaries there.
class MappedBuffer {
 public:
  static Result<MappedBuffer> Map(size_t bytes);
  MappedBuffer() = default;
  MappedBuffer(MappedBuffer&& o) noexcept { *this = std::move(o); }
  MappedBuffer& operator=(MappedBuffer&& o) noexcept;
  MappedBuffer(const MappedBuffer&) = delete;
  MappedBuffer& operator=(const MappedBuffer&) = delete;
  ~MappedBuffer();
  char* data() const { return data_; }
  size_t bytes() const { return bytes_; }
  // Makes the buffer at least `bytes` long (contents lost when it grows).
  Status Grow(size_t bytes);

 private:
  char* data_ = nullptr;
  size_t bytes_ = 0;   // usable
  size_t mapped_ = 0;  // rounded up to pages
};

// Where a collective's input or output lies: a buffer and a byte offset into it.
struct BufferRegion {
  BufferKind buffer = BufferKind::kSend;
  size_t offset = 0;
};

// OK when [offset, offset + bytes) lies within a buffer of `have` bytes; Internal naming the
// range otherwise (a bug in the caller, never the operator's input).
Status CheckBufferRange(size_t offset, size_t bytes, size_t have);

class CollectiveBackend {
 public:
  virtual ~CollectiveBackend() = default;

  virtual const char* name() const = 0;  // "mpi", "nccl"
  // Where the buffers live: "cpu" or "gpu<ordinal>".
  virtual std::string device() const = 0;
  // The library and version, e.g. "Open MPI v4.1.4", "NCCL 2.28.9".
  virtual std::string library() const = 0;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual bool Supports(DataType t) const = 0;

  // Makes the send and receive buffers at least `bytes` long each (contents undefined).
  virtual Status Reserve(size_t bytes) = 0;
  // Host <-> buffer copies and zeroing, for the data check (never inside a timed loop).
  virtual Status Upload(BufferKind b, size_t offset, const void* src, size_t bytes) = 0;
  virtual Status Download(BufferKind b, size_t offset, void* dst, size_t bytes) = 0;
  virtual Status Zero(BufferKind b, size_t bytes) = 0;

  // Issues one collective, out of place or in place, at byte offset `shift` of both buffers.
  // May return before the operation completes (NCCL enqueues on a stream); Synchronize waits.
  virtual Status Launch(const CollectiveOp& op, bool in_place, size_t shift) = 0;
  virtual Status Synchronize() = 0;

  // A sub-group of this group: ranks passing the same `color` >= 0 form one, ordered by `key`;
  // a rank passing a negative color gets nullptr. Every rank of this group must call it.
  virtual Result<std::unique_ptr<CollectiveBackend>> Split(int color, int key) = 0;

  // Where the input (the output) of `op` is for this rank (nccl-tests' conventions; MPI
  // overrides where its in-place semantics differ).
  virtual BufferRegion InputRegion(const CollectiveOp& op, bool in_place) const;
  virtual BufferRegion OutputRegion(const CollectiveOp& op, bool in_place) const;

  // The ranks this process drives, each a backend of its own for the data check (its rank,
  // Upload, Download, Zero and regions): {this} where a process drives one rank (MPI; NCCL with
  // one GPU per rank); one per GPU in the one-process mode (OpenNcclLocalGpus), whose Launch,
  // Synchronize and Reserve cover them all. Owned by this backend.
  virtual std::vector<CollectiveBackend*> LocalRanks() { return {this}; }

  // Test hook: the next CheckData() of the first local rank flips element `index` of the output
  // it read, as a fault would, once. Lets a test prove that the check catches a wrong element.
  void CorruptNextCheck(size_t index) { LocalRanks().front()->corrupt_index_ = index; }

 private:
  friend Status PrepareData(CollectiveBackend&, const CollectiveOp&, bool, uint32_t);
  friend Result<int64_t> CheckData(CollectiveBackend&, const CollectiveOp&, bool, uint32_t);
  std::optional<size_t> corrupt_index_;
  MappedBuffer staging_;  // host copy of an input or output for the data check
};

// Zeroes the receive buffer and writes this rank's input for check round `seed` where `op` reads
// it (offset 0, no shift).
Status PrepareData(CollectiveBackend& backend, const CollectiveOp& op, bool in_place,
                   uint32_t seed);

// After one Launch(op, in_place, 0) and Synchronize on data from PrepareData(seed): the number of
// this rank's output elements that differ from the expected result.
Result<int64_t> CheckData(CollectiveBackend& backend, const CollectiveOp& op, bool in_place,
                          uint32_t seed);

// PrepareData and CheckData for every rank this process drives (backend.LocalRanks()); the
// wrong-element counts are indexed by local rank.
Status PrepareLocalData(CollectiveBackend& backend, const CollectiveOp& op, bool in_place,
                        uint32_t seed);
Result<std::vector<int64_t>> CheckLocalData(CollectiveBackend& backend, const CollectiveOp& op,
                                            bool in_place, uint32_t seed);

// How a job's GPUs map to its processes, as nccl-tests runs them: one GPU per rank under a
// launcher (mpirun -np 8 ... -g 1), or one process driving every local GPU (-g 8).
enum class GpuLayout { kPerRank, kOneProcess };
const char* GpuLayoutName(GpuLayout layout);  // "per-rank", "one-process"
// kOneProcess when no launcher started the job (a single process) and the node shows two or
// more GPUs; kPerRank otherwise: under mpirun/srun each rank drives GPU local_rank, and with one
// GPU there is nothing for one process to exchange with.
GpuLayout ChooseGpuLayout(const LaunchInfo& launch, int processes, int visible_gpus);

// The reason a collective over one rank on one device is not measured: there is nothing to
// exchange, so its "bandwidth" would be a local copy (or 0 for all_reduce's factor), not a link.
inline constexpr const char* kNothingToExchange =
    "one rank, one device: nothing to exchange; run under mpirun/srun or on a node with several "
    "GPUs";

// MPI on host buffers over all ranks of `control` (MPI_COMM_WORLD; a single process initialises
// MPI as a singleton). bf16 reductions use a user-defined MPI_Op.
Result<std::unique_ptr<CollectiveBackend>> OpenMpiCollectives(Communicator& control);

// Whether this rank can load NCCL and the CUDA driver and sees a GPU; NotFound with the loader's
// reason otherwise. Cheap: no communicator is created.
Status NcclAvailable();

// NCCL over all ranks of `control`, on GPU `local_rank` mod the number of GPUs. Every rank must
// call it (the unique id travels over `control`). NotFound when libnccl.so.2 or libcuda.so.1
// cannot be loaded, with the loader's text.
Result<std::unique_ptr<CollectiveBackend>> OpenNcclCollectives(Communicator& control,
                                                               int local_rank);

// The GPUs the CUDA driver shows this process; NotFound with the loader's reason without a driver.
Result<int> VisibleGpuCount();

// One process driving GPUs 0 .. gpus-1 (nccl-tests -g): ncclCommInitAll, one stream per GPU,
// every collective issued for all of them inside one ncclGroupStart/ncclGroupEnd. size() = gpus;
// LocalRanks() has one backend per GPU (rank = GPU index).
Result<std::unique_ptr<CollectiveBackend>> OpenNcclLocalGpus(int gpus);

// The NCCL backend for this job's layout (ChooseGpuLayout): OpenNcclLocalGpus over every visible
// GPU when one process drives them, else OpenNcclCollectives(control, launch.local_rank). Every
// rank must call it.
Result<std::unique_ptr<CollectiveBackend>> OpenNcclForJob(Communicator& control,
                                                          const LaunchInfo& launch);

}  // namespace ys::comm

#endif  // YARDSTICK_COMM_COLLECTIVES_H_
