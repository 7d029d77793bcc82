#include "gpu/gpu_snapshot_json.h"

#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <type_traits>

#include "core/json_document.h"
#include "gpu/gpu_snapshot_fields.h"
#include "gpu/gpu_telemetry.h"

namespace ys::gpu {

namespace {

using json = nlohmann::json;
using ojson = nlohmann::ordered_json;

constexpr const char* kNotRecorded = "not recorded";

// Every overload is declared before any is defined: they call one another through templates,
// and the unnamed namespace is not searched by argument-dependent lookup.
ojson Encode(const NvLinkState& l);
ojson Encode(const GpuDevice& d);
template <typename T>
ojson Encode(const std::vector<T>& v);
template <typename T>
ojson Encode(const Field<T>& f);
Status Decode(const json& j, const std::string& path, bool* out);
Status Decode(const json& j, const std::string& path, std::string* out);
Status Decode(const json& j, const std::string& path, FabricInfo* out);
Status Decode(const json& j, const std::string& path, GpuProcess* out);
Status Decode(const json& j, const std::string& path, std::pair<int, int>* out);
Status Decode(const json& j, const std::string& path, NvLinkState* out);
Status Decode(const json& j, const std::string& path, GpuDevice* out);
template <typename Int>
requires(std::is_integral_v<Int> && !std::is_same_v<Int, bool>) Status
    Decode(const json& j, const std::string& path, Int* out);
template <typename T>
Status Decode(const json& j, const std::string& path, Field<T>* out);
template <typename T>
Status Decode(const json& j, const std::string& path, std::vector<T>* out);

// ---- Writing ----

ojson Encode(bool v) { return v; }
ojson Encode(int v) { return v; }
ojson Encode(uint32_t v) { return v; }
ojson Encode(uint64_t v) { return v; }
ojson Encode(const std::string& v) { return v; }

ojson Encode(const FabricInfo& f) {
  ojson j;
  j["state"] = f.state;
  j["status"] = f.status;
  j["cluster_uuid"] = f.cluster_uuid;
  j["clique_id"] = f.clique_id;
  return j;
}

ojson Encode(const GpuProcess& p) {
  ojson j;
  j["pid"] = p.pid;
  j["used_memory_bytes"] = p.used_memory_bytes;
  return j;
}

template <typename T>
ojson Encode(const std::vector<T>& v) {
  ojson j = ojson::array();
  for (const auto& x : v) j.push_back(Encode(x));
  return j;
}

template <typename T>
ojson Encode(const Field<T>& f) {
  ojson j = ojson::object();
  if (f.has()) {
    j["value"] = Encode(*f);
  } else {
    j["error"] = f.error.empty() ? std::string(kNotRecorded) : f.error;
  }
  return j;
}

ojson Encode(const NvLinkState& l) {
  ojson j;
  j["link"] = l.link;
  ForEachLinkField(l, [&](const char* key, const auto& f) { j[key] = Encode(f); });
  return j;
}

ojson Encode(const GpuDevice& d) {
  ojson j;
  j["index"] = d.index;
  j["uuid"] = d.uuid;
  j["name"] = d.name;
  j["serial"] = d.serial;
  j["pci_bus_id"] = d.pci_bus_id;
  j["pci_device_id"] = d.pci_device_id;
  ForEachDeviceField(d, [&](const char* key, const auto& f) { j[key] = Encode(f); });
  j["nvlinks"] = Encode(d.nvlinks);
  ojson topo = ojson::array();
  for (const auto& [gpu, level] : d.topology_to_gpus) topo.push_back(ojson::array({gpu, level}));
  j["topology_to_gpus"] = topo;
  return j;
}

// ---- Reading ----

const char* TypeName(const json& j) {
  switch (j.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::boolean:
      return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return "an integer";
    case json::value_t::number_float:
      return "a number with a fraction or exponent";
    case json::value_t::string:
      return "a string";
    case json::value_t::array:
      return "an array";
    case json::value_t::object:
      return "an object";
    default:
      return "a value of another kind";
  }
}

Status Wrong(const std::string& path, std::string_view expected, const json& j) {
  return Status::Invalid(path + ": expected " + std::string(expected) + ", got " + TypeName(j));
}

Status Decode(const json& j, const std::string& path, bool* out) {
  if (!j.is_boolean()) return Wrong(path, "a boolean", j);
  *out = j.get<bool>();
  return Status::Ok();
}

Status Decode(const json& j, const std::string& path, std::string* out) {
  if (!j.is_string()) return Wrong(path, "a string", j);
  *out = j.get<std::string>();
  return Status::Ok();
}

template <typename Int>
requires(std::is_integral_v<Int> && !std::is_same_v<Int, bool>) Status
    Decode(const json& j, const std::string& path, Int* out) {
  using Lim = std::numeric_limits<Int>;
  std::string range =
      "an integer from " + std::to_string(Lim::min()) + " to " + std::to_string(Lim::max());
  if (j.is_number_unsigned()) {
    uint64_t v = j.get<uint64_t>();
    if (v > static_cast<uint64_t>(Lim::max())) {
      return Status::Invalid(path + ": expected " + range + ", got " + std::to_string(v));
    }
    *out = static_cast<Int>(v);
    return Status::Ok();
  }
  if (j.is_number_integer()) {  // negative: nlohmann keeps non-negative integers unsigned
    int64_t v = j.get<int64_t>();
    if constexpr (std::is_unsigned_v<Int>) {
      return Status::Invalid(path + ": expected " + range + ", got " + std::to_string(v));
    } else {
      if (v < static_cast<int64_t>(Lim::min())) {
        return Status::Invalid(path + ": expected " + range + ", got " + std::to_string(v));
      }
      *out = static_cast<Int>(v);
      return Status::Ok();
    }
  }
  return Wrong(path, range, j);
}

// Marks what an absent key means: a Field was not recorded; anything else keeps its default.
template <typename T>
void SetAbsent(Field<T>* f) {
  *f = Field<T>::Missing(kNotRecorded);
}
template <typename T>
void SetAbsent(T*) {}

// An object whose keys are taken one by one; Finish() rejects the keys nobody took.
class ObjectReader {
 public:
  ObjectReader(const json& j, std::string path) : j_(j), path_(std::move(path)) {}

