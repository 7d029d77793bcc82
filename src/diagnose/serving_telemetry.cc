#include "diagnose/serving_telemetry.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/run_document.h"
#include "core/text.h"
#include "gpu/gpu_snapshot.h"

namespace ys::diagnose {
namespace {

// What a column or metric is, whichever tool named it.
enum class TelemetryField {
  kNone,
  kTimestamp,
  kIndex,
  kBusId,
  kSmClock,
  kMaxSmClock,
  kPower,
  kPowerLimit,
  kTemperature,
  kReasons,        // the bit mask
  kReasonSwPower,  // one column per reason: "Active" / "Not Active"
  kReasonHwSlowdown,
  kReasonSwThermal,
  kReasonHwThermal,
  kReasonPowerBrake,
  kUtilization,
  kMemoryUsed,
  kPowerViolation,
  kThermalViolation,
  kXid,
};

// nvidia-smi's query names (the header without its unit).
TelemetryField SmiField(std::string_view name) {
  static const std::map<std::string, TelemetryField, std::less<>> kNames = {
      {"timestamp", TelemetryField::kTimestamp},
      {"index", TelemetryField::kIndex},
      {"pci.bus_id", TelemetryField::kBusId},
      {"clocks.sm", TelemetryField::kSmClock},
      {"clocks.current.sm", TelemetryField::kSmClock},
      {"clocks.max.sm", TelemetryField::kMaxSmClock},
      {"clocks.max.sm_clock", TelemetryField::kMaxSmClock},
      {"power.draw", TelemetryField::kPower},
      {"power.draw.instant", TelemetryField::kPower},
      {"power.draw.average", TelemetryField::kPower},
      {"power.limit", TelemetryField::kPowerLimit},
      {"enforced.power.limit", TelemetryField::kPowerLimit},
      {"temperature.gpu", TelemetryField::kTemperature},
      {"utilization.gpu", TelemetryField::kUtilization},
      {"memory.used", TelemetryField::kMemoryUsed},
  };
  auto it = kNames.find(name);
  if (it != kNames.end()) return it->second;
  for (std::string_view prefix : {"clocks_throttle_reasons.", "clocks_event_reasons."}) {
    if (!StartsWith(name, prefix)) continue;
    std::string_view reason = name.substr(prefix.size());
    if (reason == "active") return TelemetryField::kReasons;
    if (reason == "sw_power_cap") return TelemetryField::kReasonSwPower;
    if (reason == "hw_slowdown") return TelemetryField::kReasonHwSlowdown;
    if (reason == "sw_thermal_slowdown") return TelemetryField::kReasonSwThermal;
    if (reason == "hw_thermal_slowdown") return TelemetryField::kReasonHwThermal;
    if (reason == "hw_power_brake_slowdown") return TelemetryField::kReasonPowerBrake;
  }
  return TelemetryField::kNone;
}

uint64_t ReasonBit(TelemetryField f) {
  static const std::map<TelemetryField, uint64_t> kBits = {
      {TelemetryField::kReasonSwPower, gpu::kClocksEventSwPowerCap},
      {TelemetryField::kReasonHwSlowdown, gpu::kClocksEventHwSlowdown},
      {TelemetryField::kReasonSwThermal, gpu::kClocksEventSwThermalSlowdown},
      {TelemetryField::kReasonHwThermal, gpu::kClocksEventHwThermalSlowdown},
      {TelemetryField::kReasonPowerBrake, gpu::kClocksEventHwPowerBrakeSlowdown}};
  auto it = kBits.find(f);
  return it == kBits.end() ? 0 : it->second;
}

// One CSV line's cells, trimmed, double quotes removed (nullopt: an unterminated quote).
std::optional<std::vector<std::string>> TelemetryCells(std::string_view line) {
  auto cells = SplitCsvLine(line);
  if (!cells) return std::nullopt;
  for (std::string& c : *cells) c = std::string(Trim(c));
  return cells;
}

// "clocks.current.sm [MHz]" -> "clocks.current.sm".
std::string_view WithoutUnit(std::string_view header) {
  size_t bracket = header.find(" [");
  return Trim(bracket == std::string_view::npos ? header : header.substr(0, bracket));
}

// A cell's number ("1980 MHz", "650.12 W", "98 %", "1980"); nullopt for "[N/A]" and the like,
// `bad` for text that is neither.
std::optional<double> TelemetryNumber(std::string_view cell, bool& bad) {
  cell = Trim(cell);
  if (cell.empty() || cell.front() == '[' || cell == "N/A") return std::nullopt;
  std::vector<std::string_view> words = SplitWhitespace(cell);
  auto v = ParseDouble(words.front());
  if (!v || !std::isfinite(*v) || words.size() > 2) {
    bad = true;
    return std::nullopt;
  }
  return v;
}

// The samples of one GPU, column by column.
struct GpuSamples {
  std::string gpu;
  std::map<TelemetryField, std::vector<double>> values;
  int rows = 0, reason_rows = 0, slowdown_rows = 0;
  uint64_t slowdown_bits = 0;
};

double Highest(const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); }

GpuRunReadings Summarise(const GpuSamples& s, const std::string& source) {
  GpuRunReadings r;
  r.gpu = s.gpu;
  r.source = source;
  r.samples = s.rows;
  auto take = [&](TelemetryField f, std::optional<double>& out, bool highest) {
    auto it = s.values.find(f);
    if (it == s.values.end() || it->second.empty()) return;
    out = highest ? Highest(it->second) : MedianOf(it->second);
  };
  take(TelemetryField::kSmClock, r.sm_clock_mhz, false);
  take(TelemetryField::kMaxSmClock, r.max_sm_clock_mhz, true);
  take(TelemetryField::kPower, r.power_w, false);
  take(TelemetryField::kPowerLimit, r.power_limit_w, false);
  take(TelemetryField::kTemperature, r.temperature_c, true);
  take(TelemetryField::kUtilization, r.utilization_pct, false);
  take(TelemetryField::kMemoryUsed, r.memory_used_mib, true);
  r.reasons_recorded = s.reason_rows > 0;
  if (s.reason_rows > 0) r.slowdown_share = static_cast<double>(s.slowdown_rows) / s.reason_rows;
  r.slowdown_reasons = s.slowdown_bits;
  return r;
}

struct SmiColumns {
  std::vector<TelemetryField> fields;
  int index_at = -1, bus_at = -1;
};

// One data row into its GPU's samples.
Status TakeSmiRow(const std::vector<std::string>& cells, const SmiColumns& cols,
                  const std::string& where, std::map<std::string, GpuSamples>& gpus) {
  std::string key = cols.bus_at >= 0 ? cells[cols.bus_at] : "";
  std::string index = cols.index_at >= 0 ? cells[cols.index_at] : "";
  GpuSamples& g = gpus[key.empty() ? index : key];
  if (g.gpu.empty()) {
    g.gpu = index.empty() ? (key.empty() ? "gpu" : key) : "gpu" + index;
    if (!key.empty() && !index.empty()) g.gpu += " (" + key + ")";
  }
  ++g.rows;
  uint64_t bits = 0;
  bool reasons = false;
  for (size_t c = 0; c < cells.size(); ++c) {
    TelemetryField f = cols.fields[c];
    if (f == TelemetryField::kNone || f == TelemetryField::kTimestamp ||
        f == TelemetryField::kIndex || f == TelemetryField::kBusId) {
      continue;
    }
    std::string_view cell = Trim(cells[c]);
    if (uint64_t bit = ReasonBit(f)) {
      if (cell == "Active") bits |= bit;
      reasons = reasons || cell == "Active" || cell == "Not Active";
      continue;
    }
    if (f == TelemetryField::kReasons) {
      if (cell.empty() || cell.front() == '[') continue;
      auto v = ParseHex(cell);
      if (!v)
        return Status::Invalid(
            fmt::format("{}: column {}: expected a hexadecimal mask, found "
                        "'{}'",
                        where, c + 1, SanitizeForDisplay(cell)));
      bits |= *v;
      reasons = true;
      continue;
    }
    bool bad = false;
    auto v = TelemetryNumber(cell, bad);
    if (bad) {
      return Status::Invalid(fmt::format("{}: column {}: expected a number, found '{}'", where,
                                         c + 1, SanitizeForDisplay(cell)));
    }
    if (v) g.values[f].push_back(*v);
  }
  if (reasons) {
    ++g.reason_rows;
    if (SlowdownReasons(bits) != 0) ++g.slowdown_rows;
    g.slowdown_bits |= SlowdownReasons(bits);
  }
  return Status::Ok();
}

SmiColumns SmiColumnsOf(const std::vector<std::string>& header) {
  SmiColumns cols;
  for (size_t c = 0; c < header.size(); ++c) {
    TelemetryField f = SmiField(WithoutUnit(header[c]));
    cols.fields.push_back(f);
    if (f == TelemetryField::kIndex) cols.index_at = static_cast<int>(c);
    if (f == TelemetryField::kBusId) cols.bus_at = static_cast<int>(c);
  }
  return cols;
}

}  // namespace

