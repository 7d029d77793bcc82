// The CPU's peak floating-point rate, computed (no datasheet): physical cores x measured busy
// clock (GHz) x flops per cycle per core of the widest vector FMA the CPU advertises.
//
// Flops per cycle per core come from the ISA flags of /proc/cpuinfo and an assumption about the
// number and width of FMA pipes, stated in `assumption` (an FMA counts 2 flops):
//   x86 avx512f  2 FMA pipes x 512 bit (server parts: Xeon Gold/Platinum, AMD Zen 5);
//                fp64 32, fp32 64. AMD family 0x19 (Zen 4) executes 512-bit FMA on 256-bit
//                pipes: fp64 16, fp32 32. Xeon parts with one 512-bit FMA unit count double.
//   x86 avx2+fma 2 FMA pipes x 256 bit: fp64 16, fp32 32.
//   x86 avx      1 add + 1 multiply pipe x 256 bit (no FMA): fp64 8, fp32 16.
//   x86 sse2     1 add + 1 multiply pipe x 128 bit: fp64 4, fp32 8.
//   arm sve      4 FMA pipes x 128 bit (Neoverse V2, Grace; the SVE length is not in cpuinfo):
//                fp64 16, fp32 32.
//   arm asimd    2 FMA pipes x 128 bit (Neoverse N1): fp64 8, fp32 16.
// The clock is the busy clock of one active core (host/busy_core_clock.h); under an all-core vector
// load many CPUs run slower, so the peak is an upper bound and the % of it a lower bound.
#ifndef YARDSTICK_BENCH_CPU_PEAK_H_
#define YARDSTICK_BENCH_CPU_PEAK_H_

#include <map>
#include <string>
#include <string_view>

#include "core/status.h"

namespace ys::bench {

struct CpuVectorIsa {
  std::string
      isa;  // "avx512f", "avx512f (256-bit datapath)", "avx2+fma", "avx", "sse2", "sve", "asimd"
  int fp64_flops_per_cycle = 0;
  int fp32_flops_per_cycle = 0;
  std::string assumption;  // the pipe count and width behind the figures
};

// From one /proc/cpuinfo processor block: "flags" (x86) or "Features" (Arm), and on x86
// "vendor_id" and "cpu family". Invalid when neither flags field is present or no known vector
// ISA is listed.
Result<CpuVectorIsa> DetectVectorIsa(const std::map<std::string, std::string>& cpuinfo_fields);
// The same from the whole /proc/cpuinfo text (its first processor block).
Result<CpuVectorIsa> DetectVectorIsaFromCpuinfo(std::string_view cpuinfo_text);

struct CpuPeak {
  double gflops = 0;
  int cores = 0;
  double ghz = 0;
  int flops_per_cycle = 0;
  std::string formula;  // "2 cores x 3.70 GHz x 64 flops/cycle = 473.6 GFLOPS"
};
// cores x GHz x flops/cycle for fp64 (`fp64`) or fp32.
CpuPeak ComputeCpuPeak(const CpuVectorIsa& isa, bool fp64, int cores, double mhz);

}  // namespace ys::bench

#endif  // YARDSTICK_BENCH_CPU_PEAK_H_
