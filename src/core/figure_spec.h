// What a benchmark measures, declared where the benchmark registers (core/registry.h UnitInfo
// `measures`) and read by every consumer of its figures: the fleet merge (the kind of figure
// evidence is pooled by), `compare` and the history (which params identify a figure), the
// Prometheus exporter (which params may be labels), the HTML report's peak-rates section and the
// predictor's measured rates (predict/step_rates.h).
//
//   YS_REGISTER(StreamBenchmark,
//               {.id = "mem.stream", ...,
//                .measures = {.kind = FigureKind::kStream,
//                             .figures = {{"triad", "GB/s", Better::kHigher,
//                             PeakKind::kCpuMemory}}, .identity = {"backend", "device",
//                             "numa_node", "threads"}}});
//
// A measurement's name is "<unit id>.<quantity>" (bench/benchmark.h); FindFigure finds the
// declaring unit by its id, the longest registered id the name starts with at a dot. Figures
// that enter through documents other tools wrote (perftest's network figures, burn-in
// summaries) have families declared in figure_spec.cc the same way. A name no family declares
// has no declaration: consumers say so (kind "other", every param kept as written) instead of
// guessing; a test checks every registered benchmark declares what it measures.
#ifndef YARDSTICK_CORE_FIGURE_SPEC_H_
#define YARDSTICK_CORE_FIGURE_SPEC_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/run_document.h"

namespace ys {

// The kind of figure a family measures: what fleet analysis pools evidence by and what the
// operator is told to look at.
enum class FigureKind {
  kGemm,
  kMemory,
  kNvlink,
  kPcie,
  kNetwork,
  kCollective,
  kClock,
  kCpuGemm,
  kStream,
  kProxy,
  kStorage,
  kLaunch,
  kOther
};
// "gemm", "memory", "nvlink", "pcie", "network", "collective", "clock", "cpu_gemm", "stream",
// "proxy", "storage", "launch", "other".
const char* FigureKindName(FigureKind kind);

// The hardware peak a figure is a share of (its "peak" / "pct_of_peak" params, when the unit
// knows the peak), or kNone.
enum class PeakKind { kNone, kGpuFlops, kGpuMemory, kNvlink, kPcie, kCpuFlops, kCpuMemory };
// "", "gpu_flops", "gpu_memory", "nvlink", "pcie", "cpu_flops", "cpu_memory".
const char* PeakKindName(PeakKind kind);

// One figure of a family: the measurement "<family id>.<quantity>" ("" quantity: the family id
// itself), in `unit`, better in the direction `better`.
struct FigureSpec {
  std::string_view quantity;
  std::string_view unit;
  Better better = Better::kHigher;
  PeakKind peak = PeakKind::kNone;
};

struct Measures {
  FigureKind kind = FigureKind::kOther;
  // The operation measured where the family's figures stand for one ("all_reduce" for
  // coll.all_reduce); empty otherwise.
  std::string_view op;
  std::vector<FigureSpec> figures;
  // The params that identify a figure: what was measured and where (size, op, dtype, shape,
  // backend, device...). Every other param describes a value (a measured best, a time breakdown,
  // a method string with measured times, a peak): it is kept in the document but never keys,
  // labels or splits a figure.
  std::vector<std::string_view> identity;

  bool declared() const { return kind != FigureKind::kOther && !figures.empty(); }
  bool IsIdentity(std::string_view param) const;
};

// A measurement's declaration: the declaring family's id and what it declares.
struct FigureDecl {
  std::string_view family;
  const Measures* measures = nullptr;
  const FigureSpec* figure = nullptr;
};

// The declaration of the measurement named `measurement_name`, or nullopt when no registered
// benchmark or declared family measures it. Thread-safe after static initialisation.
std::optional<FigureDecl> FindFigure(std::string_view measurement_name);

// The families declared outside the benchmark units (figure_spec.cc), by id.
struct FigureFamily {
  std::string_view id;
  Measures measures;
};
const std::vector<FigureFamily>& ForeignFigureFamilies();

}  // namespace ys

#endif  // YARDSTICK_CORE_FIGURE_SPEC_H_
