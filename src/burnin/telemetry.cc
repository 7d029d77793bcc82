// The burn-in's telemetry sampler (telemetry.h).
#include "burnin/telemetry.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

#include "core/text.h"
#include "gpu/gpu_snapshot_json.h"
#include "gpu/nvml_api.h"
#include "gpu/nvml_reader.h"
#include "gpu/xid.h"
#include "host/edac.h"
#include "host/hwmon.h"
#include "host/kernel_log.h"
#include "host/pci_aer.h"

namespace ys::burnin {
namespace {

// "00000000:1B:00.0" (NVML) or "0000:1b:00" (an Xid line) -> "0000:1b:00": what an Xid names.
std::string XidAddress(std::string_view pci) {
  std::string s = ToLower(Trim(pci));
  if (auto dot = s.rfind('.'); dot != std::string::npos && dot + 3 > s.size()) s.resize(dot);
  auto parts = Split(s, ':');
  if (parts.size() != 3) return s;
  auto domain = ParseHex(parts[0]);
  if (!domain) return s;
  return fmt::format("{:04x}:{}:{}", *domain, parts[1], parts[2]);
}

// Machine-check reports of the kernel's mce driver.
bool IsMceLine(std::string_view text) {
  return text.find("[Hardware Error]") != std::string_view::npos ||
         text.find("Machine check events logged") != std::string_view::npos;
}

EntitySample& SampleFor(std::vector<EntitySample>& samples, const std::string& node,
                        const std::string& entity, const std::string& kind) {
  for (auto& s : samples) {
    if (s.entity == entity && s.node == node) return s;
  }
  EntitySample s;
  s.node = node;
  s.entity = entity;
  s.kind = kind;
  samples.push_back(std::move(s));
  return samples.back();
}

void AddNote(EntitySample& s, const std::string& note) {
  s.telemetry_note += (s.telemetry_note.empty() ? "" : "; ") + note;
}

template <typename T>
void AddCounter(EntitySample& s, const char* name, const gpu::Field<T>& f) {
  if (f.has()) {
    s.counters[name] = static_cast<uint64_t>(*f);
  } else {
    AddNote(s, std::string(name) + ": " + f.error);
  }
}

// Where a CPU sits: its package and core id (sysfs topology), -1 when unknown.
struct CpuPlace {
  int package = -1;
  int core = -1;
};

class Sampler final : public TelemetrySampler {
 public:
  Sampler(const host::Host& host, TelemetryOptions options)
      : host_(host), options_(std::move(options)) {}

  Status Open() {
    std::string state = options_.nvml_state;
    if (state.empty() && !host_.live()) {
      if (host_.Exists(gpu::kRecordedNvmlPath)) {
        // Resolved inside the tree: a link there to a file of this machine is not followed out.
        auto recorded = host_.RegularFilePath(gpu::kRecordedNvmlPath);
        if (!recorded.ok()) return Status::Invalid(recorded.status().message());
        state = *recorded;
      }
    }
    if (!state.empty()) {
      auto t = Timeline::Load(state);
      if (!t.ok()) return Status::Invalid(t.status().message());
      timeline_.emplace(std::move(*t));
      source_ = "recorded: " + state;
      auto first = timeline_->StateAt(0);
      if (!first.ok()) return first.status();
      for (const auto& d : first->devices) gpus_.push_back(d.index);
    } else if (!host_.live()) {
      source_ = "none: no recorded NVML state in " + host_.root();
    } else {
      OpenNvml();
    }
    for (int cpu : options_.cpus) {
      std::string dir = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
      auto package = host_.ReadInt(dir + "physical_package_id");
      auto core = host_.ReadInt(dir + "core_id");
      places_[cpu] = {package.ok() ? static_cast<int>(*package) : -1,
                      core.ok() ? static_cast<int>(*core) : -1};
    }
    // Xid lines already in the kernel log are not new.
    auto log = host::ReadKernelLog(host_, options_.kmsg_path);
    if (log.ok()) {
      for (const auto& line : *log) {
        if (auto x = gpu::ParseXidLine(line.text)) ++xid_at_open_[XidAddress(x->pci)];
      }
    }
    return Status::Ok();
  }

