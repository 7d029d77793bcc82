#include "host/infiniband.h"

#include <cctype>
#include <cmath>

#include "core/text.h"

namespace ys::host {

namespace {

constexpr double kMaxRateGbps = 100000;  // 100 Tb/s: anything above is not a port rate

Status RateError(std::string_view t, std::string_view why) {
  return Status::Invalid("expected a rate like \"400 Gb/sec (4X NDR)\", got \"" +
                         std::string(t.substr(0, 60)) + "\" (" + std::string(why) + ")");
}

// Reads an optional "N: NAME" file: nullopt when absent.
Result<std::optional<NumberedState>> ReadState(const Host& host, const std::string& path) {
  auto line = host.ReadLine(path);
  if (!line.ok()) {
    if (line.status().code() == StatusCode::kNotFound) return std::optional<NumberedState>();
    return line.status();
  }
  // Empty: a read the kernel refused, recorded as an empty file: the state is unknown.
  if (line->empty()) return std::optional<NumberedState>();
  auto st = ParseNumberedState(*line);
  if (!st.ok()) return Status::Invalid(host.Resolve(path) + ": " + st.status().message());
  return std::optional<NumberedState>(*st);
}

}  // namespace

Result<IbRate> ParseIbRate(std::string_view text) {
  std::string_view t = Trim(text);
  size_t open = t.find('(');
  size_t close = t.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open ||
      close + 1 != t.size()) {
    return RateError(t, "no \"(<lanes>X <speed>)\"");
  }
  auto head = SplitWhitespace(t.substr(0, open));
  if (head.size() != 2 || head[1] != "Gb/sec") return RateError(t, "no \"<number> Gb/sec\"");
  auto gbps = ParseDouble(head[0]);
  if (!gbps || !std::isfinite(*gbps) || *gbps <= 0 || *gbps > kMaxRateGbps) {
    return RateError(t, "the Gb/s value is not a positive number");
  }
  auto inner = SplitWhitespace(t.substr(open + 1, close - open - 1));
  if (inner.empty() || inner.size() > 2 || !EndsWith(inner[0], "X")) {
    return RateError(t, "no \"<lanes>X\"");
  }
  auto width = ParseInt(inner[0].substr(0, inner[0].size() - 1));
  if (!width || (*width != 1 && *width != 2 && *width != 4 && *width != 8 && *width != 12)) {
    return RateError(t, "lanes must be 1, 2, 4, 8 or 12");
  }
  IbRate r;
  r.gbps = *gbps;
  r.width = static_cast<int>(*width);
  if (inner.size() == 2) {
    for (char c : inner[1]) {
      if (!std::isalnum(static_cast<unsigned char>(c))) return RateError(t, "bad speed name");
    }
    r.speed = std::string(inner[1]);
  }
  r.text = std::string(t);
  return r;
}

std::optional<uint64_t> IbPort::Counter(std::string_view name) const {
  for (const auto& [k, v] : counters) {
    if (k == name) return v;
  }
  return std::nullopt;
}

std::vector<std::string> ListIbDevices(const Host& host) {
  return host.ListMatching(kInfinibandClassDir, "*");
}

