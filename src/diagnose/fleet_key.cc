#include "diagnose/fleet_key.h"

#include <array>
#include <string_view>

namespace ys::diagnose {
namespace {

constexpr std::array<std::string_view, 11> kEntityParams = {
    "device", "gpu", "nic", "hca", "port", "rank", "local_rank", "host", "node", "hostname",
    "pct_of_peak"};

const std::string* Param(const Measurement& m, const char* name) {
  auto it = m.params.find(name);
  return it == m.params.end() || it->second.empty() ? nullptr : &it->second;
}

bool StartsWith(const std::string& s, std::string_view prefix) { return s.rfind(prefix, 0) == 0; }

bool LooksLikeNic(const std::string& v) {
  for (std::string_view p : {"mlx", "ib", "hfi", "bnxt", "irdma", "efa", "qedr", "rxe", "eth"}) {
    if (StartsWith(v, p)) return true;
  }
  return false;
}

}  // namespace

const char* EntityKindName(EntityKind kind) {
  switch (kind) {
    case EntityKind::kNode: return "node";
    case EntityKind::kGpu: return "gpu";
    case EntityKind::kNic: return "nic";
    case EntityKind::kOther: return "device";
  }
  return "device";
}

bool IsEntityParam(const std::string& param) {
  for (std::string_view p : kEntityParams) {
    if (param == p) return true;
  }
  return false;
}

std::map<std::string, std::string> KeyParams(const Measurement& m) {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : m.params) {
    if (!IsEntityParam(k)) out.emplace(k, v);
  }
  return out;
}

std::string ComparisonKey(const Measurement& m) {
  std::string key = m.name + " [" + m.unit + "]";
  for (const auto& [k, v] : m.params) {
    if (!IsEntityParam(k)) key += " " + k + "=" + v;
  }
  return key;
}

Entity EntityOf(const Measurement& m) {
  Entity e;
  if (const std::string* v = Param(m, "gpu")) {
    e = {EntityKind::kGpu, StartsWith(*v, "gpu") ? *v : "gpu" + *v};
  } else if (const std::string* v = Param(m, "nic") ? Param(m, "nic") : Param(m, "hca")) {
    e = {EntityKind::kNic, *v};
  } else if (const std::string* v = Param(m, "device")) {
    if (*v == "cpu" || *v == "node") return e;
    if (StartsWith(*v, "gpu")) {
      e = {EntityKind::kGpu, *v};
    } else if (LooksLikeNic(*v)) {
      e = {EntityKind::kNic, *v};
    } else {
      e = {EntityKind::kOther, *v};
    }
  } else if (const std::string* v = Param(m, "rank")) {
    e = {EntityKind::kOther, "rank" + *v};
  }
  if (e.kind == EntityKind::kNic) {
    if (const std::string* port = Param(m, "port")) e.label += "/" + *port;
  }
  return e;
}

std::string NodeOf(const Measurement& m, const std::string& document_host) {
  for (const char* p : {"host", "node", "hostname"}) {
    if (const std::string* v = Param(m, p)) return *v;
  }
  return document_host;
}

}  // namespace ys::diagnose
