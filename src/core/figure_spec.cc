#include "core/figure_spec.h"

#include <algorithm>
#include <map>

#include "core/registry.h"

namespace ys {

const char* FigureKindName(FigureKind kind) {
  switch (kind) {
    case FigureKind::kGemm:
      return "gemm";
    case FigureKind::kMemory:
      return "memory";
    case FigureKind::kNvlink:
      return "nvlink";
    case FigureKind::kPcie:
      return "pcie";
    case FigureKind::kNetwork:
      return "network";
    case FigureKind::kCollective:
      return "collective";
    case FigureKind::kClock:
      return "clock";
    case FigureKind::kCpuGemm:
      return "cpu_gemm";
    case FigureKind::kStream:
      return "stream";
    case FigureKind::kProxy:
      return "proxy";
    case FigureKind::kStorage:
      return "storage";
    case FigureKind::kLaunch:
      return "launch";
    case FigureKind::kOther:
      return "other";
  }
  return "other";
}

const char* PeakKindName(PeakKind kind) {
  switch (kind) {
    case PeakKind::kNone:
      return "";
    case PeakKind::kGpuFlops:
      return "gpu_flops";
    case PeakKind::kGpuMemory:
      return "gpu_memory";
    case PeakKind::kNvlink:
      return "nvlink";
    case PeakKind::kPcie:
      return "pcie";
    case PeakKind::kCpuFlops:
      return "cpu_flops";
    case PeakKind::kCpuMemory:
      return "cpu_memory";
  }
  return "";
}

bool Measures::IsIdentity(std::string_view param) const {
  return std::find(identity.begin(), identity.end(), param) != identity.end();
}

// Families whose figures enter through documents this build's benchmarks did not write: other
// tools' results gathered into a fleet (perftest's ib_write_bw as net.ib_write.*), figures
// named by earlier versions, and burn-in summaries. They declare a kind and, where known, their
// identity; their quantities are open (FigureDecl::figure is null).
const std::vector<FigureFamily>& ForeignFigureFamilies() {
  static const std::vector<FigureFamily> kFamilies = {
      {"net", {.kind = FigureKind::kNetwork}},
      {"ib", {.kind = FigureKind::kNetwork}},
      {"nvlink", {.kind = FigureKind::kNvlink}},
      {"copy.p2p", {.kind = FigureKind::kNvlink}},
      {"stream", {.kind = FigureKind::kStream}},
      {"workload", {.kind = FigureKind::kProxy}},
      {"burnin", {.kind = FigureKind::kOther, .identity = {"device", "host", "statistic"}}},
  };
  return kFamilies;
}

namespace {

using FamilyMap = std::map<std::string_view, const Measures*, std::less<>>;

FamilyMap BuildFamilies() {
  FamilyMap out;
  for (const FigureFamily& f : ForeignFigureFamilies()) out.emplace(f.id, &f.measures);
  for (const RegisteredUnit* u : UnitRegistry::Global().List(UnitKind::kBenchmark)) {
    out[u->info.id] = &u->info.measures;
  }
  return out;
}

const FamilyMap& Families() {
  static const FamilyMap families = BuildFamilies();  // the registry is read-only after main
  return families;
}

}  // namespace

std::optional<FigureDecl> FindFigure(std::string_view name) {
  const FamilyMap& families = Families();
  std::string_view family = name;
  while (!family.empty()) {
    auto it = families.find(family);
    if (it != families.end()) {
      FigureDecl d{.family = it->first, .measures = it->second};
      std::string_view quantity =
          family.size() == name.size() ? std::string_view() : name.substr(family.size() + 1);
      for (const FigureSpec& f : d.measures->figures) {
        if (f.quantity == quantity) d.figure = &f;
      }
      return d;
    }
    size_t dot = family.rfind('.');
    if (dot == std::string_view::npos) break;
    family = family.substr(0, dot);
  }
  return std::nullopt;
}

}  // namespace ys
