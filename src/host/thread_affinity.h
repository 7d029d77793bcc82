// Threads pinned to CPUs: for measurements whose result depends on where the work runs (the
// busy-core clock, STREAM per NUMA node with first-touch pages, GEMM determinism across cores).
#ifndef YARDSTICK_HOST_THREAD_AFFINITY_H_
#define YARDSTICK_HOST_THREAD_AFFINITY_H_

#include <functional>
#include <vector>

#include "core/status.h"

namespace ys::host {

// Pins the calling thread to `cpu`. Unsupported naming the CPU when it is not in this process's
// allowed CPUs or offline.
[[nodiscard]] Status PinThisThread(int cpu);

// Starts one thread per entry of `cpus`, pins thread i to cpus[i], and, once every thread is
// pinned, calls work(i) on each of them concurrently; joins all. When any thread cannot be
// pinned (or started), no work runs and the error names the CPU. An exception thrown by work()
// is caught on its thread and returned as Internal after all threads have joined; work() must
// then not leave the others waiting (e.g. on a barrier it shares with them).
// Thread safety: work() runs on several threads at once; it synchronises what it shares.
[[nodiscard]] Status RunPinned(const std::vector<int>& cpus, const std::function<void(int)>& work);

}  // namespace ys::host

#endif  // YARDSTICK_HOST_THREAD_AFFINITY_H_
