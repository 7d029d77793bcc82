// InfiniBand and RoCE ports from sysfs: /sys/class/infiniband/<dev>/ports/<p>/{state,
// phys_state,rate,link_layer,counters/*} and the netdev of the device's PCI function
// (reference: docs/node-checks.md §rdma; kernel Documentation/ABI/stable/sysfs-class-infiniband).
//
// ParseIbRate is a pure function on text; the readers go through Host, so they replay against a
// recorded tree. A file that is absent is left unset; a file that is present but malformed is an
// Invalid status naming the resolved path and what was expected.
#ifndef YARDSTICK_HOST_INFINIBAND_H_
#define YARDSTICK_HOST_INFINIBAND_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"
#include "host/host.h"
#include "host/procfs.h"

namespace ys::host {

inline constexpr const char* kInfinibandClassDir = "/sys/class/infiniband";
inline constexpr int kIbPortStateActive = 4;  // "4: ACTIVE"
inline constexpr int kIbPortStateInit = 2;    // "2: INIT": link up, no subnet manager yet
inline constexpr int kIbPhysStateLinkUp = 5;  // "5: LinkUp"

// A port's `rate`: "400 Gb/sec (4X NDR)" -> {400, 4, "NDR"}; "2.5 Gb/sec (1X SDR)" ->
// {2.5, 1, "SDR"}. The kernel prints "<Gb/s> Gb/sec (<lanes>X <speed>)"; the speed name may be
// missing on old kernels ("10 Gb/sec (4X)"), which gives an empty `speed`.
struct IbRate {
  double gbps = 0;
  int width = 0;      // lanes: 1, 2, 4, 8 or 12
  std::string speed;  // "SDR", "DDR", "QDR", "FDR10", "FDR", "EDR", "HDR", "NDR", "XDR"
  std::string text;   // as read, trimmed
};
Result<IbRate> ParseIbRate(std::string_view text);

struct IbPort {
  std::string device;                  // "mlx5_0"
  int port = 0;                        // 1-based
  std::string dir;                     // "/sys/class/infiniband/mlx5_0/ports/1"
  std::optional<NumberedState> state;  // nullopt when the file is absent
  std::optional<NumberedState> phys_state;
  std::optional<IbRate> rate;
  std::string link_layer;        // "InfiniBand", "Ethernet" (RoCE); "" when absent or empty
  bool link_layer_known = true;  // false: link_layer is empty, IB or RoCE is unknown
  // counters/<name> -> value, in name order; counters the driver refuses to read (EINVAL on
  // some RoCE ports) and empty counter files are left out.
  std::vector<std::pair<std::string, uint64_t>> counters;

  std::string Entity() const { return device + "/" + std::to_string(port); }
  bool IsEthernet() const { return link_layer == "Ethernet"; }
  std::optional<uint64_t> Counter(std::string_view name) const;
};

// Device names under /sys/class/infiniband, naturally sorted; empty when the class is absent.
std::vector<std::string> ListIbDevices(const Host& host);
// One port, fully read.
Result<IbPort> ReadIbPort(const Host& host, const std::string& device, int port);
// Every port of a device, in port order. A port directory whose name is not a number is Invalid.
Result<std::vector<IbPort>> ReadIbPorts(const Host& host, const std::string& device);

// The network interfaces of a port: the netdev of its GID 0 (ports/<p>/gid_attrs/ndevs/0) when
// the kernel gives one, else those of the device's PCI function (<dev>/device/net/*), sorted.
std::vector<std::string> IbPortNetdevs(const Host& host, const IbPort& port);
// The MTU of a port's netdev: <dev>/device/net/<netdev>/mtu, else /sys/class/net/<netdev>/mtu
// (a RoCE bond lives only there). NotFound when neither exists, Invalid when malformed.
struct NetdevMtu {
  std::string path;  // the file read
  int64_t mtu = 0;
};
Result<NetdevMtu> ReadIbNetdevMtu(const Host& host, const std::string& device,
                                  const std::string& netdev);

// True when the RDMA device sits on an SR-IOV virtual function (<dev>/device/physfn exists).
bool IsIbVirtualFunction(const Host& host, const std::string& device);

}  // namespace ys::host

#endif  // YARDSTICK_HOST_INFINIBAND_H_