  const std::string& source() const override { return source_; }
  const Timeline* timeline() const override { return timeline_ ? &*timeline_ : nullptr; }
  std::vector<int> gpus() const override { return gpus_; }

  void Sample(double from_s, double at_s, std::vector<EntitySample>& samples) override {
    if (!first_from_) first_from_ = from_s;
    KernelLogView log = ReadLog(at_s);
    SampleGpus(at_s, log, samples);
    SampleCpus(samples);
    if (options_.node_wide) SampleNode(log, samples);
  }

 private:
  struct KernelLogView {
    std::string error;  // the kernel log could not be read
    uint64_t mce = 0;
    // Xid events since the sampler opened, per address ("0000:1b:00"), oldest first.
    std::map<std::string, std::vector<gpu::XidEvent>> xids;
  };

  void OpenNvml() {
    auto lib = gpu::nvml::Library::Open();
    if (!lib.ok()) {
      source_ = "none: " + lib.status().message();
      return;
    }
    library_.emplace(std::move(*lib));
    auto session = gpu::nvml::Session::Start(library_->api());
    if (!session.ok()) {
      source_ = "none: " + session.status().message();
      library_.reset();
      return;
    }
    session_.emplace(std::move(*session));
    source_ = "nvml";
    auto snap = gpu::ReadGpuSnapshot(library_->api());
    if (snap.ok()) {
      for (const auto& d : snap->devices) gpus_.push_back(d.index);
    }
  }

  KernelLogView ReadLog(double at_s) {
    KernelLogView view;
    std::map<std::string, int> skip = xid_at_open_;
    auto log = host::ReadKernelLog(host_, options_.kmsg_path);
    if (!log.ok()) {
      view.error = "kernel log: " + log.status().message();
    } else {
      for (const auto& line : *log) {
        if (IsMceLine(line.text)) ++view.mce;
        auto x = gpu::ParseXidLine(line.text);
        if (!x) continue;
        std::string address = XidAddress(x->pci);
        if (skip[address] > 0) {
          --skip[address];
          continue;
        }
        view.xids[address].push_back(*x);
      }
    }
    if (timeline_) {
      for (const std::string& text : timeline_->KmsgBetween(*first_from_, at_s)) {
        if (IsMceLine(text)) ++view.mce;
        if (auto x = gpu::ParseXidLine(text)) view.xids[XidAddress(x->pci)].push_back(*x);
      }
    }
    return view;
  }

  Result<gpu::GpuSnapshot> GpuState(double at_s) const {
    if (timeline_) return timeline_->StateAt(at_s);
    if (library_) return gpu::ReadGpuSnapshot(library_->api());
    return Status::NotFound(source_);
  }

