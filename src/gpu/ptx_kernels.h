// Kernels the GPU benchmarks launch, as PTX text: the driver JIT-compiles it for the device at
// cuModuleLoadData, so the build needs no nvcc and the binary carries no SASS. The PTX targets
// sm_80 (ISA 7.0) and so loads on every GPU the benchmarks address (Ampere, Hopper, Blackwell).
//
// Entry points and their parameters (all by value):
//   ys_copy16(u64 dst, u64 src, u64 count16)  grid-stride copy of count16 16-byte elements; dst
//                                             and src 16-byte aligned device (or mapped host /
//                                             peer) addresses. One 16-byte load and store per
//                                             element, like nvbandwidth's SM copy.
//   ys_spin_wait(u64 flag, u64 timeout_ns)    spins until the u32 at `flag` (mapped host memory)
//                                             is non-zero or timeout_ns of %globaltimer passed:
//                                             holds a stream while work is queued behind it, so
//                                             that the enqueue cost is not timed (nvbandwidth).
//   ys_empty()                                returns at once: the launch-latency kernel.
#ifndef YARDSTICK_GPU_PTX_KERNELS_H_
#define YARDSTICK_GPU_PTX_KERNELS_H_

namespace ys::gpu {

// The module text holding the three entry points above.
const char* BenchKernelsPtx();

inline constexpr const char* kCopyKernel = "ys_copy16";
inline constexpr const char* kSpinKernel = "ys_spin_wait";
inline constexpr const char* kEmptyKernel = "ys_empty";

}  // namespace ys::gpu

#endif  // YARDSTICK_GPU_PTX_KERNELS_H_
