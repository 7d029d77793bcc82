// ib.ports: state, physical state, rate and width, error counters of every InfiniBand and RoCE
// port, and the netdev MTU of RoCE ports (reference: docs/node-checks.md §rdma; kernel
// Documentation/ABI/stable/sysfs-class-infiniband).
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "checks/check.h"
#include "core/text.h"
#include "host/infiniband.h"

namespace ys::checks {
namespace {

constexpr const char* kIbPortsReference =
    "docs/node-checks.md §rdma; Documentation/ABI/stable/sysfs-class-infiniband";
constexpr int kFullWidth = 4;          // lanes of a full-width (4X) HCA port
constexpr int64_t kRoceMinMtu = 4200;  // IB MTU 4096 plus RoCE headers

// Error counters of the PortCounters attribute and the width of each (the value sticks at the
// maximum when it overflows). Congestion counters such as port_xmit_wait are not errors.
struct ErrorCounter {
  const char* name;
  int bits;
};
constexpr ErrorCounter kErrorCounters[] = {
    {"symbol_error", 16},
    {"port_rcv_errors", 16},
    {"link_downed", 8},
    {"link_error_recovery", 8},
    {"local_link_integrity_errors", 4},
    {"port_rcv_remote_physical_errors", 16},
    {"excessive_buffer_overrun_errors", 4},
    {"port_xmit_discards", 16},
};

const char* PhysStateMeaning(int n) {
  switch (n) {
    case 1:
      return "Sleep: the port is powered down";
    case 2:
      return "Polling: no signal from the peer (cable unplugged or faulty, optic dead, or "
             "the switch port is down)";
    case 3:
      return "Disabled: the port was disabled by software on this side or the switch";
    case 4:
      return "PortConfigurationTraining: link training has not completed";
    case 6:
      return "LinkErrorRecovery: the link is recovering from errors";
    case 7:
      return "Phy Test: the port is in a physical test mode";
  }
  return "not LinkUp";
}

bool InScope(const std::vector<std::string>& intended, const host::IbPort& p) {
  if (intended.empty()) return true;
  for (const auto& h : intended) {
    if (h == p.device || h == p.device + ":" + std::to_string(p.port)) return true;
  }
  return false;
}

std::string LinkLayerText(const host::IbPort& p) {
  if (!p.link_layer.empty()) return p.link_layer;
  return p.link_layer_known ? "link_layer absent"
                            : "link_layer empty: InfiniBand or RoCE unknown, width and RoCE MTU "
                              "not judged";
}

std::string StateText(const std::optional<host::NumberedState>& s) {
  return s ? std::to_string(s->number) + ": " + s->name : std::string("absent");
}

class IbPortsCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    const host::Host& h = ctx.host();
    const auto& want = ctx.expect().devices;
    if (!h.IsDirectory(host::kInfinibandClassDir)) {
      return CheckResult::Skip(h.Resolve(host::kInfinibandClassDir) +
                               " is absent: no InfiniBand/RoCE device (no RDMA NIC, or its driver, "
                               "e.g. mlx5_ib, is not loaded)");
    }
    std::vector<std::string> devices = host::ListIbDevices(h);
    if (devices.empty()) {
      return CheckResult::Skip(h.Resolve(host::kInfinibandClassDir) + " has no RDMA device");
    }
    CheckResult r;
    int checked = 0;
    for (const auto& dev : devices) {
      auto ports = host::ReadIbPorts(h, dev);
      if (!ports.ok()) return CheckResult::Error(ports.status());
      for (const auto& p : *ports) {
        if (!InScope(want.intended_hcas, p)) {
          r.Note(p.Entity(), "not in site devices.intended_hcas: not checked");
          continue;
        }
        ++checked;
        r.Note(p.Entity(), StateText(p.state) + ", " + StateText(p.phys_state) + ", " +
                               (p.rate ? p.rate->text : std::string("rate absent")) + ", " +
                               LinkLayerText(p));
        CheckState(h, p, r);
        bool up = p.state && p.state->number == host::kIbPortStateActive && p.phys_state &&
                  p.phys_state->number == host::kIbPhysStateLinkUp;
        if (up) CheckRate(p, want.min_link_rate_gbps, r);
        CheckCounters(p, r);
        Status st = CheckRoceMtu(h, p, r);
        if (!st.ok()) return CheckResult::Error(st);
      }
    }
    if (checked == 0) {
      return CheckResult::Skip("no port of " + std::to_string(devices.size()) +
                               " RDMA devices is in site devices.intended_hcas");
    }
    if (r.findings.empty()) {
      r.summary = std::to_string(checked) + (checked == 1 ? " port" : " ports") +
                  " ACTIVE and LinkUp at full width, no error counts";
    }
    return r;
  }