  void SampleGpus(double at_s, KernelLogView& log, std::vector<EntitySample>& samples) {
    std::vector<int> watched = options_.gpus;
    if (watched.empty() && options_.node_wide) watched = gpus_;
    if (watched.empty()) return;
    auto snap = GpuState(at_s);
    for (int index : watched) {
      EntitySample& s = SampleFor(samples, options_.node, "gpu" + std::to_string(index), "gpu");
      if (!snap.ok()) {
        AddNote(s, "GPU state: " + snap.status().message());
        continue;
      }
      auto d = std::find_if(snap->devices.begin(), snap->devices.end(),
                            [&](const gpu::GpuDevice& g) { return g.index == index; });
      if (d == snap->devices.end()) {
        AddNote(s, "GPU " + std::to_string(index) + " not in the GPU state");
        continue;
      }
      if (d->temperature_c.has()) {
        s.temp_c = *d->temperature_c;
      } else {
        AddNote(s, "temperature: " + d->temperature_c.error);
      }
      if (d->clocks_event_reasons.has()) {
        s.clocks_event_reasons = *d->clocks_event_reasons;
      } else {
        AddNote(s, "clocks_event_reasons: " + d->clocks_event_reasons.error);
      }
      // Aggregate ECC counts survive a driver reload (volatile ones reset), so a resumed
      // burn-in does not see them fall.
      AddCounter(s, "ecc_corrected",
                 d->ecc_aggregate_corrected.has() ? d->ecc_aggregate_corrected
                                                  : d->ecc_volatile_corrected);
      AddCounter(s, "ecc_uncorrected",
                 d->ecc_aggregate_uncorrected.has() ? d->ecc_aggregate_uncorrected
                                                    : d->ecc_volatile_uncorrected);
      AddCounter(s, "remapped_rows_uncorrectable", d->remapped_rows_uncorrectable);
      AddCounter(s, "remap_failure", d->remapped_rows_failure);
      AddCounter(s, "pcie_replay", d->pcie_replay_counter);
      AddLinkCounters(*d, s);
      if (!log.error.empty()) {
        AddNote(s, "xid: " + log.error);
      } else {
        const auto& events = log.xids[XidAddress(d->pci_bus_id)];
        s.counters["xid"] = events.size();
        size_t& seen = xid_reported_[index];
        for (size_t i = seen; i < events.size(); ++i) {
          s.events.push_back(fmt::format("Xid {} at {}: {}", events[i].xid, events[i].pci,
                                         gpu::XidMeaning(events[i].xid)));
        }
        seen = std::max(seen, events.size());
      }
    }
  }

  static void AddLinkCounters(const gpu::GpuDevice& d, EntitySample& s) {
    if (d.nvlinks.empty()) return;  // no NVLink: no link counters, nothing missing
    uint64_t replay = 0, recovery = 0, crc = 0, down = 0;
    std::string missing;
    for (const auto& l : d.nvlinks) {
      replay += l.replay_errors.value.value_or(0);
      recovery += l.recovery_errors.value.value_or(0);
      crc += l.crc_flit_errors.value.value_or(0) + l.crc_data_errors.value.value_or(0);
      if (l.active.has() && !*l.active) ++down;
      if (!l.active.has() && missing.empty()) {
        missing = "nvlink " + std::to_string(l.link) + " state: " + l.active.error;
      }
    }
    s.counters["nvlink_replay"] = replay;
    s.counters["nvlink_recovery"] = recovery;
    s.counters["nvlink_crc"] = crc;
    s.counters["nvlink_down"] = down;
    if (!missing.empty()) AddNote(s, missing);
  }

  void SampleCpus(std::vector<EntitySample>& samples) {
    if (options_.cpus.empty()) return;
    host::HwmonScan scan = host::ReadHwmonTemps(host_);
    // coretemp: per core, keyed (package, core id); k10temp: per package (its Tctl).
    std::map<std::pair<int, int>, double> core_temp;
    std::map<int, double> package_temp;
    int coretemp_chips = 0, k10temp_chips = 0;
    std::string last_hwmon;
    std::map<std::string, int> chip_package;  // hwmon -> package
    for (const auto& t : scan.temps) {
      if (t.chip == "coretemp" && StartsWith(t.label, "Package id ")) {
        if (auto p = ParseInt(std::string_view(t.label).substr(11))) chip_package[t.hwmon] = *p;
      }
    }
    for (const auto& t : scan.temps) {
      bool new_chip = t.hwmon != last_hwmon;
      last_hwmon = t.hwmon;
      if (t.chip == "coretemp") {
        if (new_chip) ++coretemp_chips;
        int package = chip_package.contains(t.hwmon) ? chip_package[t.hwmon] : coretemp_chips - 1;
        if (StartsWith(t.label, "Core ")) {
          if (auto c = ParseInt(std::string_view(t.label).substr(5))) {
            core_temp[{package, static_cast<int>(*c)}] = t.celsius;
          }
        }
      } else if (t.chip == "k10temp") {
        if (new_chip) ++k10temp_chips;
        if (t.label == "Tctl" || (t.label == "Tdie" && !package_temp.contains(k10temp_chips - 1))) {
          package_temp[k10temp_chips - 1] = t.celsius;
        }
      }
    }
    for (int cpu : options_.cpus) {
      EntitySample& s = SampleFor(samples, options_.node, "cpu" + std::to_string(cpu), "cpu");
      const CpuPlace& place = places_[cpu];
      if (auto it = core_temp.find({place.package, place.core}); it != core_temp.end()) {
        s.temp_c = it->second;
      } else if (auto p = package_temp.find(place.package); p != package_temp.end()) {
        s.temp_c = p->second;
        AddNote(s, fmt::format("k10temp Tctl is per package: package {}'s reading", place.package));
      } else if (place.package < 0 || place.core < 0) {
        AddNote(s, "no temperature: cpu" + std::to_string(cpu) + " has no sysfs topology");
      } else {
        AddNote(s, fmt::format("no hwmon sensor for cpu{} (coretemp Core {} of package {}, or "
                               "k10temp)",
                               cpu, place.core, place.package));
      }
      auto throttle = host::ReadThermalThrottleCount(host_, cpu);
      if (throttle.ok()) {
        s.counters["thermal_throttle"] = *throttle;
      } else {
        AddNote(s, "thermal_throttle: " + throttle.status().message());
      }
    }
  }