uint64_t SlowdownReasons(uint64_t bits) {
  return bits & (gpu::kClocksEventSwPowerCap | gpu::kClocksEventHwSlowdown |
                 gpu::kClocksEventSwThermalSlowdown | gpu::kClocksEventHwThermalSlowdown |
                 gpu::kClocksEventHwPowerBrakeSlowdown);
}

std::string DescribeSlowdownReasons(uint64_t bits) {
  std::vector<std::string> names;
  for (auto [bit, name] : {std::pair{gpu::kClocksEventSwPowerCap, "SW power cap"},
                           std::pair{gpu::kClocksEventHwSlowdown, "HW slowdown"},
                           std::pair{gpu::kClocksEventSwThermalSlowdown, "SW thermal slowdown"},
                           std::pair{gpu::kClocksEventHwThermalSlowdown, "HW thermal slowdown"},
                           std::pair{gpu::kClocksEventHwPowerBrakeSlowdown, "HW power brake"}}) {
    if (bits & bit) names.emplace_back(name);
  }
  return Join(names, ", ");
}

bool IsSmiQueryCsv(std::string_view head) {
  std::vector<std::string_view> lines = SplitLines(head);
  if (lines.empty()) return false;
  std::string_view first = lines.front();
  if (StartsWith(first, "\xEF\xBB\xBF")) first.remove_prefix(3);
  auto cells = TelemetryCells(first);
  if (!cells) return false;
  int known = 0;
  for (const std::string& c : *cells) {
    if (SmiField(WithoutUnit(c)) != TelemetryField::kNone) ++known;
  }
  return known >= 2 && known * 2 >= static_cast<int>(cells->size());
}

