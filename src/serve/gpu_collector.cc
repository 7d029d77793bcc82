// The gpu collector (collectors.h).
#include <fmt/format.h>

#include <chrono>
#include <map>
#include <optional>

#include "gpu/gpu_snapshot_json.h"
#include "gpu/gpu_source.h"
#include "gpu/gpu_telemetry.h"
#include "gpu/nvml_api.h"
#include "gpu/nvml_reader.h"
#include "gpu/nvml_telemetry_api.h"
#include "serve/collectors.h"

namespace ys::serve {

namespace {

using gpu::Field;

struct ReasonBit {
  uint64_t bit;
  const char* name;
};
constexpr ReasonBit kReasons[] = {
    {gpu::kClocksEventGpuIdle, "gpu_idle"},
    {gpu::kClocksEventApplicationsClocksSetting, "applications_clocks_setting"},
    {gpu::kClocksEventSwPowerCap, "sw_power_cap"},
    {gpu::kClocksEventHwSlowdown, "hw_slowdown"},
    {gpu::kClocksEventSyncBoost, "sync_boost"},
    {gpu::kClocksEventSwThermalSlowdown, "sw_thermal_slowdown"},
    {gpu::kClocksEventHwThermalSlowdown, "hw_thermal_slowdown"},
    {gpu::kClocksEventHwPowerBrakeSlowdown, "hw_power_brake_slowdown"},
    {gpu::kClocksEventDisplayClockSetting, "display_clock_setting"},
};

constexpr double kMiB = 1024.0 * 1024.0;

class GpuCollector : public Collector {
 public:
  GpuCollector(const host::Host& host, std::string nvml_state)
      : host_(host), nvml_state_(std::move(nvml_state)) {
    if (nvml_state_.empty() && !host_.live()) {
      // Resolved inside the tree: a link there to a file of this machine is not followed out.
      auto recorded = host_.RegularFilePath(gpu::kRecordedNvmlPath);
      nvml_state_ = recorded.ok() ? *recorded : host_.Resolve(gpu::kRecordedNvmlPath);
      // Absent: loading says so, as before.
      if (!recorded.ok() && recorded.status().code() != StatusCode::kNotFound) {
        recorded_error_ = recorded.status();
      }
    }
  }

  std::string_view name() const override { return "gpu"; }

  Result<Exposition> Collect() override {
    gpu::GpuSnapshot snap;
    gpu::GpuTelemetry tel;
    if (!recorded_error_.ok()) return recorded_error_;
    if (!nvml_state_.empty()) {
      auto s = gpu::LoadGpuSnapshot(nvml_state_);
      if (!s.ok()) return s.status();
      auto t = gpu::LoadGpuTelemetry(nvml_state_);
      if (!t.ok()) return t.status();
      snap = std::move(s).value();
      tel = std::move(t).value();
    } else {
      // One NVML session for the exporter's life: initialising NVML costs far more than a read.
      if (!session_) {
        auto lib = gpu::nvml::Library::Open();
        if (!lib.ok()) return lib.status();
        library_.emplace(std::move(lib).value());
        auto session = gpu::nvml::Session::Start(library_->api());
        if (!session.ok()) {
          library_.reset();
          return session.status();
        }
        session_.emplace(std::move(session).value());
        // The telemetry functions from the same library (dlopen again: the same handle).
        auto again = gpu::DynamicLibrary::Open(library_->name());
        if (again.ok()) telemetry_api_ = gpu::nvml::ResolveTelemetryApi(*again);
        if (again.ok()) telemetry_lib_.emplace(std::move(again).value());
      }
      auto s = gpu::ReadGpuSnapshot(library_->api());
      if (!s.ok()) return s.status();
      auto t = gpu::ReadGpuTelemetry(library_->api(), telemetry_api_);
      if (!t.ok()) return t.status();
      snap = std::move(s).value();
      tel = std::move(t).value();
    }
    return Render(snap, tel);
  }

