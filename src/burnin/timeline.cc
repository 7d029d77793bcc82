// The recorded NVML timeline. The base state is kept as parsed JSON; a state at a time is the base
// with the steps' "set" values written into the device objects as recorded Fields ({"value": v}),
// then read by the recorded-state reader (gpu_snapshot_json.h), so the state format has one
// reader. Every step is applied once at load time, so a wrong type or key is an error then, not
// in the middle of a burn-in.
#include "burnin/timeline.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "core/report_json.h"
#include "gpu/gpu_snapshot_fields.h"
#include "gpu/gpu_snapshot_json.h"

namespace ys::burnin {

namespace {

constexpr const char* kTimelineKind = "yardstick-nvml-timeline";

struct Step {
  double at_s = 0;
  int gpu = -1;        // with `set`
  nlohmann::json set;  // key -> plain value
  std::string kmsg;    // or a kernel-log line
};

struct Plant {
  double at_s = 0;
  std::string entity;
  std::string fault;  // "bit_flip"
};

// The Field keys of a device in the recorded format (gpu_snapshot_fields.h).
const std::set<std::string>& DeviceFieldKeys() {
  static const std::set<std::string> kKeys = [] {
    std::set<std::string> keys;
    gpu::GpuDevice d;
    gpu::ForEachDeviceField(d, [&](const char* key, auto&) { keys.insert(key); });
    return keys;
  }();
  return kKeys;
}

const std::set<std::string>& LinkFieldKeys() {
  static const std::set<std::string> kKeys = [] {
    std::set<std::string> keys;
    gpu::NvLinkState l;
    gpu::ForEachLinkField(l, [&](const char* key, auto&) { keys.insert(key); });
    return keys;
  }();
  return kKeys;
}

Result<double> GetTime(const nlohmann::json& j, const std::string& where) {
  auto it = j.find("at_s");
  if (it == j.end()) return Status::Invalid(where + ".at_s: missing");
  if (!it->is_number()) {
    return Status::Invalid(where + ".at_s: expected a number, got " + it->type_name());
  }
  double t = it->get<double>();
  if (!std::isfinite(t) || t < 0) return Status::Invalid(where + ".at_s: expected a time >= 0");
  return t;
}

Status CheckKeys(const nlohmann::json& j, const std::set<std::string>& allowed,
                 const std::string& where) {
  for (const auto& [key, value] : j.items()) {
    if (!allowed.contains(key)) return Status::Invalid(where + "." + key + ": unknown key");
  }
  return Status::Ok();
}

// The device object of GPU `index` in a state document, or nullptr.
nlohmann::json* FindDevice(nlohmann::json& state, int index) {
  for (auto& d : state["devices"]) {
    if (d.is_object() && d.contains("index") && d["index"].is_number_integer() &&
        d["index"].get<int>() == index) {
      return &d;
    }
  }
  return nullptr;
}

// "nvlinks[7].active" -> (7, "active"); nullopt for any other key.
std::optional<std::pair<int, std::string>> LinkKey(const std::string& key) {
  constexpr std::string_view kPrefix = "nvlinks[";
  if (key.rfind(kPrefix, 0) != 0) return std::nullopt;
  size_t close = key.find("].", kPrefix.size());
  if (close == std::string::npos || close == kPrefix.size()) return std::nullopt;
  int link = 0;
  for (size_t i = kPrefix.size(); i < close; ++i) {
    if (key[i] < '0' || key[i] > '9' || link > 100000) return std::nullopt;
    link = link * 10 + (key[i] - '0');
  }
  return std::make_pair(link, key.substr(close + 2));
}

// Writes one step's values into `state` as recorded Fields. Errors name the step's key.
Status ApplyStep(const Step& step, nlohmann::json& state, const std::string& where) {
  nlohmann::json* device = FindDevice(state, step.gpu);
  if (device == nullptr) {
    return Status::Invalid(where + ".gpu: GPU " + std::to_string(step.gpu) +
                           " is not in the base state");
  }
  for (const auto& [key, value] : step.set.items()) {
    if (value.is_object() || value.is_array() || value.is_null()) {
      return Status::Invalid(where + ".set." + key + ": expected a plain value, got " +
                             value.type_name());
    }
    if (DeviceFieldKeys().contains(key)) {
      (*device)[key] = {{"value", value}};
      continue;
    }
    auto link = LinkKey(key);
    if (!link || !LinkFieldKeys().contains(link->second)) {
      return Status::Invalid(where + ".set." + key + ": unknown field (a device Field key of " +
                             "the recorded state, or nvlinks[N].<link field>)");
    }
    bool found = false;
    for (auto& l : (*device)["nvlinks"]) {
      if (l.is_object() && l.value("link", -1) == link->first) {
        l[link->second] = {{"value", value}};
        found = true;
      }
    }
    if (!found) {
      return Status::Invalid(where + ".set." + key + ": GPU " + std::to_string(step.gpu) +
                             " has no NVLink " + std::to_string(link->first) + " in the base");
    }
  }
  return Status::Ok();
}

Result<Step> ParseStep(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) return Status::Invalid(where + ": expected an object, got " + j.type_name());
  YS_RETURN_IF_ERROR(CheckKeys(j, {"at_s", "gpu", "set", "kmsg"}, where));
  Step step;
  auto t = GetTime(j, where);
  if (!t.ok()) return t.status();
  step.at_s = *t;
  if (j.contains("kmsg")) {
    if (j.contains("gpu") || j.contains("set")) {
      return Status::Invalid(where + ": a step has either \"kmsg\" or \"gpu\" with \"set\"");
    }
    if (!j["kmsg"].is_string()) {
      return Status::Invalid(where + ".kmsg: expected a string, got " + j["kmsg"].type_name());
    }
    step.kmsg = j["kmsg"].get<std::string>();
    return step;
  }
  if (!j.contains("gpu")) return Status::Invalid(where + ".gpu: missing (or \"kmsg\")");
  if (!j["gpu"].is_number_integer()) {
    return Status::Invalid(where + ".gpu: expected an integer, got " + j["gpu"].type_name());
  }
  step.gpu = j["gpu"].get<int>();
  if (!j.contains("set")) return Status::Invalid(where + ".set: missing");
  if (!j["set"].is_object() || j["set"].empty()) {
    return Status::Invalid(where + ".set: expected a non-empty object");
  }
  step.set = j["set"];
  return step;
}

Result<Plant> ParsePlant(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) return Status::Invalid(where + ": expected an object, got " + j.type_name());
  YS_RETURN_IF_ERROR(CheckKeys(j, {"at_s", "entity", "fault"}, where));
  Plant p;
  auto t = GetTime(j, where);
  if (!t.ok()) return t.status();
  p.at_s = *t;
  if (!j.contains("entity") || !j["entity"].is_string() || j["entity"].get<std::string>().empty()) {
    return Status::Invalid(where + ".entity: expected an entity name (\"cpu1\", \"gpu2\")");
  }
  p.entity = j["entity"].get<std::string>();
  if (!j.contains("fault") || !j["fault"].is_string()) {
    return Status::Invalid(where + ".fault: expected a string");
  }
  p.fault = j["fault"].get<std::string>();
  if (p.fault != "bit_flip") {
    return Status::Invalid(where + ".fault: unknown fault \"" + p.fault + "\" (expected bit_flip)");
  }
  return p;
}