Result<std::vector<GpuRunReadings>> ReadSmiQueryCsv(std::string_view text,
                                                    const std::string& name) {
  if (StartsWith(text, "\xEF\xBB\xBF")) text.remove_prefix(3);
  std::vector<std::string_view> lines = SplitLines(text);
  while (!lines.empty() && Trim(lines.back()).empty()) lines.pop_back();
  if (lines.empty() || !IsSmiQueryCsv(lines.front())) {
    return Status::Invalid(name +
                           ": line 1: expected an nvidia-smi --query-gpu CSV header "
                           "(timestamp, index, clocks.sm, power.draw, ...)");
  }
  const std::vector<std::string> header = *TelemetryCells(lines.front());
  const SmiColumns cols = SmiColumnsOf(header);
  std::map<std::string, GpuSamples> gpus;
  for (size_t i = 1; i < lines.size(); ++i) {
    if (Trim(lines[i]).empty()) continue;
    const std::string where = fmt::format("{}: line {}", name, i + 1);
    auto cells = TelemetryCells(lines[i]);
    if (cells && *cells == header) continue;  // a sampler restarted into the same file
    if (!cells || cells->size() != header.size()) {
      if (i + 1 == lines.size()) break;  // the sampler stopped mid-line
      return Status::Invalid(fmt::format("{}: expected {} cells as the header has, found {}", where,
                                         header.size(), cells ? cells->size() : 0));
    }
    YS_RETURN_IF_ERROR(TakeSmiRow(*cells, cols, where, gpus));
  }
  std::vector<GpuRunReadings> out;
  for (const auto& [key, g] : gpus) out.push_back(Summarise(g, name));
  return out;
}

