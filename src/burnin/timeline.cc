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

#include "core/json_fields.h"
#include "core/json_fields_values.h"
#include "core/run_document_json.h"
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
  bool has_gpu = false, has_set = false, has_kmsg = false;
};

struct Plant {
  double at_s = 0;
  std::string entity;
  std::string fault;    // "bit_flip" or "slowdown"
  double drop_pct = 0;  // slowdown: the share of its rate the entity loses from at_s on
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

// The timeline's layout, read by field lists: every key named, messages as
// "steps[0].at_s: expected a time >= 0" (the file's path put before them).
using json_fields::Path;
using json_fields::Style;
constexpr Style kTimelineStyle{.reject_unknown_keys = true};
// A plant's fields say what they expect also when absent ("plant[0].entity: expected ...").
constexpr Style JsonStyle(const Plant*) {
  return {.reject_unknown_keys = true, .absent_reads_as_null = true};
}

struct TimeAt {  // seconds from the start, a number >= 0
  double& t;
};
struct NonEmptyObject {  // a step's "set": key -> plain value, checked when applied
  nlohmann::json& set;
};
struct EntityName {  // "cpu1", "gpu2"
  std::string& name;
};
struct FaultName {  // the faults a timeline can plant: bit_flip, slowdown
  std::string& name;
};
struct TimelineDocument {
  std::string base;
  std::vector<Step> steps;
  std::vector<Plant> plant;
};

template <typename R>
Status JsonRead(R*, const nlohmann::json& j, const Path& at, Style s, TimeAt& x) {
  if (j.is_null()) return json_fields::Missing(at, s);  // absent from a plant, or null
  if (!j.is_number()) return json_fields::Expected(at, "a number", &j, s);
  x.t = j.get<double>();
  if (!std::isfinite(x.t) || x.t < 0) return json_fields::Expected(at, "a time >= 0", nullptr, s);
  return Status::Ok();
}
template <typename R>
Status JsonRead(R*, const nlohmann::json& j, const Path& at, Style s, NonEmptyObject& x) {
  if (!j.is_object() || j.empty())
    return json_fields::Expected(at, "a non-empty object", nullptr, s);
  x.set = j;
  return Status::Ok();
}
template <typename R>
Status JsonRead(R*, const nlohmann::json& j, const Path& at, Style s, EntityName& x) {
  if (!j.is_string() || j.get_ref<const std::string&>().empty()) {
    return json_fields::Expected(at, "an entity name (\"cpu1\", \"gpu2\")", nullptr, s);
  }
  x.name = j.get<std::string>();
  return Status::Ok();
}
template <typename R>
Status JsonRead(R*, const nlohmann::json& j, const Path& at, Style s, FaultName& x) {
  if (!j.is_string()) return json_fields::Expected(at, "a string", nullptr, s);
  x.name = j.get<std::string>();
  if (x.name != "bit_flip" && x.name != "slowdown") {
    return Status::Invalid(at.ToString() + ": unknown fault \"" + x.name +
                           "\" (expected bit_flip or slowdown)");
  }
  return Status::Ok();
}

// A step is a kernel-log line ("kmsg") or values set on a GPU ("gpu" with "set").
template <typename V>
void Fields(V& v, Step& step) {
  v("at_s", TimeAt{step.at_s});
  v.optional("kmsg", step.kmsg, step.has_kmsg);
  v.optional("gpu", step.gpu, step.has_gpu);
  v.optional("set", NonEmptyObject{step.set}, step.has_set);
  if (step.has_kmsg) {
    v.check("", step.has_gpu || step.has_set
                    ? Status::Invalid("a step has either \"kmsg\" or \"gpu\" with \"set\"")
                    : Status::Ok());
  } else {
    v.check("gpu", step.has_gpu ? Status::Ok() : Status::Invalid("missing (or \"kmsg\")"));
    v.check("set", step.has_set ? Status::Ok() : Status::Invalid("missing"));
  }
}

template <typename V>
void Fields(V& v, Plant& p) {
  v("at_s", TimeAt{p.at_s});
  v("entity", EntityName{p.entity});
  v("fault", FaultName{p.fault});
  v.defaulted("drop_pct", p.drop_pct);
  if (p.fault == "slowdown") {
    v.check("drop_pct", p.drop_pct > 0 && p.drop_pct < 100
                            ? Status::Ok()
                            : Status::Invalid("expected 0 < drop_pct < 100"));
  } else {
    v.check("drop_pct",
            p.drop_pct == 0 ? Status::Ok() : Status::Invalid("only a slowdown has a drop_pct"));
  }
}

template <typename V>
void Fields(V& v, TimelineDocument& d) {
  v("kind", json_fields::Exactly<std::string>{kTimelineKind});
  v("base", d.base);
  v.defaulted("steps", d.steps);
  v.defaulted("plant", d.plant);
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
    auto d = json_fields::Parse<TimelineDocument>(j, "", kTimelineStyle);
    if (!d.ok()) return Status::Invalid(path + ": " + d.status().message());
    std::filesystem::path base_path(d->base);
    if (base_path.is_relative()) base_path = std::filesystem::path(path).parent_path() / base_path;
    auto base = ReadBounded(base_path.string());
    if (!base.ok())
      return Status(base.status().code(), path + ": base: " + base.status().message());
    impl->base = std::move(*base);
    impl->steps = std::move(d->steps);
    impl->plants = std::move(d->plant);
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

double Timeline::RateKept(const std::string& entity, double at_s) const {
  double kept = 1;
  if (!impl_) return kept;
  for (const auto& p : impl_->plants) {
    if (p.entity == entity && p.fault == "slowdown" && p.at_s <= at_s) kept *= 1 - p.drop_pct / 100;
  }
  return kept;
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
    if (p.fault == "slowdown") {
      out.push_back(fmt::format("from {:g} s: {:g}% slowdown of {}", p.at_s, p.drop_pct, p.entity));
    } else {
      out.push_back(fmt::format("at {:g} s: bit flip on {}", p.at_s, p.entity));
    }
  }
  return out;
}

}  // namespace ys::burnin