 private:
  Exposition Render(const gpu::GpuSnapshot& snap, const gpu::GpuTelemetry& tel) {
    Exposition e;
    auto now = std::chrono::steady_clock::now();
    std::string hostname = NodeHostname(host_);
    for (const auto& d : snap.devices) {
      Labels l = {{"gpu", std::to_string(d.index)},
                  {"UUID", d.uuid},
                  {"pci_bus_id", d.pci_bus_id},
                  {"device", "nvidia" + std::to_string(d.index)},
                  {"modelName", d.name},
                  {kHostLabel, hostname}};
      // Divided, not multiplied by a reciprocal: 68000 mW is 68 W exactly, not 68.00000000000001.
      auto gauge = [&](const char* n, const char* help, auto field, double divisor = 1) {
        if (field.has())
          e.Add(n, MetricType::kGauge, help, l, static_cast<double>(*field) / divisor);
      };
      auto counter = [&](const char* n, const char* help, auto field) {
        if (field.has()) e.Add(n, MetricType::kCounter, help, l, static_cast<double>(*field));
      };
      gauge("DCGM_FI_DEV_SM_CLOCK", "SM clock frequency (in MHz).", d.sm_clock_mhz);
      gauge("DCGM_FI_DEV_MEM_CLOCK", "Memory clock frequency (in MHz).", d.mem_clock_mhz);
      gauge("DCGM_FI_DEV_GPU_TEMP", "GPU temperature (in C).", d.temperature_c);
      gauge("DCGM_FI_DEV_POWER_USAGE", "Power draw (in W).", d.power_usage_mw, 1000);
      gauge("DCGM_FI_DEV_POWER_MGMT_LIMIT", "Enforced power limit (in W).",
            d.enforced_power_limit_mw, 1000);
      gauge("DCGM_FI_DEV_CLOCK_THROTTLE_REASONS",
            "Clock-event (throttle) reasons, the NVML bitmask (1 idle, 4 SW power cap, 8 HW "
            "slowdown, 32 SW thermal, 64 HW thermal, 128 power brake).",
            d.clocks_event_reasons);
      if (d.clocks_event_reasons.has()) {
        for (const auto& r : kReasons) {
          Labels lr = l;
          lr.emplace_back("reason", r.name);
          e.Add("yardstick_gpu_clock_event_active", MetricType::kGauge,
                "1 while NVML reports this clock-event (throttle) reason for the GPU, else 0", lr,
                (*d.clocks_event_reasons & r.bit) ? 1 : 0);
        }
      }
      counter("DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "Total number of single-bit volatile ECC errors.",
              d.ecc_volatile_corrected);
      counter("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "Total number of double-bit volatile ECC errors.",
              d.ecc_volatile_uncorrected);
      counter("DCGM_FI_DEV_ECC_SBE_AGG_TOTAL", "Total number of single-bit persistent ECC errors.",
              d.ecc_aggregate_corrected);
      counter("DCGM_FI_DEV_ECC_DBE_AGG_TOTAL", "Total number of double-bit persistent ECC errors.",
              d.ecc_aggregate_uncorrected);
      counter("DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "Total number of PCIe retries.",
              d.pcie_replay_counter);
      counter("DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS",
              "Number of remapped rows for correctable errors", d.remapped_rows_correctable);
      counter("DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS",
              "Number of remapped rows for uncorrectable errors", d.remapped_rows_uncorrectable);
      gauge("DCGM_FI_DEV_ROW_REMAP_FAILURE", "Whether remapping of rows has failed",
            d.remapped_rows_failure);
      RenderNvLinks(d, l, e);

      const gpu::DeviceTelemetry* t = nullptr;
      for (const auto& dt : tel.devices) {
        if (dt.index == d.index) t = &dt;
      }
      if (t == nullptr) continue;
      gauge("DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %).", t->gpu_utilization_pct);
      gauge("DCGM_FI_DEV_MEM_COPY_UTIL", "Memory utilization (in %).", t->memory_utilization_pct);
      gauge("DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB).", t->memory_used_bytes, kMiB);
      gauge("DCGM_FI_DEV_FB_FREE", "Framebuffer memory free (in MiB).", t->memory_free_bytes, kMiB);
      gauge("DCGM_FI_DEV_MEMORY_TEMP", "Memory temperature (in C).", t->memory_temperature_c);
      RenderNvLinkTraffic(d.index, *t, l, now, e);
    }
    return e;
  }

