#include "bench/device_specs.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <sstream>

#include "core/document_file.h"
#include "core/text.h"
#include "core/toml_reader.h"

namespace ys::bench {
namespace {

// One key of one section: how to read it into the spec. `where` is "file: [section] key (line N)".
using Reader = std::function<Status(const toml::node&, const std::string& where, DeviceSpec&)>;

struct Key {
  const char* name;
  bool required;
  Reader read;
};

struct Section {
  const char* name;
  bool required;
  std::vector<Key> keys;
};

Reader Text(std::string DeviceSpec::*field) {
  return [field](const toml::node& n, const std::string& where, DeviceSpec& s) -> Status {
    auto v = ReadTomlString(n, where, /*allow_empty=*/false);
    if (!v.ok()) return v.status();
    s.*field = *v;
    return Status::Ok();
  };
}

Reader Positive(std::optional<double> DeviceSpec::*field, double lo, double hi) {
  return [field, lo, hi](const toml::node& n, const std::string& where, DeviceSpec& s) -> Status {
    auto v = ReadTomlNumber(n, where, lo, hi);
    if (!v.ok()) return v.status();
    s.*field = *v;
    return Status::Ok();
  };
}

Reader WholeNumber(std::optional<int> DeviceSpec::*field, int lo, int hi) {
  return [=](const toml::node& n, const std::string& where, DeviceSpec& s) -> Status {
    auto v = ReadTomlInt(n, where, lo, hi);
    if (!v.ok()) return v.status();
    s.*field = *v;
    return Status::Ok();
  };
}

Reader Tflops(const char* dtype) {
  return [dtype](const toml::node& n, const std::string& where, DeviceSpec& s) -> Status {
    auto v = ReadTomlNumber(n, where, kMinPeakTflops, kMaxPeakTflops);
    if (!v.ok()) return v.status();
    s.peak_dense_tflops[dtype] = *v;
    return Status::Ok();
  };
}

Status ReadNames(const toml::node& n, const std::string& where, DeviceSpec& s) {
  auto names = ReadTomlStrings(n, where, /*allow_empty_list=*/false);
  if (!names.ok()) return names.status();
  for (const std::string& v : *names) {
    if (Trim(v).empty())
      return Status::Invalid(where + ": expected a non-empty array of non-empty strings");
    s.cuda_names.emplace_back(Trim(v));
  }
  return Status::Ok();
}

const std::vector<Section>& Schema() {
  static const std::vector<Section> kSchema = {
      {"device",
       true,
       {{"chip", true, Text(&DeviceSpec::chip)},
        {"name", true, Text(&DeviceSpec::name)},
        {"cuda_names", false, ReadNames}}},
      {"peak_dense_tflops",
       true,
       {{"bf16", false, Tflops("bf16")},
        {"fp16", false, Tflops("fp16")},
        {"tf32", false, Tflops("tf32")},
        {"fp8", false, Tflops("fp8")},
        {"nvfp4", false, Tflops("nvfp4")},
        {"source", true, Text(&DeviceSpec::peak_source)}}},
      {"memory",
       false,
       {{"hbm_tb_per_s", false, Positive(&DeviceSpec::hbm_tb_per_s, kMinHbmTbPerS, kMaxHbmTbPerS)},
        {"capacity_gb", false,
         Positive(&DeviceSpec::hbm_capacity_gb, kMinHbmCapacityGb, kMaxHbmCapacityGb)},
        {"device_mib", false, Positive(&DeviceSpec::device_mib, 1024, 1e8)},
        {"source", true, Text(&DeviceSpec::hbm_source)}}},
      {"nvlink",
       false,
       {{"bidirectional_gb_per_s", true,
         Positive(&DeviceSpec::nvlink_bidirectional_gb_per_s, kMinLinkGbPerS, kMaxNvlinkGbPerS)},
        {"per_direction_gb_per_s", true,
         Positive(&DeviceSpec::nvlink_per_direction_gb_per_s, kMinLinkGbPerS, kMaxNvlinkGbPerS)},
        {"source", true, Text(&DeviceSpec::nvlink_source)}}},
      {"pcie",
       false,
       {{"generation", true, WholeNumber(&DeviceSpec::pcie_generation, 1, 9)},
        {"lanes", true, WholeNumber(&DeviceSpec::pcie_lanes, 1, 32)},
        {"per_direction_gb_per_s", true,
         Positive(&DeviceSpec::pcie_per_direction_gb_per_s, kMinLinkGbPerS, kMaxPcieGbPerS)},
        {"source", true, Text(&DeviceSpec::pcie_source)}}},
  };
  return kSchema;
}

std::string KnownKeys(const Section& section) {
  std::string out;
  for (const Key& k : section.keys) out += (out.empty() ? "" : ", ") + std::string(k.name);
  return out;
}

Status ReadSection(const Section& section, const toml::table& table, const std::string& path,
                   DeviceSpec& spec) {
  const std::string name = "[" + std::string(section.name) + "]";
  for (const auto& [k, node] : table) {
    auto key = std::find_if(section.keys.begin(), section.keys.end(),
                            [&k = k](const Key& c) { return k.str() == c.name; });
    std::string where = TomlWhere(path, name, k.str(), &node);
    if (key == section.keys.end()) {
      return Status::Invalid(where + ": unknown key (expected one of " + KnownKeys(section) + ")");
    }
    YS_RETURN_IF_ERROR(key->read(node, where, spec));
  }
  for (const Key& key : section.keys) {
    if (key.required && !table.contains(key.name)) {
      return Status::Invalid(TomlWhere(path, name, key.name, nullptr, &table) + ": missing");
    }
  }
  return Status::Ok();
}

std::string FormatNumber(double v) {
  std::ostringstream ss;
  ss << v;
  return ss.str();
}

}  // namespace

Result<DeviceSpec> ParseDeviceSpec(std::string_view text, const std::string& path) {
  auto parsed = ParseToml(text, path);
  if (!parsed.ok()) return parsed.status();
  const toml::table& doc = *parsed;
  DeviceSpec spec;
  spec.path = path;
  const auto& schema = Schema();
  for (const auto& [k, node] : doc) {
    auto section = std::find_if(schema.begin(), schema.end(),
                                [&k = k](const Section& s) { return k.str() == s.name; });
    if (section == schema.end()) {
      return Status::Invalid(
          TomlWhere(path, "[" + std::string(k.str()) + "]", "", &node) +
          ": unknown section (expected device, peak_dense_tflops, memory, nvlink, pcie)");
    }
    auto table = TomlSubTable(doc, path, k.str());
    if (!table.ok()) return table.status();
    YS_RETURN_IF_ERROR(ReadSection(*section, **table, path, spec));
  }
  for (const Section& s : schema) {
    if (s.required && !doc.contains(s.name))
      return Status::Invalid(path + ": missing [" + s.name + "]");
  }
  if (spec.peak_dense_tflops.empty()) {
    return Status::Invalid(
        path +
        ": [peak_dense_tflops]: no figure (expected at least one of bf16, fp16, tf32, fp8, nvfp4)");
  }
  if (doc.contains("memory") && !spec.hbm_tb_per_s && !spec.hbm_capacity_gb) {
    return Status::Invalid(path +
                           ": [memory]: no figure (expected hbm_tb_per_s, capacity_gb or both)");
  }
  if (spec.nvlink_bidirectional_gb_per_s &&
      *spec.nvlink_per_direction_gb_per_s > *spec.nvlink_bidirectional_gb_per_s) {
    return Status::Invalid(path +
                           ": [nvlink] per_direction_gb_per_s: larger than bidirectional_gb_per_s");
  }
  return spec;
}

Result<DeviceSpec> LoadDeviceSpec(const std::string& path) {
  auto text = ReadDocumentFile(path, DocumentKind::kToml);
  if (!text.ok()) return text.status();
  return ParseDeviceSpec(*text, path);
}

Result<std::vector<DeviceSpec>> LoadDeviceSpecs(const std::string& specs_dir) {
  std::error_code ec;
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(specs_dir, ec)) {
    if (entry.path().extension() == ".toml") files.push_back(entry.path().string());
  }
  if (ec) return Status::NotFound(specs_dir + ": cannot list the device specs: " + ec.message());
  std::sort(files.begin(), files.end());
  std::vector<DeviceSpec> specs;
  std::map<std::string, std::string> owner;  // cuda name -> file
  for (const std::string& f : files) {
    auto spec = LoadDeviceSpec(f);
    if (!spec.ok()) return spec.status();
    for (const std::string& n : spec->cuda_names) {
      auto [it, fresh] = owner.emplace(n, f);
      if (!fresh)
        return Status::Invalid(f + ": [device] cuda_names: \"" + n + "\" is also claimed by " +
                               it->second);
    }
    specs.push_back(std::move(*spec));
  }
  return specs;
}