namespace {

// AIPerf's metrics, by JSON key (with or without "nvidia_") and display name (with or without
// "NVIDIA ", before its unit).
struct AiperfMetricName {
  TelemetryField field;
  std::vector<std::string_view> keys;
  std::string_view display;
};
const std::vector<AiperfMetricName>& AiperfTelemetryNames() {
  static const std::vector<AiperfMetricName> kNames = {
      {TelemetryField::kPower, {"gpu_power_usage", "power_usage"}, "GPU Power Usage"},
      {TelemetryField::kPowerLimit, {"power_management_limit", "power_limit"}, "GPU Power Limit"},
      {TelemetryField::kUtilization, {"gpu_utilization"}, "GPU Utilization"},
      {TelemetryField::kMemoryUsed, {"gpu_memory_used", "memory_used"}, "GPU Memory Used"},
      {TelemetryField::kSmClock, {"sm_clock_frequency", "sm_clock"}, "SM Clock Frequency"},
      {TelemetryField::kTemperature, {"gpu_temperature", "temperature"}, "GPU Temperature"},
      {TelemetryField::kXid, {"xid_errors"}, "XID Errors"},
      {TelemetryField::kPowerViolation, {"power_violation"}, "Power Violation"},
      {TelemetryField::kThermalViolation, {"thermal_violation"}, "Thermal Violation"},
  };
  return kNames;
}

TelemetryField AiperfKeyField(std::string_view key) {
  if (StartsWith(key, "nvidia_")) key.remove_prefix(7);
  for (const auto& n : AiperfTelemetryNames()) {
    if (std::find(n.keys.begin(), n.keys.end(), key) != n.keys.end()) return n.field;
  }
  return TelemetryField::kNone;
}

TelemetryField AiperfDisplayField(std::string_view display) {
  if (StartsWith(display, "NVIDIA ")) display.remove_prefix(7);
  size_t paren = display.find(" (");
  if (paren != std::string_view::npos) display = display.substr(0, paren);
  for (const auto& n : AiperfTelemetryNames()) {
    if (Trim(display) == n.display) return n.field;
  }
  return TelemetryField::kNone;
}

// One metric's statistics into a GPU's readings.
struct AiperfStat {
  std::optional<double> avg, min, max;
};
void TakeAiperfStat(TelemetryField f, const AiperfStat& s, std::optional<double> run_s,
                    GpuRunReadings& r) {
  // DCGM states the counters in microseconds, but real exports hold nanoseconds (NVML's unit): a
  // share above the whole run in microseconds is read in nanoseconds; above it in both, none.
  auto share = [&](std::optional<double>& out) {
    if (!s.min || !s.max || !run_s || *run_s <= 0 || *s.max < *s.min) return;
    for (double per_s : {1e6, 1e9}) {
      double v = (*s.max - *s.min) / per_s / *run_s;
      if (v <= 1) {
        out = v;
        return;
      }
    }
  };
  switch (f) {
    case TelemetryField::kPower:
      r.power_w = s.avg;
      break;
    case TelemetryField::kPowerLimit:
      r.power_limit_w = s.avg;
      break;
    case TelemetryField::kUtilization:
      r.utilization_pct = s.avg;
      break;
    case TelemetryField::kMemoryUsed:  // GB as AIPerf scales MiB (x 1.048576e-3)
      if (s.max) r.memory_used_mib = *s.max / 1.048576e-3;
      break;
    case TelemetryField::kSmClock:
      r.sm_clock_mhz = s.avg;
      break;
    case TelemetryField::kTemperature:
      r.temperature_c = s.max;
      break;
    case TelemetryField::kXid:
      if (s.max && *s.max >= 0 && *s.max < 1e6) r.last_xid = static_cast<int>(*s.max);
      break;
    case TelemetryField::kPowerViolation:
      share(r.power_violation_share);
      break;
    case TelemetryField::kThermalViolation:
      share(r.thermal_violation_share);
      break;
    default:
      break;
  }
}

std::optional<double> JsonNumberAt(const nlohmann::json& j, std::string_view key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  double v = it->get<double>();
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

}  // namespace

bool HasAiperfTelemetryBlock(std::string_view text) {
  for (std::string_view line : SplitLines(text)) {
    if (StartsWith(Trim(line), "Endpoint,GPU_Index,")) return true;
  }
  return false;
}

Result<std::vector<GpuRunReadings>> ReadAiperfTelemetryCsv(std::string_view text,
                                                           const std::string& name) {
  std::vector<std::string_view> lines = SplitLines(text);
  std::optional<double> run_s;
  std::vector<std::string> header;
  std::map<std::string, GpuRunReadings> gpus;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = Trim(lines[i]);
    if (line.empty()) {
      header.clear();
      continue;
    }
    auto cells = TelemetryCells(line);
    if (!cells) return Status::Invalid(fmt::format("{}: line {}: unterminated quote", name, i + 1));
    if (cells->size() == 2 && StartsWith((*cells)[0], "Benchmark Duration (sec)")) {
      bool bad = false;
      run_s = TelemetryNumber((*cells)[1], bad);
      continue;
    }
    if ((*cells)[0] == "Endpoint") {
      header = *cells;
      continue;
    }
    if (header.empty()) continue;
    auto col = [&](std::string_view n) {
      return static_cast<size_t>(std::find(header.begin(), header.end(), n) - header.begin());
    };
    size_t metric = col("Metric"), index = col("GPU_Index"), endpoint = col("Endpoint");
    if (metric >= header.size() || cells->size() != header.size()) {
      return Status::Invalid(
          fmt::format("{}: line {}: expected {} cells of GPU telemetry, found {}", name, i + 1,
                      header.size(), cells->size()));
    }
    TelemetryField f = AiperfDisplayField((*cells)[metric]);
    if (f == TelemetryField::kNone) continue;
    AiperfStat s;
    for (auto [stat, out] :
         {std::pair{"avg", &s.avg}, std::pair{"min", &s.min}, std::pair{"max", &s.max}}) {
      size_t at = col(stat);
      bool bad = false;
      if (at < header.size()) *out = TelemetryNumber((*cells)[at], bad);
      if (bad) {
        return Status::Invalid(fmt::format("{}: line {}: {} of '{}': expected a number", name,
                                           i + 1, stat, SanitizeForDisplay((*cells)[metric])));
      }
    }
    // One GPU seen through two exporters is one GPU: keyed by its UUID where the block has it.
    size_t uuid = col("GPU_UUID");
    std::string key =
        uuid < cells->size() && !(*cells)[uuid].empty()
            ? (*cells)[uuid]
            : (*cells)[endpoint] + "/" + (index < cells->size() ? (*cells)[index] : "");
    GpuRunReadings& r = gpus[key];
    if (r.gpu.empty()) {
      r.gpu = "gpu" + (index < cells->size() ? (*cells)[index] : "") + " on " + (*cells)[endpoint];
      r.source = name;
    }
    TakeAiperfStat(f, s, run_s, r);
  }
  std::vector<GpuRunReadings> out;
  for (auto& [key, r] : gpus) out.push_back(std::move(r));
  return out;
}

