// The infiniband and cpu_clock collectors (collectors.h).
#include <array>
#include <chrono>
#include <map>
#include <optional>
#include <string_view>

#include "host/busy_core_clock.h"
#include "host/infiniband.h"
#include "host/topology.h"
#include "serve/collectors.h"

namespace ys::serve {

namespace {

using Clock = std::chrono::steady_clock;

// The kernel's numbers for a port's states (enum ib_port_state; the IBA PortPhysicalState the
// sysfs phys_state file prints), as the state label names them; index = the number, "" where the
// number has no state.
constexpr std::array<std::string_view, 6> kLogicalStates = {"",      "down",   "init",
                                                            "armed", "active", "active_defer"};
constexpr std::array<std::string_view, 8> kPhysicalStates = {
    "", "sleep", "polling", "disabled", "training", "link_up", "link_error_recovery", "phy_test"};

// The state label of a kernel number; "" (no per-state series) for a number outside the table.
template <size_t N>
std::string_view StateName(const std::array<std::string_view, N>& names, int number) {
  return number >= 0 && static_cast<size_t>(number) < N ? names[number] : std::string_view();
}

class InfinibandCollector : public Collector {
 public:
  explicit InfinibandCollector(const host::Host& host) : host_(host) {}
  std::string_view name() const override { return "infiniband"; }

  Result<Exposition> Collect() override {
    Exposition e;
    Clock::time_point now = Clock::now();
    const std::string hostname = NodeHostname(host_);
    for (const auto& device : host::ListIbDevices(host_)) {
      auto ports = host::ReadIbPorts(host_, device);
      if (!ports.ok()) return ports.status();
      for (const auto& p : *ports) Render(p, hostname, now, e);
    }
    return e;
  }

 private:
  void Render(const host::IbPort& p, const std::string& hostname, Clock::time_point now,
              Exposition& e) {
    Labels l = {{"device", p.device}, {"port", std::to_string(p.port)}, {kHostLabel, hostname}};
    if (p.state) {
      e.Add("yardstick_ib_port_state", MetricType::kGauge,
            "Port logical state as the kernel numbers it (4 ACTIVE, 2 INIT, 1 DOWN)", l,
            p.state->number);
      AddStates(e, "yardstick_ib_port_logical_state",
                "1 for the port's logical state (down, init, armed, active, active_defer), 0 for "
                "the others",
                l, {"down", "init", "armed", "active", "active_defer"},
                StateName(kLogicalStates, p.state->number));
    }
    if (p.phys_state) {
      e.Add("yardstick_ib_port_phys_state", MetricType::kGauge,
            "Port physical state as the kernel numbers it (5 LinkUp, 3 Disabled, 2 Polling)", l,
            p.phys_state->number);
      AddStates(e, "yardstick_ib_port_physical_state",
                "1 for the port's physical state (sleep, polling, disabled, training, link_up, "
                "link_error_recovery, phy_test), 0 for the others",
                l,
                {"sleep", "polling", "disabled", "training", "link_up", "link_error_recovery",
                 "phy_test"},
                StateName(kPhysicalStates, p.phys_state->number));
    }
    if (p.rate) {
      e.Add("yardstick_ib_port_rate_gbps", MetricType::kGauge,
            "Port signalling rate, Gb/s (sysfs rate)", l, p.rate->gbps);
    }
    for (const auto& [counter, value] : p.counters) {
      Labels lc = l;
      lc.emplace_back("counter", counter);
      e.Add("yardstick_ib_port_counts_total", MetricType::kCounter,
            "A port counter from sysfs counters/, as the kernel gives it (the data counters count "
            "4-byte words)",
            lc, static_cast<double>(value));
    }
    // port_xmit_data / port_rcv_data count octets divided by 4 (IBA PortCounters).
    const std::pair<const char*, const char*> dirs[] = {{"tx", "port_xmit_data"},
                                                        {"rx", "port_rcv_data"}};
    for (const auto& [dir, counter] : dirs) {
      auto words = p.Counter(counter);
      if (!words) continue;
      Labels ld = l;
      ld.emplace_back("direction", dir);
      double bytes = static_cast<double>(*words) * 4;
      e.Add("yardstick_ib_port_data_bytes_total", MetricType::kCounter,
            "Bytes through the port (port_xmit_data or port_rcv_data times 4)", ld, bytes);
      std::string key = p.Entity() + "/" + dir;
      auto prev = previous_.find(key);
      if (prev != previous_.end() && bytes >= prev->second.second) {
        double dt = std::chrono::duration<double>(now - prev->second.first).count();
        if (dt > 0) {
          e.Add("yardstick_ib_port_throughput_bytes_per_second", MetricType::kGauge,
                "Port throughput over the last collection interval, bytes/s (from two readings "
                "of the data counters)",
                ld, (bytes - prev->second.second) / dt);
        }
      }
      previous_[key] = {now, bytes};
    }
  }

  const host::Host& host_;
  std::map<std::string, std::pair<Clock::time_point, double>> previous_;
};

constexpr int kBusyClockCores = 4;
constexpr int kBusyClockMsPerCore = 10;
constexpr double kBusyClockIntervalS = 60;

class CpuClockCollector : public Collector {
 public:
  explicit CpuClockCollector(const host::Host& host) : host_(host) {}
  std::string_view name() const override { return "cpu_clock"; }
  double min_interval_s() const override { return host_.live() ? kBusyClockIntervalS : 0; }

  Result<Exposition> Collect() override {
    std::map<int, double> mhz;
    if (host_.live()) {
      // The cores to probe, chosen once: loading the topology (hwloc) costs more than a probe.
      if (!cpus_) {
        auto topo = host::LoadTopology(host_);
        if (!topo.ok()) return topo.status();
        auto allowed = host::AllowedCpusOfThisProcess();
        if (!allowed.ok()) return allowed.status();
        cpus_ = host::SelectBusyClockCpus(*topo, *allowed, kBusyClockCores);
      }
      auto m = host::MeasureBusyClockMhz(*cpus_, kBusyClockMsPerCore);
      if (!m.ok()) return m.status();
      mhz = std::move(m).value();
    } else {
      auto text = host_.ReadFile(host::kBusyClockPath);
      if (!text.ok()) return text.status();
      auto m = host::ParseBusyClock(*text);
      if (!m.ok())
        return Status::Invalid(host_.Resolve(host::kBusyClockPath) + ": " + m.status().message());
      mhz = std::move(m).value();
    }
    Exposition e;
    const std::string hostname = NodeHostname(host_);
    for (const auto& [cpu, value] : mhz) {
      e.Add("yardstick_cpu_busy_clock_mhz", MetricType::kGauge,
            "Clock a core sustains while kept busy, MHz: a chain of dependent adds timed on one "
            "thread pinned to the core, fastest 1 ms window of 10 ms; up to 4 cores, one at a "
            "time, at most once a minute",
            {{"cpu", std::to_string(cpu)}, {kHostLabel, hostname}}, value);
    }
    return e;
  }

 private:
  const host::Host& host_;
  std::optional<CpuSet> cpus_;
};

}  // namespace

std::string NodeHostname(const host::Host& host) {
  auto h = host.ReadLine("/proc/sys/kernel/hostname");
  if (h.ok() && !h->empty()) return *h;
  return host.env().Get("HOSTNAME").value_or("");
}

std::unique_ptr<Collector> MakeInfinibandCollector(const host::Host& host) {
  return std::make_unique<InfinibandCollector>(host);
}

std::unique_ptr<Collector> MakeCpuClockCollector(const host::Host& host) {
  return std::make_unique<CpuClockCollector>(host);
}

}  // namespace ys::serve
