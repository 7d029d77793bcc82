#include "comm/collectives.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace ys::comm {

Result<MappedBuffer> MappedBuffer::Map(size_t bytes) {
  MappedBuffer b;
  YS_RETURN_IF_ERROR(b.Grow(bytes));
  return b;
}

MappedBuffer& MappedBuffer::operator=(MappedBuffer&& o) noexcept {
  std::swap(data_, o.data_);
  std::swap(bytes_, o.bytes_);
  std::swap(mapped_, o.mapped_);
  return *this;
}

MappedBuffer::~MappedBuffer() {
  if (data_ != nullptr) ::munmap(data_, mapped_);
}

Status MappedBuffer::Grow(size_t bytes) {
  if (bytes <= bytes_ && data_ != nullptr) return Status::Ok();
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const size_t mapped = std::max<size_t>(page, (bytes + page - 1) / page * page);
  void* p = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    return Status::Io("cannot map " + std::to_string(bytes) +
                      " bytes of host memory: " + std::strerror(errno));
  }
  if (data_ != nullptr) ::munmap(data_, mapped_);
  data_ = static_cast<char*>(p);
  bytes_ = bytes;
  mapped_ = mapped;
  return Status::Ok();
}

BufferRegion CollectiveBackend::InputRegion(const CollectiveOp& op, bool in_place) const {
  if (!in_place) return {BufferKind::kSend, 0};
  return {BufferKind::kRecv, op.counts.send_inplace_offset * op.counts.element_size * rank()};
}

BufferRegion CollectiveBackend::OutputRegion(const CollectiveOp& op, bool in_place) const {
  if (!in_place) return {BufferKind::kRecv, 0};
  return {BufferKind::kRecv, op.counts.recv_inplace_offset * op.counts.element_size * rank()};
}

Status PrepareData(CollectiveBackend& backend, const CollectiveOp& op, bool in_place,
                   uint32_t seed) {
  YS_RETURN_IF_ERROR(backend.Zero(BufferKind::kRecv, op.counts.size_bytes()));
  if (op.collective == Collective::kBroadcast && backend.rank() != op.root) return Status::Ok();
  if (op.counts.send_count == 0) return Status::Ok();
  MappedBuffer& input = backend.staging_;
  YS_RETURN_IF_ERROR(input.Grow(op.counts.send_bytes()));
  WriteInput(op, backend.rank(), seed, input.data());
  BufferRegion where = backend.InputRegion(op, in_place);
  return backend.Upload(where.buffer, where.offset, input.data(), op.counts.send_bytes());
}

Result<int64_t> CheckData(CollectiveBackend& backend, const CollectiveOp& op, bool in_place,
                          uint32_t seed) {
  if (op.counts.recv_count == 0) return int64_t{0};
  MappedBuffer& output = backend.staging_;
  YS_RETURN_IF_ERROR(output.Grow(op.counts.recv_bytes()));
  BufferRegion where = backend.OutputRegion(op, in_place);
  YS_RETURN_IF_ERROR(
      backend.Download(where.buffer, where.offset, output.data(), op.counts.recv_bytes()));
  if (backend.corrupt_index_ && *backend.corrupt_index_ < op.counts.recv_count) {
    size_t i = *backend.corrupt_index_;
    StoreElement(op.dtype, output.data(), i, LoadElement(op.dtype, output.data(), i) + 1.0f);
    backend.corrupt_index_.reset();
  }
  return CountWrong(op, backend.rank(), seed, in_place, output.data());
}

Status PrepareLocalData(CollectiveBackend& backend, const CollectiveOp& op, bool in_place,
                        uint32_t seed) {
  for (CollectiveBackend* rank : backend.LocalRanks())
    YS_RETURN_IF_ERROR(PrepareData(*rank, op, in_place, seed));
  return Status::Ok();
}

Result<std::vector<int64_t>> CheckLocalData(CollectiveBackend& backend, const CollectiveOp& op,
                                            bool in_place, uint32_t seed) {
  std::vector<int64_t> wrong;
  for (CollectiveBackend* rank : backend.LocalRanks()) {
    auto w = CheckData(*rank, op, in_place, seed);
    if (!w.ok()) return w.status();
    wrong.push_back(*w);
  }
  return wrong;
}

const char* GpuLayoutName(GpuLayout layout) {
  return layout == GpuLayout::kOneProcess ? "one-process" : "per-rank";
}

GpuLayout ChooseGpuLayout(const LaunchInfo& launch, int processes, int visible_gpus) {
  if (launch.launched() || processes != 1 || visible_gpus < 2) return GpuLayout::kPerRank;
  return GpuLayout::kOneProcess;
}

Status CheckBufferRange(size_t offset, size_t bytes, size_t have) {
  if (offset + bytes > have) {
    return Status::Internal("collective buffer access [" + std::to_string(offset) + ", " +
                            std::to_string(offset + bytes) + ") beyond its " +
                            std::to_string(have) + " bytes");
  }
  return Status::Ok();
}

}  // namespace ys::comm