 private:
  static void CheckState(const host::Host& h, const host::IbPort& p, CheckResult& r) {
    const std::string entity = p.Entity();
    if (p.state && p.state->number != host::kIbPortStateActive) {
      bool init =
          p.state->number == host::kIbPortStateInit && p.link_layer_known && !p.IsEthernet();
      std::string msg = "port is " + StateText(p.state) + ", not 4: ACTIVE";
      if (init) {
        msg += ": the link is up but no subnet manager has configured the port";
      } else if (p.state->number == 1) {
        msg += ": no usable link";
      } else if (p.state->number == 3) {
        msg += ": the subnet manager configured the port but has not activated it";
      }
      Finding f = MakeFinding("YS-IB-001", entity, msg);
      f.evidence = {{p.dir + "/state", StateText(p.state)},
                    {p.dir + "/phys_state", StateText(p.phys_state)}};
      if (auto sm = h.ReadLine(p.dir + "/sm_lid"); sm.ok())
        f.evidence.emplace_back(p.dir + "/sm_lid", *sm);
      f.fix = init ? "Start or check the subnet manager: `systemctl status opensm` (or the UFM "
                     "subnet manager) on the SM host, `sminfo` to see whether one answers; then "
                     "`ibstat " +
                         p.device + " " + std::to_string(p.port) + "`"
                   : "Check the cable/optic and the switch port: `ibstat " + p.device + " " +
                         std::to_string(p.port) + "`, `mlxlink -d " + p.device + " -p " +
                         std::to_string(p.port) +
                         "`; reseat or replace the cable/optic; for "
                         "InfiniBand also check the subnet manager (opensm / UFM)";
      f.reference = kIbPortsReference;
      r.Add(std::move(f));
    }
    if (p.phys_state && p.phys_state->number != host::kIbPhysStateLinkUp) {
      Finding f = MakeFinding("YS-IB-002", entity,
                              "physical link is " + StateText(p.phys_state) +
                                  ", not 5: LinkUp: " + PhysStateMeaning(p.phys_state->number));
      f.evidence = {{p.dir + "/phys_state", StateText(p.phys_state)}};
      f.fix = "Reseat or replace the cable/optic and check the switch port is enabled; `ibstat " +
              p.device + "`, `mlxlink -d " + p.device + " -p " + std::to_string(p.port) +
              "` (physical state, cable info, BER); `ibportstate` to enable a disabled port";
      f.reference = kIbPortsReference;
      r.Add(std::move(f));
    }
  }

