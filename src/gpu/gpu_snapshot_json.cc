#include "gpu/gpu_snapshot_json.h"

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/document_schemas.h"
#include "core/json_document.h"
#include "core/json_fields.h"
#include "core/json_schema.h"
#include "gpu/gpu_snapshot_fields.h"
#include "gpu/gpu_telemetry.h"

namespace ys::gpu {

using json = nlohmann::json;
using json_fields::Path;

namespace {

constexpr const char* kNotRecorded = "not recorded";
constexpr std::string_view kFieldShape = R"({"value": ...} or {"error": "why"})";

// The layout's conventions (gpu_snapshot_json.h): "expected a boolean, got a string".
constexpr json_fields::Style kNvmlStyle{.reject_unknown_keys = true, .say_got = true};

}  // namespace

// ---- A Field: {"value": X} or {"error": "why there is none"}; absent, "not recorded" ----

template <typename W, typename T>
typename W::ojson JsonWrite(W*, const Field<T>& f, json_fields::Style s) {
  typename W::ojson j = W::ojson::object();
  if (f.has()) {
    j["value"] = W::Value(*f, s);
  } else {
    j["error"] = f.error.empty() ? std::string(kNotRecorded) : f.error;
  }
  return j;
}

template <typename S, typename T>
typename S::ojson JsonSchema(S& schema, const Field<T>&) {
  using ojson = typename S::ojson;
  ojson value = {
      {"type", "object"},
      {"properties", {{"value", schema.Value(json_fields::SampleOf<T>(), schema.style())}}},
      {"required", {"value"}},
      {"additionalProperties", false}};
  ojson error = {{"type", "object"},
                 {"properties", {{"error", {{"type", "string"}, {"minLength", 1}}}}},
                 {"required", {"error"}},
                 {"additionalProperties", false}};
  return {{"oneOf", {value, error}}};
}

template <typename R, typename T>
Status JsonRead(R*, const typename R::json& j, const Path& at, json_fields::Style s,
                Field<T>& out) {
  if (!j.is_object()) return json_fields::Expected(at, kFieldShape, &j, s);
  for (const auto& [key, value] : j.items()) {
    if (key != "value" && key != "error") {
      return Status::Invalid(Path{&at, key}.ToString() + ": unknown key (a field is " +
                             std::string(kFieldShape) + ")");
    }
  }
  auto value = j.find("value");
  auto error = j.find("error");
  if ((value == j.end()) == (error == j.end())) {
    return Status::Invalid(at.ToString() + ": expected exactly one of \"value\" and \"error\"");
  }
  if (value != j.end()) {
    T v{};
    YS_RETURN_IF_ERROR(R::Read(*value, Path{&at, "value"}, s, v));
    out = Field<T>::Of(std::move(v));
    return Status::Ok();
  }
  std::string why;
  Path error_at{&at, "error"};
  YS_RETURN_IF_ERROR(R::Read(*error, error_at, s, why));
  if (why.empty()) return Status::Invalid(error_at.ToString() + ": must say why there is no value");
  out = Field<T>::Missing(std::move(why));
  return Status::Ok();
}

template <typename T>
void JsonAbsent(Field<T>& f) {
  f = Field<T>::Missing(kNotRecorded);
}

namespace {

// ---- A device's "topology_to_gpus": [[gpu index, nvmlGpuTopologyLevel_t], ...] ----

struct TopologyLevels {
  std::vector<std::pair<int, int>>& levels;
};

template <typename W>
typename W::ojson JsonWrite(W*, const TopologyLevels& t, json_fields::Style) {
  typename W::ojson j = W::ojson::array();
  for (const auto& [gpu, level] : t.levels) j.push_back(W::ojson::array({gpu, level}));
  return j;
}

template <typename S>
typename S::ojson JsonSchema(S&, const TopologyLevels&) {
  typename S::ojson integer = {{"type", "integer"}};
  return {
      {"type", "array"},
      {"items",
       {{"type", "array"}, {"prefixItems", {integer, integer}}, {"minItems", 2}, {"maxItems", 2}}}};
}

template <typename R>
Status JsonRead(R*, const typename R::json& j, const Path& at, json_fields::Style s,
                TopologyLevels& out) {
  if (!j.is_array()) return json_fields::Expected(at, "an array", &j, s);
  out.levels.clear();
  for (size_t i = 0; i < j.size(); ++i) {
    Path pair_at{&at, {}, static_cast<long>(i)};
    const auto& e = j[i];
    if (!e.is_array() || e.size() != 2) {
      return json_fields::Expected(
          pair_at, "an array of two integers [gpu index, nvmlGpuTopologyLevel_t]", &e, s);
    }
    std::pair<int, int> p;
    YS_RETURN_IF_ERROR(R::Read(e[0], Path{&pair_at, {}, 0}, s, p.first));
    YS_RETURN_IF_ERROR(R::Read(e[1], Path{&pair_at, {}, 1}, s, p.second));
    out.levels.push_back(p);
  }
  return Status::Ok();
}

}  // namespace

// ---- The field lists of nvml.json ----

constexpr json_fields::Style JsonStyle(const GpuSnapshot*) { return kNvmlStyle; }

template <typename V>
void Fields(V& v, FabricInfo& f) {
  v("state", f.state);
  v.defaulted("status", f.status);
  v.defaulted("cluster_uuid", f.cluster_uuid);
  v.defaulted("clique_id", f.clique_id);
}

template <typename V>
void Fields(V& v, GpuProcess& p) {
  v("pid", p.pid);
  v.defaulted("used_memory_bytes", p.used_memory_bytes);
}

template <typename V>
void Fields(V& v, NvLinkState& l) {
  v("link", l.link);
  ForEachLinkField(l, [&](const char* key, auto& f) { v.defaulted(key, f); });
}

template <typename V>
void Fields(V& v, GpuDevice& d) {
  v("index", d.index);
  v.check("index", d.index >= 0, "a non-negative integer");
  v("uuid", d.uuid);
  v("name", d.name);
  v.defaulted("serial", d.serial);
  v("pci_bus_id", d.pci_bus_id);
  v.defaulted("pci_device_id", d.pci_device_id);
  ForEachDeviceField(d, [&](const char* key, auto& f) { v.defaulted(key, f); });
  v.defaulted("nvlinks", d.nvlinks);
  v.defaulted("topology_to_gpus", TopologyLevels{d.topology_to_gpus});
  v.ignored("telemetry");  // GpuTelemetryFromJson's
}

template <typename V>
void Fields(V& v, GpuSnapshot& s) {
  v.defaulted("source", s.source);
  v.defaulted("captured_at", s.captured_at);
  v.defaulted("driver_version", s.driver_version);
  v.defaulted("cuda_driver_version", s.cuda_driver_version);
  v.defaulted("nvml_version", s.nvml_version);
  v("devices", s.devices);
}

namespace {

// ---- The telemetry view of the same document: each device's index and "telemetry" object,
// every other key left to GpuSnapshotFromJson ----

// A device's "telemetry" object, strict; absent, every reading "not recorded".
struct TelemetryReadings {
  DeviceTelemetry& t;
};
constexpr json_fields::Style JsonStyle(const TelemetryReadings*) { return kNvmlStyle; }
template <typename V>
void Fields(V& v, TelemetryReadings& r) {
  ForEachTelemetryField(r.t, [&](const char* key, auto& f) { v.defaulted(key, f); });
}
void JsonAbsent(TelemetryReadings& r) {
  ForEachTelemetryField(r.t, [](const char*, auto& f) { JsonAbsent(f); });
}

struct TelemetryDevice {
  DeviceTelemetry t;
};
template <typename V>
void Fields(V& v, TelemetryDevice& d) {
  v.defaulted("index", d.t.index);  // beside "telemetry", not in it
  v.defaulted("telemetry", TelemetryReadings{d.t});
}

struct TelemetryDocument {
  std::vector<TelemetryDevice> devices;
};
constexpr json_fields::Style JsonStyle(const TelemetryDocument*) {
  return {.reject_unknown_keys = false, .say_got = true};
}
template <typename V>
void Fields(V& v, TelemetryDocument& d) {
  v("devices", d.devices);
}

}  // namespace

YS_DOCUMENT_SCHEMA("nvml", GpuSnapshot, "yardstick nvml.json (capture, --nvml-state)",
                   "The GPUs' state as NVML gave it: the driver, each device's identity, "
                   "clocks, memory, ECC, NVLinks, processes and topology; a field is "
                   "{\"value\": ...} or {\"error\": why there is none}.");

nlohmann::ordered_json ToJson(const GpuSnapshot& s) { return json_fields::Write(s); }

std::string GpuSnapshotToJsonText(const GpuSnapshot& s) {
  return ToJson(s).dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

namespace {

// The document is an object; messages about its root say "(top level)".
Status ExpectObject(const json& j) {
  if (j.is_object()) return Status::Ok();
  return json_fields::Expected(Path{nullptr, "(top level)"}, "an object", &j, kNvmlStyle);
}

}  // namespace

Result<GpuSnapshot> GpuSnapshotFromJson(const nlohmann::json& j) {
  YS_RETURN_IF_ERROR(ExpectObject(j));
  auto s = json_fields::Parse<GpuSnapshot>(j, "");
  if (!s.ok()) return s.status();
  std::set<int> seen;
  for (size_t i = 0; i < s->devices.size(); ++i) {
    if (!seen.insert(s->devices[i].index).second) {
      return Status::Invalid("devices[" + std::to_string(i) +
                             "].index: " + std::to_string(s->devices[i].index) + " appears twice");
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
  YS_RETURN_IF_ERROR(ExpectObject(j));
  auto doc = json_fields::Parse<TelemetryDocument>(j, "");
  if (!doc.ok()) return doc.status();
  GpuTelemetry t;
  for (TelemetryDevice& d : doc->devices) t.devices.push_back(std::move(d.t));
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
