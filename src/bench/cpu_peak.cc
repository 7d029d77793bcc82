#include "bench/cpu_peak.h"

#include <fmt/format.h>

#include <set>

#include "core/text.h"
#include "host/procfs.h"

namespace ys::bench {
namespace {

std::set<std::string_view> Words(std::string_view text) {
  std::set<std::string_view> out;
  for (std::string_view w : SplitWhitespace(text)) out.insert(w);
  return out;
}

CpuVectorIsa Isa(std::string name, int fp64, std::string assumption) {
  return {.isa = std::move(name),
          .fp64_flops_per_cycle = fp64,
          .fp32_flops_per_cycle = 2 * fp64,
          .assumption = std::move(assumption)};
}

}  // namespace

Result<CpuVectorIsa> DetectVectorIsa(const std::map<std::string, std::string>& fields) {
  if (auto it = fields.find("flags"); it != fields.end()) {
    auto flags = Words(it->second);
    auto vendor = fields.find("vendor_id");
    auto family = fields.find("cpu family");
    bool zen4 = vendor != fields.end() && Trim(vendor->second) == "AuthenticAMD" &&
                family != fields.end() && ParseInt(Trim(family->second)) == 25;
    if (flags.count("avx512f")) {
      if (zen4) {
        return Isa("avx512f (256-bit datapath)", 16,
                   "AMD family 0x19 (Zen 4): 2 FMA pipes x 256 bit, 512-bit FMA in two passes");
      }
      return Isa("avx512f", 32,
                 "2 FMA pipes x 512 bit (server parts; one-FMA Xeon SKUs have half)");
    }
    if (flags.count("avx2") && flags.count("fma"))
      return Isa("avx2+fma", 16, "2 FMA pipes x 256 bit");
    if (flags.count("avx")) return Isa("avx", 8, "1 add + 1 multiply pipe x 256 bit, no FMA");
    if (flags.count("sse2")) return Isa("sse2", 4, "1 add + 1 multiply pipe x 128 bit, no FMA");
    return Status::Invalid("cpuinfo flags: none of avx512f, avx2+fma, avx, sse2");
  }
  if (auto it = fields.find("Features"); it != fields.end()) {
    auto features = Words(it->second);
    if (features.count("sve")) {
      return Isa("sve", 16,
                 "4 FMA pipes x 128 bit (Neoverse V2 / Grace; SVE length not in cpuinfo)");
    }
    if (features.count("asimd")) return Isa("asimd", 8, "2 FMA pipes x 128 bit (Neoverse N1)");
    return Status::Invalid("cpuinfo Features: neither sve nor asimd");
  }
  return Status::Invalid("cpuinfo: no \"flags\" (x86) or \"Features\" (Arm) field");
}

Result<CpuVectorIsa> DetectVectorIsaFromCpuinfo(std::string_view cpuinfo_text) {
  auto blocks = host::ParseCpuInfo(cpuinfo_text);
  if (!blocks.ok()) return blocks.status();
  if (blocks->empty()) return Status::Invalid("cpuinfo: no processor block");
  return DetectVectorIsa(blocks->front().fields);
}

CpuPeak ComputeCpuPeak(const CpuVectorIsa& isa, bool fp64, int cores, double mhz) {
  CpuPeak p;
  p.cores = cores;
  p.ghz = mhz / 1000.0;
  p.flops_per_cycle = fp64 ? isa.fp64_flops_per_cycle : isa.fp32_flops_per_cycle;
  p.gflops = cores * p.ghz * p.flops_per_cycle;
  p.formula = fmt::format("{} cores x {:.3f} GHz x {} flops/cycle ({} {}) = {:.1f} GFLOPS", cores,
                          p.ghz, p.flops_per_cycle, isa.isa, fp64 ? "fp64" : "fp32", p.gflops);
  return p;
}

}  // namespace ys::bench