Result<std::vector<GpuRunReadings>> ReadAiperfTelemetryJson(const nlohmann::json& doc,
                                                            const std::string& name) {
  std::vector<GpuRunReadings> out;
  if (!doc.is_object()) return out;
  auto telemetry = doc.find("telemetry_data");
  if (telemetry == doc.end() || !telemetry->is_object()) return out;
  auto endpoints = telemetry->find("endpoints");
  if (endpoints == telemetry->end() || !endpoints->is_object()) return out;
  std::optional<double> run_s;
  if (auto d = doc.find("benchmark_duration"); d != doc.end() && d->is_object()) {
    run_s = JsonNumberAt(*d, "avg");
  }
  std::set<std::string> seen;
  for (const auto& [endpoint, e] : endpoints->items()) {
    if (!e.is_object() || !e.contains("gpus") || !e["gpus"].is_object()) continue;
    for (const auto& [id, g] : e["gpus"].items()) {
      if (!g.is_object() || !g.contains("metrics") || !g["metrics"].is_object()) {
        return Status::Invalid(
            fmt::format("{}: telemetry_data.endpoints.{}.gpus.{}: expected an "
                        "object with metrics",
                        name, endpoint, id));
      }
      // One GPU seen through two exporters is one GPU.
      auto uuid = g.find("gpu_uuid");
      if (uuid != g.end() && uuid->is_string() && !seen.insert(uuid->get<std::string>()).second) {
        continue;
      }
      GpuRunReadings r;
      r.source = name;
      auto host = g.find("hostname");
      auto index = JsonNumberAt(g, "gpu_index");
      r.gpu = (index ? fmt::format("gpu{:.0f}", *index) : id) + " on " +
              (host != g.end() && host->is_string() ? host->get<std::string>() : endpoint);
      for (const auto& [key, m] : g["metrics"].items()) {
        if (!m.is_object()) continue;
        TakeAiperfStat(AiperfKeyField(key),
                       {JsonNumberAt(m, "avg"), JsonNumberAt(m, "min"), JsonNumberAt(m, "max")},
                       run_s, r);
      }
      out.push_back(std::move(r));
    }
  }
  return out;
}

}  // namespace ys::diagnose