  Status Expect() const { return j_.is_object() ? Status::Ok() : Wrong(path_, "an object", j_); }

  std::string Sub(std::string_view key) const {
    return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
  }

  template <typename T>
  Status Get(const char* key, T* out, bool required = false) {
    taken_.insert(key);
    auto it = j_.find(key);
    if (it == j_.end()) {
      if (required) return Status::Invalid(Sub(key) + ": missing");
      SetAbsent(out);
      return Status::Ok();
    }
    return Decode(*it, Sub(key), out);
  }

  // A key read elsewhere (a device's "telemetry": gpu_telemetry.h), accepted here.
  void Take(const char* key) { taken_.insert(key); }

  Status Finish() const {
    for (const auto& [key, value] : j_.items()) {
      if (!taken_.count(key)) return Status::Invalid(Sub(key) + ": unknown key");
    }
    return Status::Ok();
  }

 private:
  const json& j_;
  std::string path_;
  std::set<std::string, std::less<>> taken_;
};

Status Decode(const json& j, const std::string& path, FabricInfo* out) {
  ObjectReader o(j, path);
  YS_RETURN_IF_ERROR(o.Expect());
  YS_RETURN_IF_ERROR(o.Get("state", &out->state, true));
  YS_RETURN_IF_ERROR(o.Get("status", &out->status));
  YS_RETURN_IF_ERROR(o.Get("cluster_uuid", &out->cluster_uuid));
  YS_RETURN_IF_ERROR(o.Get("clique_id", &out->clique_id));
  return o.Finish();
}

Status Decode(const json& j, const std::string& path, GpuProcess* out) {
  ObjectReader o(j, path);
  YS_RETURN_IF_ERROR(o.Expect());
  YS_RETURN_IF_ERROR(o.Get("pid", &out->pid, true));
  YS_RETURN_IF_ERROR(o.Get("used_memory_bytes", &out->used_memory_bytes));
  return o.Finish();
}

Status Decode(const json& j, const std::string& path, std::pair<int, int>* out) {
  if (!j.is_array() || j.size() != 2) {
    return Wrong(path, "an array of two integers [gpu index, nvmlGpuTopologyLevel_t]", j);
  }
  YS_RETURN_IF_ERROR(Decode(j[0], path + "[0]", &out->first));
  return Decode(j[1], path + "[1]", &out->second);
}

Status Decode(const json& j, const std::string& path, NvLinkState* out) {
  ObjectReader o(j, path);
  YS_RETURN_IF_ERROR(o.Expect());
  YS_RETURN_IF_ERROR(o.Get("link", &out->link, true));
  Status st;
  ForEachLinkField(*out, [&](const char* key, auto& f) {
    if (st.ok()) st = o.Get(key, &f);
  });
  YS_RETURN_IF_ERROR(st);
  return o.Finish();
}

Status Decode(const json& j, const std::string& path, GpuDevice* out) {
  ObjectReader o(j, path);
  YS_RETURN_IF_ERROR(o.Expect());
  YS_RETURN_IF_ERROR(o.Get("index", &out->index, true));
  if (out->index < 0) return Status::Invalid(o.Sub("index") + ": expected a non-negative integer");
  YS_RETURN_IF_ERROR(o.Get("uuid", &out->uuid, true));
  YS_RETURN_IF_ERROR(o.Get("name", &out->name, true));
  YS_RETURN_IF_ERROR(o.Get("serial", &out->serial));
  YS_RETURN_IF_ERROR(o.Get("pci_bus_id", &out->pci_bus_id, true));
  YS_RETURN_IF_ERROR(o.Get("pci_device_id", &out->pci_device_id));
  Status st;
  ForEachDeviceField(*out, [&](const char* key, auto& f) {
    if (st.ok()) st = o.Get(key, &f);
  });
  YS_RETURN_IF_ERROR(st);
  YS_RETURN_IF_ERROR(o.Get("nvlinks", &out->nvlinks));
  YS_RETURN_IF_ERROR(o.Get("topology_to_gpus", &out->topology_to_gpus));
  o.Take("telemetry");
  return o.Finish();
}

Status Decode(const json& j, const std::string& path, DeviceTelemetry* out) {
  ObjectReader o(j, path);
  YS_RETURN_IF_ERROR(o.Expect());
  Status st;
  ForEachTelemetryField(*out, [&](const char* key, auto& f) {
    if (st.ok()) st = o.Get(key, &f);
  });
  YS_RETURN_IF_ERROR(st);
  return o.Finish();
}

template <typename T>
Status Decode(const json& j, const std::string& path, std::vector<T>* out) {
  if (!j.is_array()) return Wrong(path, "an array", j);
  out->clear();
  for (size_t i = 0; i < j.size(); ++i) {
    T v{};
    YS_RETURN_IF_ERROR(Decode(j[i], path + "[" + std::to_string(i) + "]", &v));
    out->push_back(std::move(v));
  }
  return Status::Ok();
}

template <typename T>
Status Decode(const json& j, const std::string& path, Field<T>* out) {
  constexpr std::string_view kShape = R"({"value": ...} or {"error": "why"})";
  if (!j.is_object()) return Wrong(path, kShape, j);
  for (const auto& [key, value] : j.items()) {
    if (key != "value" && key != "error") {
      return Status::Invalid(path + "." + key + ": unknown key (a field is " + std::string(kShape) +
                             ")");
    }
  }
  bool has_value = j.contains("value");
  if (has_value == j.contains("error")) {
    return Status::Invalid(path + ": expected exactly one of \"value\" and \"error\"");
  }
  if (has_value) {
    T v{};
    YS_RETURN_IF_ERROR(Decode(j["value"], path + ".value", &v));
    *out = Field<T>::Of(std::move(v));
    return Status::Ok();
  }
  std::string why;
  YS_RETURN_IF_ERROR(Decode(j["error"], path + ".error", &why));
  if (why.empty()) return Status::Invalid(path + ".error: must say why there is no value");
  *out = Field<T>::Missing(std::move(why));
  return Status::Ok();
}

}  // namespace

nlohmann::ordered_json ToJson(const GpuSnapshot& s) {
  ojson j;
  j["source"] = s.source;
  j["captured_at"] = s.captured_at;
  j["driver_version"] = Encode(s.driver_version);
  j["cuda_driver_version"] = Encode(s.cuda_driver_version);
  j["nvml_version"] = Encode(s.nvml_version);
  j["devices"] = Encode(s.devices);
  return j;
}

std::string GpuSnapshotToJsonText(const GpuSnapshot& s) {
  return ToJson(s).dump(2, ' ', false, ojson::error_handler_t::replace) + "\n";
}

Result<GpuSnapshot> GpuSnapshotFromJson(const nlohmann::json& j) {
  GpuSnapshot s;
  ObjectReader o(j, "");
  if (!j.is_object()) return Wrong("(top level)", "an object", j);
  YS_RETURN_IF_ERROR(o.Get("source", &s.source));
  YS_RETURN_IF_ERROR(o.Get("captured_at", &s.captured_at));
  YS_RETURN_IF_ERROR(o.Get("driver_version", &s.driver_version));
  YS_RETURN_IF_ERROR(o.Get("cuda_driver_version", &s.cuda_driver_version));
  YS_RETURN_IF_ERROR(o.Get("nvml_version", &s.nvml_version));
  YS_RETURN_IF_ERROR(o.Get("devices", &s.devices, true));
  YS_RETURN_IF_ERROR(o.Finish());
  std::set<int> seen;
  for (size_t i = 0; i < s.devices.size(); ++i) {
    if (!seen.insert(s.devices[i].index).second) {
      return Status::Invalid("devices[" + std::to_string(i) +
                             "].index: " + std::to_string(s.devices[i].index) + " appears twice");
    }
  }
  return s;
}

namespace {

Result<json> ParseStateText(std::string_view text, const std::string& where) {
  return ParseJsonDocument(text, where, kMaxSnapshotJsonDepth);
}

Result<std::string> ReadStateFile(const std::string& path) {
  return ReadDocumentFile(path, kMaxSnapshotFileBytes, "an NVML state file");
}

}  // namespace

Result<GpuSnapshot> ParseGpuSnapshot(std::string_view text, std::string_view origin) {
  std::string where(origin);
  auto parsed = ParseStateText(text, where);
  if (!parsed.ok()) return parsed.status();
  const json& j = *parsed;
  auto s = GpuSnapshotFromJson(j);
  if (!s.ok()) return Status::Invalid(where + ": " + s.status().message());
  s->source = "recorded: " + where;
  return s;
}

Result<GpuSnapshot> LoadGpuSnapshot(const std::string& path) {
  auto text = ReadStateFile(path);
  if (!text.ok()) return text.status();
  return ParseGpuSnapshot(*text, path);
}

Result<GpuTelemetry> GpuTelemetryFromJson(const json& j) {
  if (!j.is_object()) return Wrong("(top level)", "an object", j);
  auto devices = j.find("devices");
  if (devices == j.end() || !devices->is_array()) {
    return Status::Invalid("devices: expected an array");
  }
  GpuTelemetry t;
  for (size_t i = 0; i < devices->size(); ++i) {
    const json& d = (*devices)[i];
    std::string path = "devices[" + std::to_string(i) + "]";
    DeviceTelemetry dt;
    if (!d.is_object()) return Wrong(path, "an object", d);
    if (auto idx = d.find("index"); idx != d.end()) {
      YS_RETURN_IF_ERROR(Decode(*idx, path + ".index", &dt.index));
    }
    auto tel = d.find("telemetry");
    if (tel == d.end()) {
      ForEachTelemetryField(dt, [](const char*, auto& f) { SetAbsent(&f); });
    } else {
      YS_RETURN_IF_ERROR(Decode(*tel, path + ".telemetry", &dt));
    }
    t.devices.push_back(std::move(dt));
  }
  return t;
}

Result<GpuTelemetry> LoadGpuTelemetry(const std::string& path) {
  auto text = ReadStateFile(path);
  if (!text.ok()) return text.status();
  auto parsed = ParseStateText(*text, path);
  if (!parsed.ok()) return parsed.status();
  auto t = GpuTelemetryFromJson(*parsed);
  if (!t.ok()) return Status::Invalid(path + ": " + t.status().message());
  return t;
}

}  // namespace ys::gpu
