#include "core/finding_codes.h"

#include <algorithm>
#include <string>

#include "core/registry.h"

namespace ys {
namespace {

struct ProducerCodes {
  std::string_view producer;
  std::string_view file;
  std::vector<FindingCodeInfo> codes;
};

// Filled at static initialisation, read-only afterwards (as the unit registry).
std::vector<ProducerCodes>& Producers() {
  static auto* producers = new std::vector<ProducerCodes>();  // never destroyed: static init
  return *producers;
}

// Built at first use, after static initialisation has registered every unit and producer.
const std::vector<FindingCodeInfo>& Catalogue() {
  static const std::vector<FindingCodeInfo> all = [] {
    std::vector<FindingCodeInfo> v;
    for (const FindingCodeDeclaration& d : FindingCodeDeclarations()) {
      bool known = std::any_of(v.begin(), v.end(),
                               [&](const FindingCodeInfo& c) { return c.code == d.info.code; });
      if (!known) v.push_back(d.info);
    }
    std::sort(v.begin(), v.end(),
              [](const FindingCodeInfo& a, const FindingCodeInfo& b) { return a.code < b.code; });
    return v;
  }();
  return all;
}

}  // namespace

bool DeclareFindingCodes(std::string_view producer, std::string_view file,
                         std::vector<FindingCodeInfo> codes) {
  Producers().push_back({producer, RepositoryPath(file), std::move(codes)});
  return true;
}

std::vector<FindingCodeDeclaration> FindingCodeDeclarations() {
  std::vector<FindingCodeDeclaration> out;
  for (const RegisteredUnit* u : UnitRegistry::Global().ListAll()) {
    for (const FindingCodeInfo& c : u->info.codes) out.push_back({u->info.id, u->file, c});
  }
  std::vector<const ProducerCodes*> producers;
  for (const ProducerCodes& p : Producers()) producers.push_back(&p);
  std::stable_sort(
      producers.begin(), producers.end(),
      [](const ProducerCodes* a, const ProducerCodes* b) { return a->producer < b->producer; });
  for (const ProducerCodes* p : producers) {
    for (const FindingCodeInfo& c : p->codes) out.push_back({p->producer, p->file, c});
  }
  return out;
}

const std::vector<FindingCodeInfo>& AllFindingCodes() { return Catalogue(); }

const FindingCodeInfo* LookupFindingCode(std::string_view code) {
  const auto& all = Catalogue();
  auto it = std::lower_bound(
      all.begin(), all.end(), code,
      [](const FindingCodeInfo& c, std::string_view wanted) { return c.code < wanted; });
  return it != all.end() && it->code == code ? &*it : nullptr;
}

Finding MakeFinding(std::string_view code, std::string entity, std::string message) {
  Finding f;
  f.code = std::string(code);
  const FindingCodeInfo* info = LookupFindingCode(code);
  f.severity = info ? info->severity : Severity::kFail;
  f.entity = std::move(entity);
  f.message = std::move(message);
  return f;
}

std::string_view RepositoryPath(std::string_view file) {
  for (std::string_view top : {"src/", "tests/"}) {
    if (file.substr(0, top.size()) == top) return file;
    size_t at = file.rfind("/" + std::string(top));
    if (at != std::string_view::npos) return file.substr(at + 1);
  }
  return file;
}

}  // namespace ys