Result<nlohmann::json> ReadBounded(const std::string& path) {
  auto text = ReadDocumentFile(path, gpu::kMaxSnapshotFileBytes, "a recorded GPU timeline");
  if (!text.ok()) return text.status();
  return ParseJsonDocument(*text, path);
}

std::string PlainValue(const nlohmann::json& v) {
  return v.is_string() ? v.get<std::string>() : JsonForMessage(v);
}

}  // namespace

struct Timeline::Impl {
  nlohmann::json base;  // the recorded state document
  std::vector<Step> steps;
  std::vector<Plant> plants;
};

Result<Timeline> Timeline::Load(const std::string& path) {
  auto doc = ReadBounded(path);
  if (!doc.ok()) return doc.status();
  auto impl = std::make_shared<Impl>();
  const nlohmann::json& j = *doc;
  if (!j.is_object()) return Status::Invalid(path + ": expected a JSON object");
  if (!j.contains("kind")) {
    // A plain recorded state: a timeline with no steps.
    impl->base = j;
  } else {
    for (const auto& [key, value] : j.items()) {
      if (key != "kind" && key != "base" && key != "steps" && key != "plant") {
        return Status::Invalid(path + ": " + key + ": unknown key");
      }
    }
    if (!j["kind"].is_string() || j["kind"].get<std::string>() != kTimelineKind) {
      return Status::Invalid(path + ": kind: expected \"" + std::string(kTimelineKind) + "\"");
    }
    if (!j.contains("base") || !j["base"].is_string()) {
      return Status::Invalid(path + ": base: expected the file name of a recorded NVML state");
    }
    std::filesystem::path base_path(j["base"].get<std::string>());
    if (base_path.is_relative()) base_path = std::filesystem::path(path).parent_path() / base_path;
    auto base = ReadBounded(base_path.string());
    if (!base.ok())
      return Status(base.status().code(), path + ": base: " + base.status().message());
    impl->base = std::move(*base);
    if (j.contains("steps")) {
      if (!j["steps"].is_array()) return Status::Invalid(path + ": steps: expected an array");
      for (size_t i = 0; i < j["steps"].size(); ++i) {
        auto s = ParseStep(j["steps"][i], "steps[" + std::to_string(i) + "]");
        if (!s.ok()) return Status::Invalid(path + ": " + s.status().message());
        impl->steps.push_back(std::move(*s));
      }
    }
    if (j.contains("plant")) {
      if (!j["plant"].is_array()) return Status::Invalid(path + ": plant: expected an array");
      for (size_t i = 0; i < j["plant"].size(); ++i) {
        auto p = ParsePlant(j["plant"][i], "plant[" + std::to_string(i) + "]");
        if (!p.ok()) return Status::Invalid(path + ": " + p.status().message());
        impl->plants.push_back(std::move(*p));
      }
    }
  }
  // The base must read, and so must the state after each step (in file order).
  auto first = gpu::GpuSnapshotFromJson(impl->base);
  if (!first.ok()) return Status::Invalid(path + ": base state: " + first.status().message());
  nlohmann::json state = impl->base;
  for (size_t i = 0; i < impl->steps.size(); ++i) {
    const Step& step = impl->steps[i];
    if (step.gpu < 0) continue;
    std::string where = "steps[" + std::to_string(i) + "]";
    Status s = ApplyStep(step, state, where);
    if (!s.ok()) return Status::Invalid(path + ": " + s.message());
    auto parsed = gpu::GpuSnapshotFromJson(state);
    if (!parsed.ok()) {
      return Status::Invalid(path + ": " + where + ".set: " + parsed.status().message());
    }
  }
  Timeline t;
  t.path_ = path;
  t.impl_ = std::move(impl);
  return t;
}

