#include "diagnose/serving_evidence.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/document_file.h"
#include "core/text.h"
#include "diagnose/rule.h"

namespace ys::diagnose {
namespace {

namespace fs = std::filesystem;

// A log or export larger than this is not scanned (a note says so).
constexpr size_t kMaxServingEvidenceBytes = size_t{256} << 20;
// A GPU below this utilisation is idle: its clocks fall by design.
constexpr double kBusyUtilizationPct = 5;
// A clock within this share of its maximum is not held down.
constexpr double kClockAtMax = 0.97;

// The regular files below `dir`, two levels deep (a sweep keeps one folder per concurrency).
std::vector<std::string> EvidenceFiles(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it.depth() >= 1) it.disable_recursion_pending();
    if (it->is_regular_file(ec) && !it->is_symlink(ec)) files.push_back(it->path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

void AddTelemetry(Result<std::vector<GpuRunReadings>> read, const std::string& path,
                  ServingPhaseEvidence& e) {
  if (!read.ok()) {
    e.problems.push_back(read.status().message());
    return;
  }
  if (read->empty()) return;
  e.telemetry_files.push_back(path);
  for (auto& g : *read) e.gpus.push_back(std::move(g));
}

// The worker a log belongs to ("prefill_0" of ".../prefill_0.log"), or empty.
std::string WorkerOf(const std::string& path) {
  std::string stem = fs::path(path).stem().string();
  for (std::string_view role : {"prefill_", "decode_"}) {
    if (StartsWith(stem, role) && ParseInt(stem.substr(role.size()))) return stem;
  }
  return "";
}

// The number after `label` in `line` ("Avg prompt throughput: 1234.5 tokens/s"), if any.
std::optional<double> NumberAfter(std::string_view line, std::string_view label) {
  size_t at = line.find(label);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = Trim(line.substr(at + label.size()));
  size_t end = 0;
  while (end < rest.size() &&
         (std::isdigit(static_cast<unsigned char>(rest[end])) || rest[end] == '.')) {
    ++end;
  }
  return ParseDouble(rest.substr(0, end));
}

// A worker log line's rate: vLLM's or SGLang's, for the worker's role.
std::optional<double> WorkerRateOf(std::string_view line, bool prefill) {
  for (std::string_view label :
       prefill
           ? std::vector<std::string_view>{"Avg prompt throughput:", "input throughput (token/s):"}
           : std::vector<std::string_view>{"Avg generation throughput:",
                                           "gen throughput (token/s):"}) {
    if (auto v = NumberAfter(line, label)) return v;
  }
  return std::nullopt;
}

// A UCX_* or NIXL_* setting a log prints ("UCX_TLS=rc,cuda_copy", "'UCX_NET_DEVICES': 'mlx5_0:1'",
// "NIXL_PLUGIN_DIR: /opt/nixl"), or nullopt.
std::optional<ServingTransferSetting> TransferSettingOf(std::string_view line) {
  for (std::string_view prefix : {"UCX_", "NIXL_"}) {
    size_t at = line.find(prefix);
    if (at == std::string_view::npos) continue;
    if (at > 0 && (std::isalnum(static_cast<unsigned char>(line[at - 1])) || line[at - 1] == '_'))
      continue;
    size_t end = at;
    while (end < line.size() &&
           (std::isupper(static_cast<unsigned char>(line[end])) ||
            std::isdigit(static_cast<unsigned char>(line[end])) || line[end] == '_')) {
      ++end;
    }
    std::string_view rest = line.substr(end);
    size_t v = rest.find_first_not_of(" '\"");
    if (v == std::string_view::npos || (rest[v] != '=' && rest[v] != ':')) continue;
    rest = rest.substr(v + 1);
    v = rest.find_first_not_of(" '\"");
    if (v == std::string_view::npos) continue;
    // A quoted value ends at its quote ("'UCX_TLS': 'rc,cuda_copy'"), a bare one at a space.
    const bool quoted = v > 0 && (rest[v - 1] == '\'' || rest[v - 1] == '"');
    rest = rest.substr(v);
    std::string_view value = rest.substr(0, rest.find_first_of(quoted ? "'\"" : " ;}"));
    if (value.empty() || end - at <= prefix.size()) continue;
    return ServingTransferSetting{std::string(line.substr(at, end - at)), std::string(value), ""};
  }
  return std::nullopt;
}

// Xid lines, KV-transfer settings and a worker's rate, line by line.
void ScanLog(std::string_view text, const std::string& path, ServingPhaseEvidence& e) {
  e.logs.push_back(path);
  const std::string worker = WorkerOf(path);
  const bool prefill = StartsWith(worker, "prefill_");
  double sum = 0;
  int samples = 0, n = 0;
  for (std::string_view line : SplitLines(text)) {
    ++n;
    if (line.find("Xid") != std::string_view::npos) {
      if (auto x = gpu::ParseXidLine(line)) e.xids.push_back({path, n, std::move(*x)});
    }
    if (auto t = TransferSettingOf(line)) {
      t->file = path;
      bool seen = std::any_of(e.transfer.begin(), e.transfer.end(), [&](const auto& x) {
        return x.name == t->name && x.value == t->value;
      });
      if (!seen) e.transfer.push_back(std::move(*t));
    }
    if (worker.empty()) continue;
    if (auto r = WorkerRateOf(line, prefill); r && *r > 0) {
      sum += *r;
      ++samples;
    }
  }
  if (samples > 0) e.workers.push_back({worker, prefill, sum / samples, samples, path});
}

void ReadEvidenceFile(const std::string& path, ServingPhaseEvidence& e) {
  auto text = ReadDocumentFile(path, kMaxServingEvidenceBytes, "a log or an export");
  if (!text.ok()) {
    e.problems.push_back(text.status().message());
    return;
  }
  const std::string ext = ToLower(fs::path(path).extension().string());
  if (ext == ".json") {
    auto doc = nlohmann::json::parse(*text, nullptr, false);
    if (!doc.is_discarded()) {
      AddTelemetry(ReadAiperfTelemetryJson(doc, path), path, e);
      return;
    }
  }
  if (ext == ".csv") {
    if (HasAiperfTelemetryBlock(*text)) {
      AddTelemetry(ReadAiperfTelemetryCsv(*text, path), path, e);
      return;
    }
    if (IsSmiQueryCsv(*text)) {
      AddTelemetry(ReadSmiQueryCsv(*text, path), path, e);
      return;
    }
  }
  ScanLog(*text, path, e);
}

}  // namespace

std::optional<int> ServingPhaseEvidence::Concurrency() const {
  if (StartsWith(row.point, "concurrency ")) {
    if (auto c = ParseInt(row.point.substr(12)); c && *c > 0) return static_cast<int>(*c);
  }
  if (row.concurrency.size() == 1) return row.concurrency.front();
  return std::nullopt;
}

bool ServingPhaseEvidence::FellShort() const {
  return row.outcome == "fail" || row.outcome == "inconclusive";
}

bool ServingPhaseEvidence::Disaggregated() const {
  return row.prefill_workers > 0 && row.decode_workers > 0;
}

int ServingPhaseEvidence::LargestTp() const {
  return std::max({row.tp, row.prefill_tp, row.decode_tp});
}

ServingPhaseEvidence ReadServingPhaseEvidence(const ValidationPhase& row, const std::string& dir) {
  ServingPhaseEvidence e;
  e.row = row;
  e.dir = dir;
  if (dir.empty()) return e;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    e.problems.push_back(dir + ": not a folder");
    return e;
  }
  for (const std::string& path : EvidenceFiles(dir)) ReadEvidenceFile(path, e);
  return e;
}

const ValidationPhaseMetric* FailedMetric(const ServingPhaseEvidence& e, std::string_view key) {
  const ValidationPhaseMetric* m = e.row.Metric(key);
  return m != nullptr && m->outcome == "fail" ? m : nullptr;
}

const ValidationPhaseMetric* PassedMetric(const ServingPhaseEvidence& e, std::string_view key) {
  const ValidationPhaseMetric* m = e.row.Metric(key);
  return m != nullptr && m->outcome == "pass" ? m : nullptr;
}

std::string DescribeMetric(const ValidationPhaseMetric& m) {
  auto figure = [&](const std::optional<double>& v) {
    return v ? fmt::format("{:.4g} {}", *v, m.unit) : std::string("none");
  };
  std::string score = m.score ? fmt::format("score {:.2f}, ", *m.score) : "";
  return fmt::format("{} measured, {} reference ({}{})", figure(m.measured), figure(m.reference),
                     score, m.outcome.empty() ? "not compared" : m.outcome);
}

std::string PhaseEntity(const ServingPhaseEvidence& e) { return "phase " + e.row.id; }

namespace {

// DCGM's power violation counter is believed when the power drawn bears it out (near the limit
// on average), or when there is no limit to compare with.
constexpr double kNearPowerLimit = 0.8;
bool PowerNearLimit(const GpuRunReadings& g) {
  if (!g.power_w || !g.power_limit_w || *g.power_limit_w <= 0) return true;
  return *g.power_w >= kNearPowerLimit * *g.power_limit_w;
}

std::optional<HeldGpu> HeldDown(const GpuRunReadings& g) {
  if (g.utilization_pct && *g.utilization_pct < kBusyUtilizationPct) return std::nullopt;
  HeldGpu h{&g, "", std::nullopt};
  bool below_max = false;
  if (g.sm_clock_mhz && g.max_sm_clock_mhz && *g.sm_clock_mhz > 0) {
    below_max = *g.sm_clock_mhz < kClockAtMax * *g.max_sm_clock_mhz;
    if (below_max) h.clock_loss = *g.max_sm_clock_mhz / *g.sm_clock_mhz - 1;
  }
  const bool max_known = g.max_sm_clock_mhz.has_value() && g.sm_clock_mhz.has_value();
  if (g.reasons_recorded && g.slowdown_share >= kSlowdownShare && (below_max || !max_known)) {
    h.why = fmt::format("{} in {} of {} samples", DescribeSlowdownReasons(g.slowdown_reasons),
                        Percent(g.slowdown_share), g.samples);
  } else if (g.power_violation_share && *g.power_violation_share >= kSlowdownShare &&
             PowerNearLimit(g)) {
    h.why = fmt::format("held by its power limit {} of the run (DCGM power violation counter)",
                        Percent(*g.power_violation_share));
  } else if (g.thermal_violation_share && *g.thermal_violation_share >= kSlowdownShare) {
    h.why = fmt::format("held by its thermal limit {} of the run (DCGM thermal violation counter)",
                        Percent(*g.thermal_violation_share));
  } else if (below_max && g.power_w && g.power_limit_w && *g.power_limit_w > 0 &&
             *g.power_w >= kClockAtMax * *g.power_limit_w) {
    h.why = fmt::format("power at its cap ({:.0f} W of {:.0f} W)", *g.power_w, *g.power_limit_w);
  } else {
    return std::nullopt;
  }
  if (g.sm_clock_mhz && g.max_sm_clock_mhz) {
    h.why += fmt::format("; SM clock {:.0f} of {:.0f} MHz", *g.sm_clock_mhz, *g.max_sm_clock_mhz);
  }
  return h;
}

}  // namespace

std::vector<HeldGpu> GpusHeldDown(const ServingPhaseEvidence& e) {
  std::vector<HeldGpu> out;
  for (const GpuRunReadings& g : e.gpus) {
    if (auto h = HeldDown(g)) out.push_back(std::move(*h));
  }
  return out;
}

bool TelemetryJudgesClocks(const ServingPhaseEvidence& e) {
  return std::any_of(e.gpus.begin(), e.gpus.end(), [](const GpuRunReadings& g) {
    return (g.sm_clock_mhz && g.max_sm_clock_mhz) || g.reasons_recorded ||
           g.power_violation_share || g.thermal_violation_share;
  });
}

}  // namespace ys::diagnose
