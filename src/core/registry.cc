#include "core/registry.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace ys {

const char* UnitKindName(UnitKind kind) {
  switch (kind) {
    case UnitKind::kCheck: return "check";
    case UnitKind::kBenchmark: return "benchmark";
    case UnitKind::kWorkload: return "workload";
  }
  return "unit";
}

const char* NeedName(Need need) {
  switch (need) {
    case Need::kRoot: return "root";
    case Need::kGpu: return "gpu";
    case Need::kMpi: return "mpi";
    case Need::kContainer: return "container";
    case Need::kLiveHost: return "live-host";
    case Need::kSlurm: return "slurm";
    case Need::kInfiniband: return "infiniband";
  }
  return "?";
}

UnitRegistry& UnitRegistry::Global() {
  static UnitRegistry* registry = new UnitRegistry();  // never destroyed: used by static init
  return *registry;
}

bool UnitRegistry::Add(UnitKind kind, UnitInfo info, UnitFactory factory) {
  if (Find(info.id) != nullptr) {
    std::fprintf(stderr, "yardstick: internal error: unit id %.*s registered twice\n",
                 static_cast<int>(info.id.size()), info.id.data());
    std::abort();
  }
  units_.push_back(std::make_unique<RegisteredUnit>(
      RegisteredUnit{kind, std::move(info), std::move(factory)}));
  return true;
}

std::vector<const RegisteredUnit*> UnitRegistry::ListAll() const {
  std::vector<const RegisteredUnit*> out;
  for (const auto& u : units_) out.push_back(u.get());
  std::sort(out.begin(), out.end(),
            [](const RegisteredUnit* a, const RegisteredUnit* b) { return a->info.id < b->info.id; });
  return out;
}

std::vector<const RegisteredUnit*> UnitRegistry::List(UnitKind kind) const {
  std::vector<const RegisteredUnit*> out;
  for (const auto* u : ListAll()) {
    if (u->kind == kind) out.push_back(u);
  }
  return out;
}

const RegisteredUnit* UnitRegistry::Find(std::string_view id) const {
  for (const auto& u : units_) {
    if (u->info.id == id) return u.get();
  }
  return nullptr;
}

}  // namespace ys