  static void CheckRate(const host::IbPort& p, std::optional<double> min_gbps, CheckResult& r) {
    if (!p.rate) return;
    const auto& rate = *p.rate;
    bool below_min = min_gbps && rate.gbps < *min_gbps;
    // A port the site declared fast enough may be split by design (NDR200 on 2X); on Ethernet the
    // lane count follows the Ethernet mode (100GbE as 2X HDR), so width is judged on IB only (not
    // on a port whose link_layer is empty: it may be RoCE).
    bool narrow = p.link_layer_known && !p.IsEthernet() && rate.width < kFullWidth &&
                  !(min_gbps && !below_min);
    if (!below_min && !narrow) return;
    std::string msg = "port runs at " + rate.text;
    if (below_min) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%g", *min_gbps);
      msg += ", below the site minimum of " + std::string(buf) + " Gb/s";
    }
    if (narrow) {
      msg += std::string(below_min ? ";" : ":") + " degraded width " + std::to_string(rate.width) +
             "X of " + std::to_string(kFullWidth) + "X lanes";
    }
    Finding f = MakeFinding("YS-IB-003", p.Entity(), msg);
    f.evidence = {{p.dir + "/rate", rate.text}, {p.dir + "/link_layer", p.link_layer}};
    if (min_gbps) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%g", *min_gbps);
      f.evidence.emplace_back("site.devices.min_link_rate_gbps", buf);
    }
    f.fix =
        "Reseat or replace the cable/optic and check the switch port's speed and width "
        "configuration; `ibstat " +
        p.device + " " + std::to_string(p.port) +
        "` (Rate), "
        "`mlxlink -d " +
        p.device + " -p " + std::to_string(p.port) +
        "` (enabled vs active width and speed), `ibdiagnet` for the fabric view";
    f.reference = kIbPortsReference;
    r.Add(std::move(f));
  }

  static void CheckCounters(const host::IbPort& p, CheckResult& r) {
    Finding f = MakeFinding("YS-IB-004", p.Entity(), "");
    std::string listed;
    bool saturated = false;
    for (const auto& c : kErrorCounters) {
      auto v = p.Counter(c.name);
      if (!v || *v == 0) continue;
      bool at_max = *v == (uint64_t{1} << c.bits) - 1;
      saturated |= at_max;
      std::string shown = std::to_string(*v) + (at_max ? " (saturated)" : "");
      f.evidence.emplace_back(p.dir + "/counters/" + c.name, shown);
      listed += (listed.empty() ? "" : ", ") + std::string(c.name) + "=" + shown;
    }
    if (listed.empty()) return;
    f.message = "error counters non-zero: " + listed +
                " (counts since the last reset, a single read cannot tell a rate)";
    if (saturated) f.message += "; a saturated counter hides the true count";
    const std::string dp = p.device + " -P " + std::to_string(p.port);
    f.fix = "Read again after load (`perfquery -x -C " + dp +
            "`, or these files): if the counts "
            "grow, reseat or replace the cable/optic and check the switch port; `mlxlink -d " +
            p.device + " -p " + std::to_string(p.port) +
            "` shows BER and FEC, `ibdiagnet` the "
            "fabric; `perfquery -R -C " +
            dp + "` resets the counters for a fresh count";
    f.reference = kIbPortsReference;
    r.Add(std::move(f));
  }

  static Status CheckRoceMtu(const host::Host& h, const host::IbPort& p, CheckResult& r) {
    if (!p.IsEthernet()) return {};
    for (const auto& netdev : host::IbPortNetdevs(h, p)) {
      auto mtu = host::ReadIbNetdevMtu(h, p.device, netdev);
      if (!mtu.ok()) {
        if (mtu.status().code() == StatusCode::kNotFound) continue;
        return mtu.status();
      }
      if (mtu->mtu >= kRoceMinMtu) continue;
      Finding f = MakeFinding("YS-IB-005", p.Entity(),
                              "RoCE netdev " + netdev + " has MTU " + std::to_string(mtu->mtu) +
                                  ": below " + std::to_string(kRoceMinMtu) +
                                  ", RDMA runs with a 1024- or 2048-byte IB MTU instead of 4096");
      f.evidence = {{mtu->path, std::to_string(mtu->mtu)}, {p.dir + "/link_layer", p.link_layer}};
      f.fix = "ip link set " + netdev +
              " mtu 9000 (and persist it in netplan/NetworkManager); the "
              "switch ports must allow jumbo frames too";
      f.reference = kIbPortsReference;
      r.Add(std::move(f));
    }
    return {};
  }
};

}  // namespace

YS_REGISTER(IbPortsCheck,
            {.id = "ib.ports",
             .summary = "InfiniBand/RoCE port state, physical state, rate and width, error "
                        "counters, and the MTU of RoCE netdevs.",
             .needs = {},
             .codes = {{"YS-IB-001", Severity::kFail, "port not ACTIVE"},
                       {"YS-IB-002", Severity::kFail, "port physical state not LinkUp"},
                       {"YS-IB-003", Severity::kFail, "port rate below the site minimum"},
                       {"YS-IB-004", Severity::kWarn, "port error counters non-zero"},
                       {"YS-IB-005", Severity::kWarn,
                        "RoCE interface MTU too small for 4096-byte IB MTU"}}})

}  // namespace ys::checks