Result<DeviceSpec> MatchDeviceSpec(const std::vector<DeviceSpec>& specs,
                                   std::string_view gpu_name) {
  std::string_view wanted = Trim(gpu_name);
  std::string known;
  for (const DeviceSpec& s : specs) {
    for (const std::string& n : s.cuda_names) {
      if (n == wanted) return s;
      known += (known.empty() ? "\"" : ", \"") + n + "\"";
    }
  }
  return Status::NotFound("no device spec for \"" + std::string(wanted) +
                          "\" (known: " + (known.empty() ? "none" : known) + ")");
}

Result<DeviceSpec> FindDeviceSpec(const std::string& data_dir, std::string_view gpu_name) {
  auto specs = LoadDeviceSpecs(data_dir + "/specs");
  if (!specs.ok()) return specs.status();
  return MatchDeviceSpec(*specs, gpu_name);
}

std::optional<Peak> PeakTflops(const DeviceSpec& spec, std::string_view dtype) {
  auto it = spec.peak_dense_tflops.find(std::string(dtype));
  if (it == spec.peak_dense_tflops.end()) return std::nullopt;
  return Peak{it->second, spec.path + " [peak_dense_tflops] " + it->first};
}

std::optional<Peak> PeakHbmGBps(const DeviceSpec& spec) {
  if (!spec.hbm_tb_per_s) return std::nullopt;
  return Peak{*spec.hbm_tb_per_s * 1000.0,
              spec.path + " [memory] hbm_tb_per_s = " + FormatNumber(*spec.hbm_tb_per_s)};
}

double DeviceMemoryBytes(const DeviceSpec& spec) {
  constexpr double kMiB = 1024.0 * 1024.0;
  constexpr double kDriverShareOfDatasheet = 0.995;
  if (spec.device_mib) return *spec.device_mib * kMiB;
  return spec.hbm_capacity_gb.value_or(0) * 1024 * kMiB * kDriverShareOfDatasheet;
}

std::optional<Peak> PeakNvlinkPerDirectionGBps(const DeviceSpec& spec) {
  if (!spec.nvlink_per_direction_gb_per_s) return std::nullopt;
  return Peak{*spec.nvlink_per_direction_gb_per_s, spec.path + " [nvlink] per_direction_gb_per_s"};
}

std::optional<Peak> PeakPciePerDirectionGBps(const DeviceSpec& spec) {
  if (!spec.pcie_per_direction_gb_per_s) return std::nullopt;
  return Peak{*spec.pcie_per_direction_gb_per_s, spec.path + " [pcie] per_direction_gb_per_s"};
}

}  // namespace ys::bench