  void SampleNode(const KernelLogView& log, std::vector<EntitySample>& samples) {
    EntitySample& s = SampleFor(samples, options_.node, "node", "node");
    auto edac = host::ReadEdacCounts(host_);
    if (edac.ok()) {
      s.counters["edac_ce"] = edac->ce;
      s.counters["edac_ue"] = edac->ue;
    } else {
      AddNote(s, "edac: " + edac.status().message());
    }
    uint64_t aer[3] = {0, 0, 0};
    bool any_aer = false;
    std::string aer_error;
    constexpr std::string_view kPci = "/sys/bus/pci/devices";
    for (const std::string& dev : host_.ListMatching(kPci, "*")) {
      auto files = host::ReadAerCounters(host_, std::string(kPci) + "/" + dev);
      if (!files.ok()) {
        if (aer_error.empty()) aer_error = files.status().message();
        continue;
      }
      for (const auto& f : *files) {
        aer[static_cast<int>(f.kind)] += f.counts.total;
        any_aer = true;
      }
    }
    if (any_aer) {
      s.counters["aer_correctable"] = aer[static_cast<int>(host::AerKind::kCorrectable)];
      s.counters["aer_nonfatal"] = aer[static_cast<int>(host::AerKind::kNonFatal)];
      s.counters["aer_fatal"] = aer[static_cast<int>(host::AerKind::kFatal)];
    } else {
      AddNote(s, "aer: no PCIe AER counters under " + host_.Resolve(kPci));
    }
    if (!aer_error.empty()) AddNote(s, "aer: " + aer_error);
    if (log.error.empty()) {
      s.counters["mce"] = log.mce;
    } else {
      AddNote(s, "mce: " + log.error);
    }
  }

  const host::Host host_;  // a copy: the caller's may be a temporary
  const TelemetryOptions options_;
  std::string source_;
  std::optional<Timeline> timeline_;
  std::optional<gpu::nvml::Library> library_;
  std::optional<gpu::nvml::Session> session_;
  std::vector<int> gpus_;
  std::map<int, CpuPlace> places_;
  std::map<std::string, int> xid_at_open_;
  std::map<int, size_t> xid_reported_;
  std::optional<double> first_from_;
};

}  // namespace

Result<std::unique_ptr<TelemetrySampler>> TelemetrySampler::Open(const host::Host& host,
                                                                 const TelemetryOptions& options) {
  auto sampler = std::make_unique<Sampler>(host, options);
  YS_RETURN_IF_ERROR(sampler->Open());
  return std::unique_ptr<TelemetrySampler>(std::move(sampler));
}

}  // namespace ys::burnin