Result<gpu::GpuSnapshot> Timeline::StateAt(double at_s) const {
  if (!impl_) return Status::Internal("timeline not loaded");
  nlohmann::json state = impl_->base;
  for (size_t i = 0; i < impl_->steps.size(); ++i) {
    const Step& step = impl_->steps[i];
    if (step.gpu < 0 || step.at_s > at_s) continue;
    YS_RETURN_IF_ERROR(ApplyStep(step, state, path_ + ": steps[" + std::to_string(i) + "]"));
  }
  auto snap = gpu::GpuSnapshotFromJson(state);
  if (!snap.ok()) return Status::Invalid(path_ + ": " + snap.status().message());
  snap->source = "recorded: " + path_;
  return snap;
}

std::vector<std::string> Timeline::KmsgBetween(double from_s, double to_s) const {
  std::vector<std::string> out;
  if (!impl_) return out;
  for (const auto& step : impl_->steps) {
    if (!step.kmsg.empty() && step.at_s > from_s && step.at_s <= to_s) out.push_back(step.kmsg);
  }
  return out;
}

bool Timeline::FlipPlanted(const std::string& entity, double from_s, double to_s) const {
  if (!impl_) return false;
  for (const auto& p : impl_->plants) {
    if (p.entity == entity && p.fault == "bit_flip" && p.at_s >= from_s && p.at_s < to_s) {
      return true;
    }
  }
  return false;
}

std::vector<std::string> Timeline::Describe() const {
  std::vector<std::string> out;
  if (!impl_) return out;
  for (const auto& step : impl_->steps) {
    if (!step.kmsg.empty()) {
      out.push_back(fmt::format("at {:g} s: kernel log: {}", step.at_s, step.kmsg));
      continue;
    }
    std::string sets;
    for (const auto& [key, value] : step.set.items()) {
      sets += (sets.empty() ? "" : ", ") + key + " = " + PlainValue(value);
    }
    out.push_back(fmt::format("at {:g} s: gpu{} {}", step.at_s, step.gpu, sets));
  }
  for (const auto& p : impl_->plants) {
    out.push_back(fmt::format("at {:g} s: bit flip on {}", p.at_s, p.entity));
  }
  return out;
}

}  // namespace ys::burnin
