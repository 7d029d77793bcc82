// The NCCL backend of the collective benchmarks: device buffers, one stream, the NCCL calls as
// nccl-tests makes them (sendrecv: ncclSend to rank+1 and ncclRecv from rank-1 in one group;
// alltoall: ncclAlltoAll where the library has it, else grouped send/recv pairs).
//
// libnccl.so.2 ($YARDSTICK_LIBNCCL overrides) and libcuda.so.1 are opened at run time. Rank 0
// creates the ncclUniqueId and broadcasts it over the control-plane Communicator (nccl-tests does
// the same over MPI), then every rank calls ncclCommInitRank with its GPU's primary context
// current: GPU = local rank mod the number of visible GPUs. Without a launcher, one process may
// drive every visible GPU instead (nccl-tests -g): ncclCommInitAll makes one communicator per
// GPU, each with its own stream, and every collective is issued for all of them inside one
// ncclGroupStart/ncclGroupEnd, as NCCL requires when one thread drives several devices.
#include <nccl.h>

#include <cstdlib>
#include <mutex>
#include <vector>

#include "comm/collectives.h"
#include "gpu/cuda_api.h"
#include "gpu/dynamic_library.h"

namespace ys::comm {
namespace {

// clang-format off
#define YS_NCCL_FUNCTIONS(X)                                                                       \
  X(ncclGetVersion)                                                                                \
  X(ncclGetUniqueId)                                                                               \
  X(ncclCommInitRank)                                                                              \
  X(ncclCommDestroy)                                                                               \
  X(ncclGetErrorString)                                                                            \
  X(ncclAllReduce)                                                                                 \
  X(ncclAllGather)                                                                                 \
  X(ncclReduceScatter)                                                                             \
  X(ncclBroadcast)                                                                                 \
  X(ncclReduce)                                                                                    \
  X(ncclSend)                                                                                      \
  X(ncclRecv)                                                                                      \
  X(ncclGroupStart)                                                                                \
  X(ncclGroupEnd)                                                                                  \
  X(ncclCommCount)                                                                                 \
  X(ncclCommUserRank)                                                                              \
  X(ncclCommInitAll)
// clang-format on
// Present in newer libraries only; nullptr otherwise.
#define YS_NCCL_OPTIONAL_FUNCTIONS(X) X(ncclAlltoAll) X(ncclCommSplit) X(ncclGetLastError)

#define YS_NCCL_DECLARE_(name) decltype(&::name) name = nullptr;

struct NcclApi {
  YS_NCCL_FUNCTIONS(YS_NCCL_DECLARE_)
  YS_NCCL_OPTIONAL_FUNCTIONS(YS_NCCL_DECLARE_)
  int version = 0;

  Status Check(ncclResult_t rc, const char* what, ncclComm_t comm = nullptr) const {
    if (rc == ncclSuccess || rc == ncclInProgress) return Status::Ok();
    std::string message = std::string(what) + ": " + ncclGetErrorString(rc);
    if (comm != nullptr && ncclGetLastError != nullptr) {
      const char* last = ncclGetLastError(comm);
      if (last != nullptr && *last) message += " (" + std::string(last) + ")";
    }
    return Status::Io(message);
  }

