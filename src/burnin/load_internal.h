// What the load files share behind burnin/load.h: the factories MakeLoads chooses from, the GPU
// probe, and the per-CPU load frame (a persistent pinned worker per CPU, each running checked
// operations until the cycle's time is up). Not part of the contract with the driver.
#ifndef YARDSTICK_BURNIN_LOAD_INTERNAL_H_
#define YARDSTICK_BURNIN_LOAD_INTERNAL_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "burnin/load.h"
#include "burnin/worker_pool.h"

namespace ys::burnin {

// How many GPUs the CUDA driver shows this process, or why none is usable (the driver missing,
// cuInit failing, no device). Asked once per process, then remembered.
Result<int> UsableGpuCount();

// The GPU ordinals this rank drives: its local rank's GPU under a launcher, every GPU otherwise.
std::vector<int> GpuOrdinals(const LoadContext& ctx, int gpu_count);

// Median of `v` (empty: nullopt).
std::optional<double> Median(std::vector<double> v);

// One entity's load result for a cycle, as the loads fill it.
struct CycleTally {
  std::vector<double> rates;
  int64_t iterations = 0;
  int64_t miscompares = 0;
  std::string detail;  // the first miscompare
  std::string error;   // the load failed on this entity this cycle
};

// The sample of `entity` for one cycle.
EntitySample LoadSample(const LoadContext& ctx, const std::string& entity, const std::string& kind,
                        const char* metric, const char* unit, const CycleTally& tally,
                        const std::string& digest);

// The frame of the CPU and GPU loads: one worker per entity ("cpuN" pinned to its CPU, "gpuN"
// on its GPU). RunCycle runs Iterate() on every worker until `seconds` have passed (at least
// once), with a bit flip asked for on the first operation of a worker whose entity has one
// planted in the cycle, and appends one sample per entity. It returns with every worker idle.
class CheckedLoad : public Load {
 public:
  Status RunCycle(double at_s, double seconds, std::vector<EntitySample>& out) override;

 protected:
  CheckedLoad(const LoadContext& ctx, const char* kind, const char* metric, const char* unit)
      : ctx_(ctx), kind_(kind), metric_(metric), unit_(unit) {}
  // The entities' numbers (CPU or GPU ordinals), worker i driving entity kind + ids[i].
  virtual const std::vector<int>& ids() const = 0;
  // Calls work(i) for every worker concurrently and waits; entry i: an exception of work(i).
  virtual std::vector<Status> RunWorkers(const std::function<void(int)>& work) = 0;
  // One checked operation on worker `worker`: `rate` measured; when `flip`, one bit of the output
  // is flipped after the operation and before the comparison. `mismatch`: the first differing
  // element ("element 17: expected ..."), empty when the output equals the reference.
  virtual Status Iterate(int worker, bool flip, double& rate, std::string& mismatch) = 0;
  // The digest of worker i's reference output.
  virtual std::string Digest(int worker) const = 0;

  const LoadContext ctx_;

 private:
  const char* kind_;
  const char* metric_;
  const char* unit_;
};

// A CPU load: the workers are a pool pinned to the CPUs; one reference digest for all.
class PinnedCpuLoad : public CheckedLoad {
 protected:
  PinnedCpuLoad(const LoadContext& ctx, std::unique_ptr<WorkerPool> pool, const char* metric,
                const char* unit)
      : CheckedLoad(ctx, "cpu", metric, unit), pool_(std::move(pool)) {}
  const std::vector<int>& ids() const override { return pool_->cpus(); }
  std::vector<Status> RunWorkers(const std::function<void(int)>& work) override {
    return pool_->Run(work);
  }
  std::string Digest(int) const override { return digest_; }

  std::unique_ptr<WorkerPool> pool_;
  std::string digest_;  // of the reference output
};

// Runs work(i) for i in [0, n) on n threads (one per GPU) and joins them; entry i is Internal
// with the text of an exception work(i) threw.
std::vector<Status> RunOnThreads(size_t n, const std::function<void(int)>& work);

// A GPU load: one thread per GPU ordinal for each round of work.
class PerGpuLoad : public CheckedLoad {
 protected:
  PerGpuLoad(const LoadContext& ctx, std::vector<int> ordinals, const char* metric,
             const char* unit)
      : CheckedLoad(ctx, "gpu", metric, unit), ordinals_(std::move(ordinals)) {}
  const std::vector<int>& ids() const override { return ordinals_; }
  std::vector<Status> RunWorkers(const std::function<void(int)>& work) override {
    return RunOnThreads(ordinals_.size(), work);
  }
  // Runs init(i) for every GPU on its own thread; the first failure, prefixed "gpuN: ".
  Status InitEach(const std::function<Status(int)>& init);

  const std::vector<int> ordinals_;
};

Result<std::unique_ptr<Load>> MakeCpuGemmLoad(const LoadContext& ctx, const std::vector<int>& cpus);
Result<std::unique_ptr<Load>> MakeCpuStreamLoad(const LoadContext& ctx,
                                                const std::vector<int>& cpus);
// `use_gpu`: NCCL on this rank's GPU; MPI on host buffers otherwise. Collective over the job.
Result<std::unique_ptr<Load>> MakeNetworkLoad(const LoadContext& ctx, bool use_gpu);
Result<std::unique_ptr<Load>> MakeGpuGemmLoad(const LoadContext& ctx, const std::vector<int>& gpus);
Result<std::unique_ptr<Load>> MakeGpuMemoryLoad(const LoadContext& ctx,
                                                const std::vector<int>& gpus);

}  // namespace ys::burnin

#endif  // YARDSTICK_BURNIN_LOAD_INTERNAL_H_
