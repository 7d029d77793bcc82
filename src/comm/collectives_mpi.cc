// The MPI backend of the collective benchmarks: host buffers, the MPI-3 collectives
// (MPI_Allreduce, MPI_Allgather, MPI_Reduce_scatter_block, MPI_Alltoall, MPI_Bcast, MPI_Reduce)
// and MPI_Sendrecv around a ring for sendrecv. In place means MPI_IN_PLACE
// (MPI_Sendrecv_replace for sendrecv); where MPI's in-place semantics put the data elsewhere than
// NCCL's, InputRegion/OutputRegion say so rather than adding a copy to the timed call.
// bfloat16 travels as MPI_UINT16_T and is summed by a user-defined MPI_Op (float accumulation,
// round to nearest even), as MPI has no bfloat16 type.
#include <mpi.h>

#include <climits>
#include <cstdlib>
#include <cstring>

#include "comm/collectives.h"
#include "comm/mpi_error.h"
#include "core/text.h"

namespace ys::comm {
namespace {

#define YS_MPI_RETURN(call)                                    \
  do {                                                         \
    int ys_rc_ = (call);                                       \
    if (ys_rc_ != MPI_SUCCESS) return MpiError(#call, ys_rc_); \
  } while (0)

void Bf16Sum(void* in, void* inout, int* len, MPI_Datatype*) {
  auto* a = static_cast<const uint16_t*>(in);
  auto* b = static_cast<uint16_t*>(inout);
  for (int i = 0; i < *len; ++i)
    b[i] = FloatToBfloat16(Bfloat16ToFloat(a[i]) + Bfloat16ToFloat(b[i]));
}

class MpiCollectives final : public CollectiveBackend {
 public:
  MpiCollectives(MPI_Comm comm, MPI_Op bf16_sum) : comm_(comm), bf16_sum_(bf16_sum) {
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
  }
  ~MpiCollectives() override {
    int finalised = 0;
    MPI_Finalized(&finalised);
    if (!finalised && comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
  }

  const char* name() const override { return "mpi"; }
  std::string device() const override { return "cpu"; }
  std::string library() const override {
    char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int len = 0;
    MPI_Get_library_version(text, &len);
    std::string_view v(text, static_cast<size_t>(len));
    return std::string(Trim(v.substr(0, v.find_first_of(",\n"))));
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  bool Supports(DataType) const override { return true; }

  Status Reserve(size_t bytes) override {
    for (MappedBuffer* b : {&send_, &recv_}) {
      if (b->bytes() >= bytes && b->data() != nullptr) continue;
      YS_RETURN_IF_ERROR(b->Grow(bytes));
      std::memset(b->data(), 0,
                  bytes);  // first touch here, on this rank's NUMA node, not in a timed call
    }
    return Status::Ok();
  }
  Status Upload(BufferKind b, size_t offset, const void* src, size_t bytes) override {
    YS_RETURN_IF_ERROR(CheckRange(b, offset, bytes));
    std::memcpy(Base(b) + offset, src, bytes);
    return Status::Ok();
  }
  Status Download(BufferKind b, size_t offset, void* dst, size_t bytes) override {
    YS_RETURN_IF_ERROR(CheckRange(b, offset, bytes));
    std::memcpy(dst, Base(b) + offset, bytes);
    return Status::Ok();
  }
  Status Zero(BufferKind b, size_t bytes) override {
    YS_RETURN_IF_ERROR(CheckRange(b, 0, bytes));
    std::memset(Base(b), 0, bytes);
    return Status::Ok();
  }

  Status Launch(const CollectiveOp& op, bool in_place, size_t shift) override;
  Status Synchronize() override { return Status::Ok(); }  // MPI collectives block

  Result<std::unique_ptr<CollectiveBackend>> Split(int color, int key) override {
    MPI_Comm sub = MPI_COMM_NULL;
    YS_MPI_RETURN(MPI_Comm_split(comm_, color < 0 ? MPI_UNDEFINED : color, key, &sub));
    if (sub == MPI_COMM_NULL) return std::unique_ptr<CollectiveBackend>();
    MPI_Comm_set_errhandler(sub, MPI_ERRORS_RETURN);
    return std::unique_ptr<CollectiveBackend>(std::make_unique<MpiCollectives>(sub, bf16_sum_));
  }

  BufferRegion OutputRegion(const CollectiveOp& op, bool in_place) const override {
    // MPI_Reduce_scatter_block with MPI_IN_PLACE leaves the result at the start of the buffer.
    if (in_place && op.collective == Collective::kReduceScatter) return {BufferKind::kRecv, 0};
    // MPI_Bcast has one buffer: out of place, the root broadcasts from its send buffer.
    if (!in_place && op.collective == Collective::kBroadcast && rank_ == op.root)
      return {BufferKind::kSend, 0};
    return CollectiveBackend::OutputRegion(op, in_place);
  }

 private:
  char* Base(BufferKind b) const { return (b == BufferKind::kSend ? send_ : recv_).data(); }
  Status CheckRange(BufferKind b, size_t offset, size_t bytes) const {
    return CheckBufferRange(offset, bytes, (b == BufferKind::kSend ? send_ : recv_).bytes());
  }

  MPI_Comm comm_;
  MPI_Op bf16_sum_;
  int rank_ = 0;
  int size_ = 1;
  MappedBuffer send_, recv_;
};

Status MpiCollectives::Launch(const CollectiveOp& op, bool in_place, size_t shift) {
  const size_t need = shift + op.counts.size_bytes();
  if (need > send_.bytes() || need > recv_.bytes()) {
    return Status::Internal("collective of " + std::to_string(op.counts.size_bytes()) +
                            " bytes at offset " + std::to_string(shift) +
                            " exceeds the reserved buffers");
  }
  if (op.counts.send_count > INT_MAX || op.counts.recv_count > INT_MAX) {
    return Status::Unsupported("MPI counts are int: " + std::to_string(op.counts.recv_count) +
                               " elements exceed INT_MAX");
  }
  const bool bf16 = op.dtype == DataType::kBfloat16;
  MPI_Datatype dt = bf16 ? MPI_UINT16_T : MPI_FLOAT;
  MPI_Op sum = bf16 ? bf16_sum_ : MPI_SUM;
  char* send = send_.data() + shift;
  char* recv = recv_.data() + shift;
  const int count = static_cast<int>(op.counts.param_count);
  const void* in = in_place ? MPI_IN_PLACE : send;
  switch (op.collective) {
    case Collective::kAllReduce:
      YS_MPI_RETURN(MPI_Allreduce(in, recv, count, dt, sum, comm_));
      break;
    case Collective::kAllGather:
      if (in_place) {
        YS_MPI_RETURN(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, count, dt, comm_));
      } else {
        YS_MPI_RETURN(MPI_Allgather(send, count, dt, recv, count, dt, comm_));
      }
      break;
    case Collective::kReduceScatter:
      YS_MPI_RETURN(MPI_Reduce_scatter_block(in, recv, count, dt, sum, comm_));
      break;
    case Collective::kAlltoAll:
      if (in_place) {
        YS_MPI_RETURN(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, count, dt, comm_));
      } else {
        YS_MPI_RETURN(MPI_Alltoall(send, count, dt, recv, count, dt, comm_));
      }
      break;
    case Collective::kBroadcast:
      YS_MPI_RETURN(
          MPI_Bcast(!in_place && rank_ == op.root ? send : recv, count, dt, op.root, comm_));
      break;
    case Collective::kReduce:
      if (in_place && rank_ != op.root) {
        YS_MPI_RETURN(MPI_Reduce(recv, nullptr, count, dt, sum, op.root, comm_));
      } else {
        YS_MPI_RETURN(MPI_Reduce(in, recv, count, dt, sum, op.root, comm_));
      }
      break;
    case Collective::kSendRecv: {
      const int to = (rank_ + 1) % size_;
      const int from = (rank_ - 1 + size_) % size_;
      constexpr int kTag = 0x5953;  // "YS"
      if (in_place) {
        YS_MPI_RETURN(
            MPI_Sendrecv_replace(recv, count, dt, to, kTag, from, kTag, comm_, MPI_STATUS_IGNORE));
      } else {
        YS_MPI_RETURN(MPI_Sendrecv(send, count, dt, to, kTag, recv, count, dt, from, kTag, comm_,
                                   MPI_STATUS_IGNORE));
      }
      break;
    }
  }
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<CollectiveBackend>> OpenMpiCollectives(Communicator& control) {
  // MPI_Init (as a singleton when there is no launcher) happens once, in the communicator.
  auto world = OpenMpiCommunicator();
  if (!world.ok()) return world.status();
  if ((*world)->size() != control.size()) {
    return Status::Internal("MPI_COMM_WORLD has " + std::to_string((*world)->size()) +
                            " ranks but the job has " + std::to_string(control.size()));
  }
  static MPI_Op bf16_sum = MPI_OP_NULL;
  if (bf16_sum == MPI_OP_NULL) YS_MPI_RETURN(MPI_Op_create(&Bf16Sum, /*commute=*/1, &bf16_sum));
  MPI_Comm comm = MPI_COMM_NULL;
  YS_MPI_RETURN(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  return std::unique_ptr<CollectiveBackend>(std::make_unique<MpiCollectives>(comm, bf16_sum));
}

}  // namespace ys::comm
