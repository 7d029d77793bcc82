#include "core/registry.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace ys {

const char* UnitKindName(UnitKind kind) {
  switch (kind) {
    case UnitKind::kCheck:
      return "check";
    case UnitKind::kBenchmark:
      return "benchmark";
    case UnitKind::kRule:
      return "rule";
    case UnitKind::kCommand:
      return "command";
  }
  return "unit";
}

const char* NeedName(Need need) {
  switch (need) {
    case Need::kRoot:
      return "root";
    case Need::kGpu:
      return "gpu";
    case Need::kMpi:
      return "mpi";
    case Need::kContainer:
      return "container";
    case Need::kLiveHost:
      return "live-host";
    case Need::kSlurm:
      return "slurm";
    case Need::kInfiniband:
      return "infiniband";
    case Need::kGpuState:
      return "gpu-state";
  }
  return "?";
}

UnitRegistry& UnitRegistry::Global() {
  static UnitRegistry* registry = new UnitRegistry();  // never destroyed: used by static init
  return *registry;
}

bool UnitRegistry::Add(UnitKind kind, UnitInfo info, UnitFactory factory, std::string_view file) {
  if (Find(kind, info.id) != nullptr) {
    std::fprintf(stderr, "yardstick: internal error: %s id %.*s registered twice\n",
                 UnitKindName(kind), static_cast<int>(info.id.size()), info.id.data());
    std::abort();
  }
  units_.push_back(std::make_unique<RegisteredUnit>(
      RegisteredUnit{kind, std::move(info), std::move(factory), RepositoryPath(file)}));
  return true;
}

std::vector<const RegisteredUnit*> UnitRegistry::ListAll() const {
  std::vector<const RegisteredUnit*> out;
  for (const auto& u : units_) out.push_back(u.get());
  std::sort(out.begin(), out.end(), [](const RegisteredUnit* a, const RegisteredUnit* b) {
    return a->info.id < b->info.id;
  });
  return out;
}

std::vector<const RegisteredUnit*> UnitRegistry::List(std::initializer_list<UnitKind> kinds) const {
  std::vector<const RegisteredUnit*> out;
  for (const auto* u : ListAll()) {
    if (std::find(kinds.begin(), kinds.end(), u->kind) != kinds.end()) out.push_back(u);
  }
  return out;
}

std::vector<const RegisteredUnit*> UnitRegistry::List(UnitKind kind) const { return List({kind}); }

const RegisteredUnit* UnitRegistry::Find(UnitKind kind, std::string_view id) const {
  for (const auto& u : units_) {
    if (u->kind == kind && u->info.id == id) return u.get();
  }
  return nullptr;
}

}  // namespace ys