  static void RenderNvLinks(const gpu::GpuDevice& d, const Labels& l, Exposition& e) {
    if (d.nvlinks.empty()) return;
    // Totals over the links that answered; a link that did not answer is left out, not zero.
    std::optional<uint64_t> crc_flit, crc_data, replay, recovery;
    auto add = [](std::optional<uint64_t>& sum, const Field<uint64_t>& f) {
      if (f.has()) sum = sum.value_or(0) + *f;
    };
    for (const auto& link : d.nvlinks) {
      add(crc_flit, link.crc_flit_errors);
      add(crc_data, link.crc_data_errors);
      add(replay, link.replay_errors);
      add(recovery, link.recovery_errors);
      if (link.active.has()) {
        Labels ll = l;
        ll.emplace_back("link", std::to_string(link.link));
        e.Add("yardstick_nvlink_link_active", MetricType::kGauge,
              "1 when the NVLink link is active, 0 when it is down", ll, *link.active ? 1 : 0);
      }
    }
    auto total = [&](const char* n, const char* help, const std::optional<uint64_t>& v) {
      if (v) e.Add(n, MetricType::kCounter, help, l, static_cast<double>(*v));
    };
    total("DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL",
          "Total number of NVLink flow-control CRC errors.", crc_flit);
    total("DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL",
          "Total number of NVLink data CRC errors.", crc_data);
    total("DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL", "Total number of NVLink retries.", replay);
    total("DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL",
          "Total number of NVLink recovery errors.", recovery);
  }

  // Counters as bytes, and their rate over the interval since the previous reading (no rate on
  // the first reading or after a counter went backwards: a driver reload).
  void RenderNvLinkTraffic(int index, const gpu::DeviceTelemetry& t, const Labels& l,
                           std::chrono::steady_clock::time_point now, Exposition& e) {
    const std::pair<const char*, const Field<uint64_t>*> dirs[] = {{"tx", &t.nvlink_data_tx_kib},
                                                                   {"rx", &t.nvlink_data_rx_kib}};
    for (const auto& [dir, field] : dirs) {
      if (!field->has()) continue;
      Labels ld = l;
      ld.emplace_back("direction", dir);
      double bytes = static_cast<double>(**field) * 1024;
      e.Add("yardstick_nvlink_data_bytes_total", MetricType::kCounter,
            "NVLink data payload since the driver loaded, all links of the GPU (NVML "
            "NVLINK_THROUGHPUT_DATA), bytes",
            ld, bytes);
      std::string key = std::to_string(index) + dir;
      auto prev = previous_.find(key);
      if (prev != previous_.end() && bytes >= prev->second.second) {
        double dt = std::chrono::duration<double>(now - prev->second.first).count();
        if (dt > 0) {
          e.Add("yardstick_nvlink_throughput_bytes_per_second", MetricType::kGauge,
                "NVLink data throughput of the GPU over the last collection interval, bytes/s", ld,
                (bytes - prev->second.second) / dt);
        }
      }
      previous_[key] = {now, bytes};
    }
  }

  const host::Host& host_;
  std::string nvml_state_;
  Status recorded_error_;  // the recorded state under the root is not a regular file
  std::optional<gpu::nvml::Library> library_;
  std::optional<gpu::nvml::Session> session_;
  std::optional<gpu::DynamicLibrary> telemetry_lib_;
  gpu::nvml::TelemetryApi telemetry_api_;
  std::map<std::string, std::pair<std::chrono::steady_clock::time_point, double>> previous_;
};

}  // namespace

std::unique_ptr<Collector> MakeGpuCollector(const host::Host& host, std::string nvml_state) {
  return std::make_unique<GpuCollector>(host, std::move(nvml_state));
}

}  // namespace ys::serve
