#include "fleet/key.h"

#include <array>
#include <cctype>
#include <set>
#include <unordered_map>

namespace ys::fleet {
namespace {

constexpr std::array<std::string_view, 12> kEntityParams = {
    "device", "gpu",        "peer", "nic",  "hca",      "port",
    "rank",   "local_rank", "host", "node", "hostname", "cpus"};

const std::string* Param(const Measurement& m, const char* name) {
  auto it = m.params.find(name);
  return it == m.params.end() || it->second.empty() ? nullptr : &it->second;
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

bool LooksLikeNic(const std::string& v) {
  for (std::string_view p : {"mlx", "ib", "hfi", "bnxt", "irdma", "efa", "qedr", "rxe", "eth"}) {
    if (StartsWith(v, p)) return true;
  }
  return false;
}

bool IsDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// A digit, then '.' or 'e'/'E' (with an optional sign), then a digit: "59.4", "3.5e+09", "v4.1".
bool CarriesFractionalNumber(std::string_view v) {
  for (size_t i = 0; i + 1 < v.size(); ++i) {
    if (!IsDigit(v[i])) continue;
    char c = v[i + 1];
    size_t j = i + 2;
    if (c == 'e' || c == 'E') {
      if (j < v.size() && (v[j] == '+' || v[j] == '-')) ++j;
    } else if (c != '.') {
      continue;
    }
    if (j < v.size() && IsDigit(v[j])) return true;
  }
  return false;
}

// "gpu" followed by digits only: a GPU's own label.
bool IsGpuLabel(std::string_view v) {
  if (!StartsWith(v, "gpu") || v.size() == 3) return false;
  for (char c : v.substr(3)) {
    if (!IsDigit(c)) return false;
  }
  return true;
}

Entity DeviceEntity(const std::string& v) {
  if (v == "cpu" || v == "node" || v == "gpu" || v == "all") return {};
  if (IsGpuLabel(v)) return {EntityKind::kGpu, v};
  bool digits = !v.empty();
  for (char c : v) digits = digits && IsDigit(c);
  if (digits) return {EntityKind::kGpu, "gpu" + v};
  if (LooksLikeNic(v)) return {EntityKind::kNic, v};
  return {EntityKind::kOther, v};
}

}  // namespace

const char* EntityKindName(EntityKind kind) {
  switch (kind) {
    case EntityKind::kNode:
      return "node";
    case EntityKind::kGpu:
      return "gpu";
    case EntityKind::kNic:
      return "nic";
    case EntityKind::kOther:
      return "device";
  }
  return "device";
}

FigureKind KindOf(std::string_view n) {
  auto d = FindFigure(n);
  return d ? d->measures->kind : FigureKind::kOther;
}

namespace {

enum : uint8_t { kNaming = 1, kReference = 2, kVersion = 4 };

uint8_t ComputeFlags(const std::string& param) {
  uint8_t f = 0;
  for (std::string_view p : kEntityParams) {
    if (param == p) f |= kNaming;
  }
  if (param == "baseline" || StartsWith(param, "peak") || StartsWith(param, "pct_"))
    f |= kReference;
  static const std::set<std::string_view> kVersions = {"library", "nccl", "cuda",   "cublaslt",
                                                       "cudnn",   "blas", "driver", "firmware",
                                                       "vbios",   "ofed", "version"};
  if (kVersions.count(param) > 0 || param.ends_with("_version") || param.ends_with("_firmware"))
    f |= kVersion;
  return f;
}

// What a param's name says, cached per thread: a run has a few dozen distinct param names and
// millions of params.
uint8_t FlagsOf(const std::string& param) {
  thread_local std::unordered_map<std::string, uint8_t> cache;
  if (auto it = cache.find(param); it != cache.end()) return it->second;
  uint8_t f = ComputeFlags(param);
  if (cache.size() < 4096) cache.emplace(param, f);
  return f;
}

}  // namespace

bool IsEntityNamingParam(const std::string& param) { return FlagsOf(param) & kNaming; }

bool IsEntityParam(const std::string& param) { return FlagsOf(param) & (kNaming | kReference); }

bool IsVersionParam(const std::string& param) { return FlagsOf(param) & kVersion; }

bool IsDescriptionParam(const std::string& param, const std::string& value) {
  return (FlagsOf(param) & (kNaming | kReference)) || CarriesFractionalNumber(value);
}

bool IsKeptForFleet(const std::string& param, std::string_view value) {
  return IsKeptForFleet(KeptForFleetByName(param), value);
}

KeptByName KeptForFleetByName(const std::string& param) {
  uint8_t f = FlagsOf(param);
  if (f & (kNaming | kVersion)) return KeptByName::kKept;
  return f & kReference ? KeptByName::kDropped : KeptByName::kByValue;
}

bool IsKeptForFleet(KeptByName by_name, std::string_view value) {
  return by_name == KeptByName::kKept ||
         (by_name == KeptByName::kByValue && !CarriesFractionalNumber(value));
}

namespace {

// The declaration of the family that measured `name`, when it declares identity params; cached
// per thread by name (a fleet has a few hundred names and millions of measurements).
const Measures* DeclaredIdentity(const std::string& name) {
  thread_local std::unordered_map<std::string, const Measures*> cache;
  if (auto it = cache.find(name); it != cache.end()) return it->second;
  auto d = FindFigure(name);
  const Measures* m = d && !d->measures->identity.empty() ? d->measures : nullptr;
  if (cache.size() < 4096) cache.emplace(name, m);
  return m;
}

bool IsKeyParam(const Measures* declared, const std::string& param, const std::string& value) {
  return !IsDescriptionParam(param, value) && (declared == nullptr || declared->IsIdentity(param));
}

}  // namespace

std::map<std::string, std::string> KeyParams(const Measurement& m) {
  std::map<std::string, std::string> out;
  const Measures* declared = DeclaredIdentity(m.name);
  for (const auto& [k, v] : m.params) {
    if (IsKeyParam(declared, k, v)) out.emplace(k, v);
  }
  return out;
}

std::string ComparisonKey(const Measurement& m) {
  std::string key;
  key.reserve(96);
  key += m.name;
  key += " [";
  key += m.unit;
  key += "]";
  const Measures* declared = DeclaredIdentity(m.name);
  for (const auto& [k, v] : m.params) {
    if (!IsKeyParam(declared, k, v)) continue;
    key += ' ';
    key += k;
    key += '=';
    key += v;
  }
  return key;
}

Entity EntityOf(const Measurement& m) {
  Entity e;
  if (const std::string* v = Param(m, "gpu")) {
    e = DeviceEntity(IsGpuLabel(*v) ? *v : "gpu" + *v);
    if (e.kind != EntityKind::kGpu) e = {};
  } else if (const std::string* v = Param(m, "nic") ? Param(m, "nic") : Param(m, "hca")) {
    e = {EntityKind::kNic, *v};
  } else if (const std::string* v = Param(m, "device")) {
    e = DeviceEntity(*v);
  } else if (const std::string* v = Param(m, "rank")) {
    e = {EntityKind::kOther, "rank" + *v};
  }
  if (e.kind == EntityKind::kNic) {
    if (const std::string* port = Param(m, "port")) e.label += "/" + *port;
  }
  return e;
}

std::optional<Entity> PeerOf(const Measurement& m) {
  const std::string* v = Param(m, "peer");
  if (v == nullptr) return std::nullopt;
  Entity e = DeviceEntity(*v);
  if (e.kind != EntityKind::kGpu && e.kind != EntityKind::kNic)
    return std::nullopt;  // "loopback ..."
  return e;
}

std::string BareLabel(const Entity& e) {
  if (e.kind != EntityKind::kGpu && e.kind != EntityKind::kNic) return "node";
  return e.label.substr(0, e.label.find('/'));
}

std::string NodeOf(const Measurement& m, const std::string& document_host) {
  for (const char* p : {"host", "node", "hostname"}) {
    if (const std::string* v = Param(m, p)) return *v;
  }
  return document_host;
}

}  // namespace ys::fleet