  static Result<const NcclApi*> Get() {
    static std::once_flag once;
    static Result<const NcclApi*> result = Status::Internal("unset");
    static NcclApi api;
    static std::unique_ptr<gpu::DynamicLibrary> library;
    std::call_once(once, [] {
      const char* override_name = std::getenv("YARDSTICK_LIBNCCL");
      std::string name =
          override_name != nullptr && *override_name ? override_name : "libnccl.so.2";
      auto lib = gpu::DynamicLibrary::Open(name);
      if (!lib.ok()) {
        result = Status::NotFound("NCCL not found: " + lib.status().message());
        return;
      }
      library = std::make_unique<gpu::DynamicLibrary>(std::move(*lib));
#define YS_NCCL_LOAD_(fn)                                                           \
  api.fn = library->Function<decltype(api.fn)>(#fn);                                \
  if (api.fn == nullptr) {                                                          \
    result = Status::Unsupported(name + " does not export " #fn " (NCCL too old)"); \
    return;                                                                         \
  }
      YS_NCCL_FUNCTIONS(YS_NCCL_LOAD_)
#undef YS_NCCL_LOAD_
#define YS_NCCL_LOAD_OPTIONAL_(fn) api.fn = library->Function<decltype(api.fn)>(#fn);
      YS_NCCL_OPTIONAL_FUNCTIONS(YS_NCCL_LOAD_OPTIONAL_)
#undef YS_NCCL_LOAD_OPTIONAL_
      if (Status s = api.Check(api.ncclGetVersion(&api.version), "ncclGetVersion"); !s.ok()) {
        result = s;
        return;
      }
      result = static_cast<const NcclApi*>(&api);
    });
    return result;
  }
};

#undef YS_NCCL_DECLARE_

#define YS_NCCL_RETURN(api, call, comm) YS_RETURN_IF_ERROR((api).Check((api).call, #call, comm))

ncclDataType_t NcclType(DataType t) {
  return t == DataType::kBfloat16 ? ncclBfloat16 : ncclFloat32;
}

// What one GPU and its NCCL communicator own. The device outlives every group split from it.
class NcclCollectives final : public CollectiveBackend {
 public:
  NcclCollectives(const NcclApi& nccl, std::shared_ptr<gpu::CudaDevice> device,
                  gpu::CudaStream stream, ncclComm_t comm, int rank, int size)
      : nccl_(nccl),
        device_(std::move(device)),
        stream_(std::move(stream)),
        comm_(comm),
        rank_(rank),
        size_(size) {}
  ~NcclCollectives() override {
    // This GPU's context current for the stream, the buffers and the communicator it frees (one
    // process may drive several GPUs).
    (void)device_->MakeCurrent();
    if (comm_ != nullptr) {
      (void)stream_.Synchronize();
      nccl_.ncclCommDestroy(comm_);
    }
  }

  const char* name() const override { return "nccl"; }
  std::string device() const override { return "gpu" + std::to_string(device_->ordinal()); }
  std::string library() const override {
    int v = nccl_.version;  // 22809 = 2.28.9 (since 2.9: major*10000 + minor*100 + patch)
    return "NCCL " + std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
           std::to_string(v % 100);
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  bool Supports(DataType) const override { return true; }

  Status Reserve(size_t bytes) override {
    if (send_.bytes() >= bytes && recv_.bytes() >= bytes) return Status::Ok();
    YS_RETURN_IF_ERROR(device_->MakeCurrent());
    const gpu::CudaApi& cu = device_->api();
    send_ = {};
    recv_ = {};
    auto s = gpu::DeviceBuffer::Allocate(cu, bytes == 0 ? 1 : bytes);
    if (!s.ok()) return s.status();
    auto r = gpu::DeviceBuffer::Allocate(cu, bytes == 0 ? 1 : bytes);
    if (!r.ok()) return r.status();
    send_ = std::move(*s);
    recv_ = std::move(*r);
    return Status::Ok();
  }
  Status Upload(BufferKind b, size_t offset, const void* src, size_t bytes) override {
    YS_RETURN_IF_ERROR(CheckRange(b, offset, bytes));
    YS_RETURN_IF_ERROR(device_->MakeCurrent());  // one process may drive several GPUs
    const gpu::CudaApi& cu = device_->api();
    YS_CU_RETURN(cu, cuMemcpyHtoD(Base(b) + offset, src, bytes));
    return Status::Ok();
  }
  Status Download(BufferKind b, size_t offset, void* dst, size_t bytes) override {
    YS_RETURN_IF_ERROR(CheckRange(b, offset, bytes));
    YS_RETURN_IF_ERROR(device_->MakeCurrent());
    const gpu::CudaApi& cu = device_->api();
    YS_CU_RETURN(cu, cuMemcpyDtoH(dst, Base(b) + offset, bytes));
    return Status::Ok();
  }
  Status Zero(BufferKind b, size_t bytes) override {
    YS_RETURN_IF_ERROR(CheckRange(b, 0, bytes));
    YS_RETURN_IF_ERROR(device_->MakeCurrent());
    const gpu::CudaApi& cu = device_->api();
    YS_CU_RETURN(cu, cuMemsetD8Async(Base(b), 0, bytes, stream_.get()));
    return stream_.Synchronize();
  }

  Status Launch(const CollectiveOp& op, bool in_place, size_t shift) override;
  Status Synchronize() override { return stream_.Synchronize(); }
  ncclComm_t comm() const { return comm_; }

  Result<std::unique_ptr<CollectiveBackend>> Split(int color, int key) override {
    if (nccl_.ncclCommSplit == nullptr) {
      return Status::Unsupported("NCCL " + library() +
                                 " has no ncclCommSplit (needs 2.18 or later)");
    }
    ncclComm_t sub = nullptr;
    YS_NCCL_RETURN(nccl_,
                   ncclCommSplit(comm_, color < 0 ? NCCL_SPLIT_NOCOLOR : color, key, &sub, nullptr),
                   comm_);
    if (sub == nullptr) return std::unique_ptr<CollectiveBackend>();
    auto stream = gpu::CudaStream::Create(device_->api());
    if (!stream.ok()) {
      nccl_.ncclCommDestroy(sub);
      return stream.status();
    }
    int sub_rank = 0, sub_size = 0;
    Status s = nccl_.Check(nccl_.ncclCommUserRank(sub, &sub_rank), "ncclCommUserRank", sub);
    if (s.ok()) s = nccl_.Check(nccl_.ncclCommCount(sub, &sub_size), "ncclCommCount", sub);
    if (!s.ok()) {
      nccl_.ncclCommDestroy(sub);
      return s;
    }
    return std::unique_ptr<CollectiveBackend>(std::make_unique<NcclCollectives>(
        nccl_, device_, std::move(*stream), sub, sub_rank, sub_size));
  }

 private:
  CUdeviceptr Base(BufferKind b) const { return (b == BufferKind::kSend ? send_ : recv_).get(); }
  Status CheckRange(BufferKind b, size_t offset, size_t bytes) const {
    return CheckBufferRange(offset, bytes, (b == BufferKind::kSend ? send_ : recv_).bytes());
  }

  const NcclApi& nccl_;
  std::shared_ptr<gpu::CudaDevice> device_;
  gpu::CudaStream stream_;
  gpu::DeviceBuffer send_, recv_;
  ncclComm_t comm_ = nullptr;
  int rank_ = 0;
  int size_ = 1;
};

Status NcclCollectives::Launch(const CollectiveOp& op, bool in_place, size_t shift) {
  if (shift + op.counts.size_bytes() > send_.bytes() ||
      shift + op.counts.size_bytes() > recv_.bytes()) {
    return Status::Internal("collective of " + std::to_string(op.counts.size_bytes()) +
                            " bytes at offset " + std::to_string(shift) +
                            " exceeds the reserved buffers");
  }
  auto* send = reinterpret_cast<char*>(send_.get() + shift);
  auto* recv = reinterpret_cast<char*>(recv_.get() + shift);
  BufferRegion in = InputRegion(op, in_place);
  BufferRegion out = OutputRegion(op, in_place);
  const char* sptr = (in.buffer == BufferKind::kSend ? send : recv) + in.offset;
  char* rptr = recv + out.offset;
  const size_t count = op.counts.param_count;
  const ncclDataType_t t = NcclType(op.dtype);
  auto stream = reinterpret_cast<cudaStream_t>(stream_.get());
  switch (op.collective) {
    case Collective::kAllReduce:
      YS_NCCL_RETURN(nccl_, ncclAllReduce(sptr, rptr, count, t, ncclSum, comm_, stream), comm_);
      break;
    case Collective::kAllGather:
      // In place the output is the whole receive buffer; the input is this rank's slot of it.
      YS_NCCL_RETURN(nccl_, ncclAllGather(sptr, recv, count, t, comm_, stream), comm_);
      break;
    case Collective::kReduceScatter:
      YS_NCCL_RETURN(nccl_, ncclReduceScatter(sptr, rptr, count, t, ncclSum, comm_, stream), comm_);
      break;
    case Collective::kAlltoAll:
      if (nccl_.ncclAlltoAll != nullptr) {
        YS_NCCL_RETURN(nccl_, ncclAlltoAll(sptr, rptr, count, t, comm_, stream), comm_);
      } else {
        const size_t chunk = count * op.counts.element_size;
        YS_NCCL_RETURN(nccl_, ncclGroupStart(), comm_);
        for (int r = 0; r < size_; ++r) {
          YS_NCCL_RETURN(nccl_, ncclSend(sptr + r * chunk, count, t, r, comm_, stream), comm_);
          YS_NCCL_RETURN(nccl_, ncclRecv(rptr + r * chunk, count, t, r, comm_, stream), comm_);
        }
        YS_NCCL_RETURN(nccl_, ncclGroupEnd(), comm_);
      }
      break;
    case Collective::kBroadcast:
      YS_NCCL_RETURN(nccl_, ncclBroadcast(sptr, rptr, count, t, op.root, comm_, stream), comm_);
      break;
    case Collective::kReduce:
      YS_NCCL_RETURN(nccl_, ncclReduce(sptr, rptr, count, t, ncclSum, op.root, comm_, stream),
                     comm_);
      break;
    case Collective::kSendRecv:
      YS_NCCL_RETURN(nccl_, ncclGroupStart(), comm_);
      YS_NCCL_RETURN(nccl_, ncclSend(sptr, count, t, (rank_ + 1) % size_, comm_, stream), comm_);
      YS_NCCL_RETURN(nccl_, ncclRecv(rptr, count, t, (rank_ - 1 + size_) % size_, comm_, stream),
                     comm_);
      YS_NCCL_RETURN(nccl_, ncclGroupEnd(), comm_);
      break;
  }
  return Status::Ok();
}

// One process, every GPU of the clique (nccl-tests -g): one NcclCollectives per GPU, launched
// together in one NCCL group. The data-plane calls of the group itself act on GPU 0's rank; the
// data check goes through LocalRanks().
class NcclLocalGpus final : public CollectiveBackend {
 public:
  NcclLocalGpus(const NcclApi& nccl, std::vector<std::unique_ptr<NcclCollectives>> gpus)
      : nccl_(nccl), gpus_(std::move(gpus)) {}

  const char* name() const override { return "nccl"; }
  std::string device() const override { return "gpu0..gpu" + std::to_string(gpus_.size() - 1); }
  std::string library() const override { return gpus_.front()->library(); }
  int rank() const override { return 0; }
  int size() const override { return static_cast<int>(gpus_.size()); }
  bool Supports(DataType) const override { return true; }

  Status Reserve(size_t bytes) override {
    for (auto& g : gpus_) YS_RETURN_IF_ERROR(g->Reserve(bytes));
    return Status::Ok();
  }
  Status Upload(BufferKind b, size_t offset, const void* src, size_t bytes) override {
    return gpus_.front()->Upload(b, offset, src, bytes);
  }
  Status Download(BufferKind b, size_t offset, void* dst, size_t bytes) override {
    return gpus_.front()->Download(b, offset, dst, bytes);
  }
  Status Zero(BufferKind b, size_t bytes) override { return gpus_.front()->Zero(b, bytes); }

  Status Launch(const CollectiveOp& op, bool in_place, size_t shift) override {
    YS_NCCL_RETURN(nccl_, ncclGroupStart(), nullptr);
    Status s = Status::Ok();
    for (auto& g : gpus_) {
      s = g->Launch(op, in_place, shift);
      if (!s.ok()) break;
    }
    Status end = nccl_.Check(nccl_.ncclGroupEnd(), "ncclGroupEnd", gpus_.front()->comm());
    return s.ok() ? end : s;
  }
  Status Synchronize() override {
    for (auto& g : gpus_) YS_RETURN_IF_ERROR(g->Synchronize());
    return Status::Ok();
  }
  Result<std::unique_ptr<CollectiveBackend>> Split(int, int) override {
    return Status::Unsupported(
        "sub-groups of the one-process mode (one process driving every GPU) are not built");
  }
  std::vector<CollectiveBackend*> LocalRanks() override {
    std::vector<CollectiveBackend*> out;
    for (auto& g : gpus_) out.push_back(g.get());
    return out;
  }

 private:
  const NcclApi& nccl_;
  std::vector<std::unique_ptr<NcclCollectives>> gpus_;  // index = rank = GPU ordinal
};

}  // namespace

Result<int> VisibleGpuCount() {
  auto cu = gpu::CudaApi::Get();
  if (!cu.ok()) return cu.status();
  int count = 0;
  YS_CU_RETURN(**cu, cuDeviceGetCount(&count));
  return count;
}

Result<std::unique_ptr<CollectiveBackend>> OpenNcclLocalGpus(int gpus) {
  YS_RETURN_IF_ERROR(NcclAvailable());
  const NcclApi* nccl = *NcclApi::Get();
  auto visible = VisibleGpuCount();
  if (!visible.ok()) return visible.status();
  if (gpus < 1 || gpus > *visible) {
    return Status::Invalid("cannot drive " + std::to_string(gpus) +
                           " GPUs from one process: " + std::to_string(*visible) + " visible");
  }
  // The devices' primary contexts first (ncclCommInitAll uses them through the runtime).
  std::vector<std::shared_ptr<gpu::CudaDevice>> devices;
  std::vector<gpu::CudaStream> streams;
  for (int d = 0; d < gpus; ++d) {
    auto device = gpu::CudaDevice::Open(d);
    if (!device.ok()) return device.status();
    devices.push_back(std::make_shared<gpu::CudaDevice>(std::move(*device)));
    YS_RETURN_IF_ERROR(devices.back()->MakeCurrent());
    auto stream = gpu::CudaStream::Create(devices.back()->api());
    if (!stream.ok()) return stream.status();
    streams.push_back(std::move(*stream));
  }
  std::vector<ncclComm_t> comms(gpus, nullptr);
  std::vector<int> ordinals(gpus);
  for (int d = 0; d < gpus; ++d) ordinals[d] = d;
  YS_NCCL_RETURN(*nccl, ncclCommInitAll(comms.data(), gpus, ordinals.data()), nullptr);
  std::vector<std::unique_ptr<NcclCollectives>> ranks;
  for (int d = 0; d < gpus; ++d) {
    ranks.push_back(std::make_unique<NcclCollectives>(*nccl, devices[d], std::move(streams[d]),
                                                      comms[d], d, gpus));
  }
  return std::unique_ptr<CollectiveBackend>(
      std::make_unique<NcclLocalGpus>(*nccl, std::move(ranks)));
}

Result<std::unique_ptr<CollectiveBackend>> OpenNcclForJob(Communicator& control,
                                                          const LaunchInfo& launch) {
  int visible = 0;
  if (!launch.launched() && control.size() == 1) {
    auto n = VisibleGpuCount();
    if (n.ok()) visible = *n;
  }
  if (ChooseGpuLayout(launch, control.size(), visible) == GpuLayout::kOneProcess) {
    return OpenNcclLocalGpus(visible);
  }
  return OpenNcclCollectives(control, launch.local_rank);
}

Status NcclAvailable() {
  auto cu = gpu::CudaApi::Get();
  if (!cu.ok()) return cu.status();
  auto nccl = NcclApi::Get();
  if (!nccl.ok()) return nccl.status();
  int count = 0;
  YS_CU_RETURN(**cu, cuDeviceGetCount(&count));
  if (count == 0) return Status::NotFound("no GPU visible to the CUDA driver");
  return Status::Ok();
}

Result<std::unique_ptr<CollectiveBackend>> OpenNcclCollectives(Communicator& control,
                                                               int local_rank) {
  // Every rank takes part in the id broadcast even when it cannot go on, so no rank hangs.
  Status ready = NcclAvailable();
  std::string id_bytes;
  const NcclApi* nccl = nullptr;
  if (ready.ok()) {
    nccl = *NcclApi::Get();
    if (control.rank() == 0) {
      ncclUniqueId id;
      ready = nccl->Check(nccl->ncclGetUniqueId(&id), "ncclGetUniqueId");
      if (ready.ok()) id_bytes.assign(id.internal, sizeof(id.internal));
    }
  }
  YS_RETURN_IF_ERROR(control.Broadcast(id_bytes, 0));
  auto all_ready = control.AllReduceMin(ready.ok() ? 1.0 : 0.0);
  if (!all_ready.ok()) return all_ready.status();
  if (!ready.ok()) return ready;
  if (*all_ready < 1.0 || id_bytes.size() != sizeof(ncclUniqueId)) {
    return Status::NotFound("NCCL is not usable on every rank of the job");
  }
  const gpu::CudaApi& cu = **gpu::CudaApi::Get();
  int gpus = 0;
  YS_CU_RETURN(cu, cuDeviceGetCount(&gpus));
  auto device = gpu::CudaDevice::Open(local_rank % gpus);
  if (!device.ok()) return device.status();
  auto shared = std::make_shared<gpu::CudaDevice>(std::move(*device));
  YS_RETURN_IF_ERROR(shared->MakeCurrent());
  auto stream = gpu::CudaStream::Create(cu);
  if (!stream.ok()) return stream.status();
  ncclUniqueId id;
  std::copy(id_bytes.begin(), id_bytes.end(), id.internal);
  ncclComm_t comm = nullptr;
  YS_NCCL_RETURN(*nccl, ncclCommInitRank(&comm, control.size(), id, control.rank()), nullptr);
  return std::unique_ptr<CollectiveBackend>(std::make_unique<NcclCollectives>(
      *nccl, std::move(shared), std::move(*stream), comm, control.rank(), control.size()));
}

}  // namespace ys::comm
