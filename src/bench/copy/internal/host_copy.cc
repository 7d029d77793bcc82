#include "bench/copy/internal/host_copy.h"

#include <fmt/format.h>

#include <cstring>
#include <thread>

#include "bench/gpu_bench.h"

namespace ys::bench {
namespace {

constexpr uint64_t kSeed = 0x636f70792e686f73ull;

struct HostNode {
  int id = -1;  // -1: no NUMA information, the buffer is where the kernel puts it
  CpuSet cpus;
};

// The NUMA nodes to place host memory on: all with CPUs, or only the GPU's own in the quick
// profile (node 0 when the GPU's node is unknown).
std::vector<HostNode> NodesFor(const BenchContext& ctx, int gpu_node) {
  std::vector<HostNode> out;
  const auto& topo = ctx.topology();
  if (!topo.ok() || topo->nodes.empty()) return {HostNode{}};
  for (const host::NumaNode& n : topo->nodes) {
    if (n.cpus.empty()) continue;
    if (ctx.quick() && n.id != (gpu_node >= 0 ? gpu_node : topo->nodes.front().id)) continue;
    out.push_back({n.id, n.cpus});
  }
  if (out.empty()) out.push_back(HostNode{});
  return out;
}

// Pinned, device-mapped host memory allocated from a thread bound to the node's CPUs, so that
// first touch (the driver pins the pages on the allocating thread) places it on that node.
// cuMemHostAlloc needs a current context: the worker makes the device's primary context current.
Result<gpu::PinnedHostBuffer> AllocateOnNode(const gpu::CudaDevice& device, const HostNode& node,
                                             size_t bytes) {
  const gpu::CudaApi& api = device.api();
  Result<gpu::PinnedHostBuffer> out = Status::Internal("unset");
  std::thread worker([&] {
    if (Status s = device.MakeCurrent(); !s.ok()) {
      out = s;
      return;
    }
    if (node.id >= 0) {
      if (Status s = BindThisThread(node.cpus); !s.ok()) {
        out = s;
        return;
      }
    }
    out = gpu::PinnedHostBuffer::Allocate(api, bytes,
                                          CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP);
    if (out.ok()) FillPattern(out->get(), bytes, kSeed);  // touch every page from the node
  });
  worker.join();
  return out;
}

// What every size, host node and method measured on one GPU shares: the device, its timer and
// NUMA node, the direction, the spec's PCIe peak, the sampling counts, and where results go.
struct HostCopyGpu {
  const gpu::CudaApi& api;
  const gpu::CudaDevice& device;
  int ordinal = 0;
  bool h2d = true;
  std::string unit;  // "copy.h2d" or "copy.d2h"
  GpuTimer& timer;
  int gpu_node = -1;
  const std::optional<Peak>& peak;
  const std::string& why_no_peak;
  int samples = 0, warmup = 0, iters = 0;
  BenchmarkResult& r;
  ResultTable& table;
};

// One copy method between a host node's pinned buffer and the device buffer at one size.
struct HostCopyStep {
  const HostNode& node;
  CUdeviceptr d = 0;   // the device buffer
  void* hp = nullptr;  // the host buffer
  uint64_t bytes = 0;
  const char* method = "";  // "ce" or "sm"
};

// The <unit>.<method> measurement of one step from its milliseconds per copy.
Measurement HostCopyMeasurement(const HostCopyGpu& g, const HostCopyStep& step,
                                const std::string& local, const std::vector<double>& ms) {
  std::vector<double> gbps;
  for (double v : ms) gbps.push_back(GBps(static_cast<double>(step.bytes), v));
  return MakeMeasurement(g.unit + "." + step.method, "GB/s", Better::kHigher, std::move(gbps),
                         {{"backend", "cuda"},
                          {"device", GpuEntity(g.ordinal)},
                          {"gpu_name", g.device.name()},
                          {"size", std::to_string(step.bytes)},
                          {"method", step.method},
                          {"host_numa_node", std::to_string(step.node.id)},
                          {"gpu_numa_node", std::to_string(g.gpu_node)},
                          {"local", local},
                          {"copies_per_sample", std::to_string(g.iters)}});
}

// Clears the destination, times `enqueue`, checks the data the copy delivered, and adds the
// step's measurement and table row (and a finding for wrong data).
Status MeasureHostCopyStep(const HostCopyGpu& g, const HostCopyStep& step,
                           const std::function<Status()>& enqueue) {
  const gpu::CudaApi& api = g.api;
  const HostNode& node = step.node;
  CUdeviceptr d = step.d;
  void* hp = step.hp;
  const uint64_t bytes = step.bytes;
  CUstream stream = g.timer.get();
  if (g.h2d) {
    YS_CU_RETURN(api, cuMemsetD8Async(d, 0, bytes, stream));
  } else {
    std::memset(hp, 0, bytes);
  }
  auto ms = g.timer.SampleMsPerCall(g.samples, g.warmup, g.iters, enqueue);
  if (!ms.ok()) return ms.status();
  uint64_t wrong = 0;
  if (g.h2d) {
    std::vector<unsigned char> back(bytes);
    YS_CU_RETURN(api, cuMemcpyDtoH(back.data(), d, bytes));
    wrong = CountPatternMismatches(back.data(), bytes, kSeed);
  } else {
    wrong = CountPatternMismatches(hp, bytes, kSeed);
  }
  std::string node_name = node.id >= 0 ? "node" + std::to_string(node.id) : "any";
  if (wrong > 0)
    g.r.Add(CopyDataFinding(GpuEntity(g.ordinal),
                            g.unit + " " + step.method + " from/to " + node_name, wrong, bytes));
  std::string local =
      node.id < 0 || g.gpu_node < 0 ? "unknown" : (node.id == g.gpu_node ? "yes" : "no");
  Measurement meas = HostCopyMeasurement(g, step, local, *ms);
  auto pct = AddPeakParams(meas.params, meas.value, g.peak, g.why_no_peak);
  g.table.rows.push_back({GpuEntity(g.ordinal), node_name, local, FormatByteSize(bytes),
                          step.method, fmt::format("{:.2f}", meas.value), FormatPercent(pct)});
  g.r.measurements.push_back(std::move(meas));
  return Status::Ok();
}

// Measures both methods between pinned memory on `node` and `device_buf` at one size.
Status MeasureHostNode(const HostCopyGpu& g, const HostNode& node,
                       const gpu::DeviceBuffer& device_buf, uint64_t bytes) {
  const gpu::CudaApi& api = g.api;
  auto host = AllocateOnNode(g.device, node, bytes);
  if (!host.ok()) return host.status();
  CUdeviceptr mapped = 0;
  YS_CU_RETURN(api, cuMemHostGetDevicePointer(&mapped, host->get(), 0));
  CUdeviceptr d = device_buf.get();
  void* hp = host->get();
  CUstream stream = g.timer.get();
  const bool h2d = g.h2d;
  if (!h2d) YS_CU_RETURN(api, cuMemcpyHtoD(d, hp, bytes));  // the device holds the pattern
  CopyMethod methods[] = {
      {"ce",
       [&] {
         return h2d ? api.Check(api.cuMemcpyHtoDAsync(d, hp, bytes, stream), "cuMemcpyHtoDAsync")
                    : api.Check(api.cuMemcpyDtoHAsync(hp, d, bytes, stream), "cuMemcpyDtoHAsync");
       }},
      {"sm",
       [&] {
         return h2d ? g.timer.EnqueueSmCopy(d, mapped, bytes)
                    : g.timer.EnqueueSmCopy(mapped, d, bytes);
       }},
  };
  for (const CopyMethod& m : methods) {
    YS_RETURN_IF_ERROR(MeasureHostCopyStep(
        g, {.node = node, .d = d, .hp = hp, .bytes = bytes, .method = m.name}, m.enqueue));
  }
  return Status::Ok();
}

// Measures one GPU at every size from and to every host node, noting when its peak is unknown.
Status MeasureGpu(const BenchContext& ctx, HostCopyDirection dir, int ordinal, BenchmarkResult& r,
                  ResultTable& table, std::vector<std::string>& notes) {
  const bool h2d = dir == HostCopyDirection::kHostToDevice;
  const std::string unit = h2d ? "copy.h2d" : "copy.d2h";
  auto dev = gpu::CudaDevice::Open(ordinal);
  if (!dev.ok()) return dev.status();
  const gpu::CudaApi& api = dev->api();
  SpecLookup spec = LookupSpec(ctx, dev->name());
  std::optional<Peak> peak = spec.spec ? PeakPciePerDirectionGBps(*spec.spec) : std::nullopt;
  std::string why =
      spec.spec ? spec.spec->path + " gives no PCIe figure (host link not PCIe, or unpublished)"
                : spec.why_not;
  if (!peak) notes.push_back(GpuEntity(ordinal) + ": " + why);
  auto timer = GpuTimer::Create(*dev);
  if (!timer.ok()) return timer.status();
  const int gpu_node = GpuNumaNode(ctx, *dev);
  const HostCopyGpu g{.api = api,
                      .device = *dev,
                      .ordinal = ordinal,
                      .h2d = h2d,
                      .unit = unit,
                      .timer = *timer,
                      .gpu_node = gpu_node,
                      .peak = peak,
                      .why_no_peak = why,
                      .samples = 3,
                      .warmup = ctx.Warmup(4),
                      .iters = ctx.Iters(ctx.quick() ? 4 : 16),
                      .r = r,
                      .table = table};
  for (uint64_t bytes : CopySizes(ctx, 512ull << 20, 64ull << 20)) {
    auto device_buf = gpu::DeviceBuffer::Allocate(api, bytes);
    if (!device_buf.ok()) return device_buf.status();
    for (const HostNode& node : NodesFor(ctx, gpu_node)) {
      YS_RETURN_IF_ERROR(MeasureHostNode(g, node, *device_buf, bytes));
    }
  }
  return Status::Ok();
}

}  // namespace

BenchmarkResult RunHostCopy(const BenchContext& ctx, HostCopyDirection direction) {
  // Host copies share host memory and PCIe switches: the node's first rank measures every GPU
  // in turn rather than all ranks at once.
  auto gpus = GpusToMeasure(ctx, /*one_per_local_rank=*/false);
  if (!gpus.ok()) return BenchmarkResult::Skip(gpus.status().message());
  const bool h2d = direction == HostCopyDirection::kHostToDevice;
  BenchmarkResult r;
  ResultTable table{
      .title = std::string(h2d ? "host -> device" : "device -> host") +
               " copy, pinned memory per NUMA node (GB/s, one direction)",
      .columns = {"gpu", "host node", "local", "size", "method", "GB/s", "% of PCIe"}};
  std::vector<std::string> notes;
  for (int ordinal : *gpus) {
    if (Status s = MeasureGpu(ctx, direction, ordinal, r, table, notes); !s.ok())
      return BenchmarkResult::Error(s);
  }
  std::string summary;
  for (const Measurement& m : r.measurements) {
    if (m.params.at("local") == "no") continue;
    summary += fmt::format("{}{} {} {:.1f} GB/s", summary.empty() ? "" : ", ",
                           m.params.at("device"), m.params.at("method"), m.value);
    if (auto p = m.params.find("pct_of_peak"); p != m.params.end())
      summary += " (" + p->second + "% of PCIe)";
  }
  r.summary = summary.empty() ? "measured" : summary + " (GPU-local node)";
  r.tables.push_back(std::move(table));
  for (const std::string& n : notes) r.Note("peak", n);
  return r;
}

Measures HostCopyMeasures() {
  return {.kind = FigureKind::kPcie,
          .figures = {{"ce", "GB/s", Better::kHigher, PeakKind::kPcie},
                      {"sm", "GB/s", Better::kHigher, PeakKind::kPcie}},
          .identity = {"backend", "device", "gpu", "gpu_name", "size", "method", "host_numa_node",
                       "gpu_numa_node", "local"}};
}

}  // namespace ys::bench
