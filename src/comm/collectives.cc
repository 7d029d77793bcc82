#include "comm/collectives.h"

#include <vector>

namespace ys::comm {

BufferRegion CollectiveBackend::InputRegion(const CollectiveOp& op, bool in_place) const {
  if (!in_place) return {BufferKind::kSend, 0};
  return {BufferKind::kRecv, op.counts.send_inplace_offset * op.counts.element_size * rank()};
}

BufferRegion CollectiveBackend::OutputRegion(const CollectiveOp& op, bool in_place) const {
  if (!in_place) return {BufferKind::kRecv, 0};
  return {BufferKind::kRecv, op.counts.recv_inplace_offset * op.counts.element_size * rank()};
}

Status PrepareData(CollectiveBackend& backend, const CollectiveOp& op, bool in_place, uint32_t seed) {
  YS_RETURN_IF_ERROR(backend.Zero(BufferKind::kRecv, op.counts.size_bytes()));
  if (op.collective == Collective::kBroadcast && backend.rank() != op.root) return Status::Ok();
  if (op.counts.send_count == 0) return Status::Ok();
  std::vector<char> input(op.counts.send_bytes());
  WriteInput(op, backend.rank(), seed, input.data());
  BufferRegion where = backend.InputRegion(op, in_place);
  return backend.Upload(where.buffer, where.offset, input.data(), input.size());
}

Result<int64_t> CheckData(CollectiveBackend& backend, const CollectiveOp& op, bool in_place, uint32_t seed) {
  if (op.counts.recv_count == 0) return int64_t{0};
  std::vector<char> output(op.counts.recv_bytes());
  BufferRegion where = backend.OutputRegion(op, in_place);
  YS_RETURN_IF_ERROR(backend.Download(where.buffer, where.offset, output.data(), output.size()));
  if (backend.corrupt_index_ && *backend.corrupt_index_ < op.counts.recv_count) {
    size_t i = *backend.corrupt_index_;
    StoreElement(op.dtype, output.data(), i, LoadElement(op.dtype, output.data(), i) + 1.0f);
    backend.corrupt_index_.reset();
  }
  return CountWrong(op, backend.rank(), seed, in_place, output.data());
}

}  // namespace ys::comm