Result<IbPort> ReadIbPort(const Host& host, const std::string& device, int port) {
  IbPort p;
  p.device = device;
  p.port = port;
  p.dir = std::string(kInfinibandClassDir) + "/" + device + "/ports/" + std::to_string(port);

  auto state = ReadState(host, p.dir + "/state");
  if (!state.ok()) return state.status();
  p.state = *state;
  auto phys = ReadState(host, p.dir + "/phys_state");
  if (!phys.ok()) return phys.status();
  p.phys_state = *phys;

  auto rate = host.ReadLine(p.dir + "/rate");
  if (rate.ok() && rate->empty()) {
    // The kernel answers a rate query it cannot serve (a port going down, a driver without
    // it) with an error; a copy records an empty file: the rate is unknown, as if absent.
  } else if (rate.ok()) {
    auto parsed = ParseIbRate(*rate);
    if (!parsed.ok()) {
      return Status::Invalid(host.Resolve(p.dir + "/rate") + ": " + parsed.status().message());
    }
    p.rate = *parsed;
  } else if (rate.status().code() != StatusCode::kNotFound) {
    return rate.status();
  }

  if (auto ll = host.ReadLine(p.dir + "/link_layer"); ll.ok() && ll->empty()) {
    // The kernel always names the layer; an empty copy leaves it unknown: IB or RoCE.
    p.link_layer_known = false;
  } else if (ll.ok()) {
    if (*ll != "InfiniBand" && *ll != "Ethernet") {
      return Status::Invalid(host.Resolve(p.dir + "/link_layer") +
                             ": expected \"InfiniBand\" or \"Ethernet\", got \"" +
                             ll->substr(0, 40) + "\"");
    }
    p.link_layer = *ll;
  } else if (ll.status().code() != StatusCode::kNotFound) {
    return ll.status();
  }

  const std::string cdir = p.dir + "/counters";
  for (const auto& name : host.ListMatching(cdir, "*")) {
    const std::string path = cdir + "/" + name;
    auto line = host.ReadLine(path);
    if (!line.ok()) {
      // mlx5 refuses some counters on RoCE ports (EINVAL); a refused counter is not a value.
      if (line.status().code() == StatusCode::kIoError) continue;
      return line.status();
    }
    // The kernel always prints a number; an empty copy is an unknown counter, as if absent.
    if (line->empty()) continue;
    auto v = ParseUint(*line);
    if (!v) {
      return Status::Invalid(host.Resolve(path) + ": expected a counter value, got \"" +
                             line->substr(0, 40) + "\"");
    }
    p.counters.emplace_back(name, *v);
  }
  return p;
}

Result<std::vector<IbPort>> ReadIbPorts(const Host& host, const std::string& device) {
  std::vector<IbPort> out;
  const std::string dir = std::string(kInfinibandClassDir) + "/" + device + "/ports";
  for (const auto& name : host.ListMatching(dir, "*")) {
    auto n = ParseInt(name);
    if (!n || *n < 1 || *n > 255) {
      return Status::Invalid(host.Resolve(dir + "/" + name) +
                             ": expected a port number directory (1-255)");
    }
    auto p = ReadIbPort(host, device, static_cast<int>(*n));
    if (!p.ok()) return p.status();
    out.push_back(std::move(*p));
  }
  return out;
}

std::vector<std::string> IbPortNetdevs(const Host& host, const IbPort& port) {
  if (auto ndev = host.ReadLine(port.dir + "/gid_attrs/ndevs/0");
      ndev.ok() && !ndev->empty() && ndev->find('/') == std::string::npos) {
    return {*ndev};
  }
  return host.ListMatching(std::string(kInfinibandClassDir) + "/" + port.device + "/device/net",
                           "*");
}

Result<NetdevMtu> ReadIbNetdevMtu(const Host& host, const std::string& device,
                                  const std::string& netdev) {
  std::string path =
      std::string(kInfinibandClassDir) + "/" + device + "/device/net/" + netdev + "/mtu";
  if (!host.Exists(path)) path = "/sys/class/net/" + netdev + "/mtu";
  auto mtu = host.ReadInt(path);
  if (!mtu.ok()) return mtu.status();
  if (*mtu < 68 || *mtu > (1 << 20)) {
    return Status::Invalid(host.Resolve(path) + ": expected an MTU from 68 to 1048576, got " +
                           std::to_string(*mtu));
  }
  return NetdevMtu{path, *mtu};
}

bool IsIbVirtualFunction(const Host& host, const std::string& device) {
  return host.Exists(std::string(kInfinibandClassDir) + "/" + device + "/device/physfn");
}

}  // namespace ys::host
