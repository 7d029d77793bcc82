#include "serve/exporter_server.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <httplib.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <chrono>
#include <map>
#include <nlohmann/json.hpp>

#include "core/document_schemas.h"
#include "core/json_fields.h"
#include "core/json_schema.h"

namespace ys::serve {

namespace {

bool IsLoopback(const std::string& host) {
  in_addr v4{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (inet_pton(AF_INET6, host.c_str(), &v6) == 1) return IN6_IS_ADDR_LOOPBACK(&v6);
  return false;
}

}  // namespace

Result<ListenAddress> ParseListenAddress(std::string_view text) {
  std::string t(text);
  auto bad = [&](const std::string& why) {
    return Status::Invalid("--listen \"" + t + "\": " + why +
                           " (expected HOST:PORT, e.g. 127.0.0.1:9400 or [::1]:9400)");
  };
  ListenAddress a;
  std::string port;
  if (!t.empty() && t[0] == '[') {
    size_t close = t.find(']');
    if (close == std::string::npos || close + 1 >= t.size() || t[close + 1] != ':') {
      return bad("an IPv6 address must be [ADDRESS]:PORT");
    }
    a.host = t.substr(1, close - 1);
    port = t.substr(close + 2);
  } else {
    size_t colon = t.rfind(':');
    if (colon == std::string::npos) return bad("no port");
    a.host = t.substr(0, colon);
    port = t.substr(colon + 1);
    if (a.host.find(':') != std::string::npos) return bad("an IPv6 address needs brackets");
  }
  if (a.host == "localhost") a.host = "127.0.0.1";
  in_addr v4{};
  in6_addr v6{};
  if (inet_pton(AF_INET, a.host.c_str(), &v4) != 1 &&
      inet_pton(AF_INET6, a.host.c_str(), &v6) != 1) {
    return bad("\"" + a.host + "\" is not an IP address");
  }
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), a.port);
  if (ec != std::errc() || end != port.data() + port.size() || a.port < 1 || a.port > 65535) {
    return bad("port \"" + port + "\" is not a number from 1 to 65535");
  }
  a.loopback = IsLoopback(a.host);
  return a;
}

namespace {

// The series the live page plots, by the key each has in a GPU's entry.
constexpr std::pair<const char*, const char*> kTelemetrySeries[] = {
    {"DCGM_FI_DEV_GPU_UTIL", "util"},
    {"DCGM_FI_DEV_GPU_TEMP", "temp"},
    {"DCGM_FI_DEV_POWER_USAGE", "power"},
    {"DCGM_FI_DEV_FB_USED", "fb_used"},
    {"DCGM_FI_DEV_SM_CLOCK", "sm_clock"}};
constexpr size_t kTelemetrySeriesCount = std::size(kTelemetrySeries);

// One GPU's latest values; a series the exporter has no sample of is left out.
struct GpuTelemetry {
  std::string gpu;
  std::array<double, kTelemetrySeriesCount> values{};
  std::array<bool, kTelemetrySeriesCount> present{};
};

template <typename V>
void Fields(V& v, GpuTelemetry& g) {
  v("gpu", g.gpu);
  for (size_t i = 0; i < kTelemetrySeriesCount; ++i)
    v.optional(kTelemetrySeries[i].second, g.values[i], g.present[i]);
}

// /api/telemetry: the time and every GPU's entry, by GPU label. Only written.
struct Telemetry {
  double time = 0;
  std::vector<GpuTelemetry> gpus;
};

template <typename V>
void Fields(V& v, Telemetry& t) {
  v("time", t.time);
  v("gpus", t.gpus);
}

YS_DOCUMENT_SCHEMA("exporter_telemetry", Telemetry, "yardstick exporter /api/telemetry",
                   "The time (seconds since the epoch) and each GPU's latest readings; a "
                   "reading the exporter has no sample of is left out.");

}  // namespace

std::string TelemetryJson(const CollectorSet& collectors) {
  Telemetry t{
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count()};
  std::map<std::string, GpuTelemetry> gpus;
  auto latest = collectors.Latest("gpu");
  if (latest && latest->metrics) {
    for (size_t i = 0; i < kTelemetrySeriesCount; ++i) {
      const MetricFamily* f = latest->metrics->Find(kTelemetrySeries[i].first);
      if (f == nullptr) continue;
      for (const auto& s : f->samples) {
        for (const auto& [label, value] : s.labels) {
          if (label != "gpu") continue;
          GpuTelemetry& g = gpus[value];
          g.gpu = value;
          g.values[i] = s.value;
          g.present[i] = true;
        }
      }
    }
  }
  for (auto& [id, g] : gpus) t.gpus.push_back(std::move(g));
  return json_fields::Write(t).dump();
}

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  while (!out.empty() && out.back() == '.') out.pop_back();
  return out;
}

// The address an interface entry carries, as text; "" for other families.
std::string AddressText(const sockaddr* sa) {
  char buf[INET6_ADDRSTRLEN] = {0};
  if (sa == nullptr) return "";
  if (sa->sa_family == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(sa)->sin_addr, buf, sizeof buf);
  } else if (sa->sa_family == AF_INET6) {
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr, buf, sizeof buf);
  }
  return buf;
}

}  // namespace

std::set<std::string> AllowedHostNames(const std::string& listen_host,
                                       const std::vector<std::string>& extra) {
  std::set<std::string> names = {Lower(listen_host), "localhost", "127.0.0.1", "::1"};
  char host[256] = {0};
  if (::gethostname(host, sizeof host - 1) == 0 && host[0] != '\0') {
    std::string h = Lower(host);
    names.insert(h);
    names.insert(h.substr(0, h.find('.')));
  }
  ifaddrs* ifs = nullptr;
  if (::getifaddrs(&ifs) == 0) {
    for (ifaddrs* i = ifs; i != nullptr; i = i->ifa_next) {
      std::string a = AddressText(i->ifa_addr);
      if (!a.empty()) names.insert(Lower(a.substr(0, a.find('%'))));
    }
    ::freeifaddrs(ifs);
  }
  for (const auto& e : extra) names.insert(Lower(e));
  return names;
}

bool HostHeaderAllowed(std::string_view header, const std::set<std::string>& allowed) {
  if (header.empty()) return true;  // HTTP/1.0 without Host: no browser sends that
  std::string_view name = header, port;
  if (header.front() == '[') {
    size_t close = header.find(']');
    if (close == std::string_view::npos) return false;
    name = header.substr(1, close - 1);
    std::string_view rest = header.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return false;
      port = rest.substr(1);
      if (port.empty()) return false;
    }
  } else if (size_t colon = header.find(':'); colon != std::string_view::npos) {
    name = header.substr(0, colon);
    port = header.substr(colon + 1);
    if (port.empty()) return false;
  }
  int n = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), n);
  if (!port.empty() &&
      (ec != std::errc() || end != port.data() + port.size() || n < 1 || n > 65535))
    return false;
  return !name.empty() && allowed.count(Lower(name)) > 0;
}

struct ExporterServer::Impl {
  httplib::Server server;
  std::vector<std::string> allow_hosts;
  std::set<std::string> allowed;  // set when bound, read by the server's threads after
};

ExporterServer::ExporterServer(const CollectorSet& collectors, std::string page,
                               std::vector<std::string> allow_hosts, HttpLimits limits)
    : impl_(std::make_unique<Impl>()) {
  impl_->allow_hosts = std::move(allow_hosts);
  auto& s = impl_->server;
  const int threads = std::max(1, limits.threads);
  s.new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
  s.set_read_timeout(limits.timeout_s, 0);
  s.set_write_timeout(5, 0);
  s.set_keep_alive_timeout(limits.timeout_s);
  s.set_keep_alive_max_count(1);
  s.set_payload_max_length(0);
  // cpp-httplib's default also sets SO_REUSEPORT, which lets a second process bind the same
  // address and take half of the connections; SO_REUSEADDR alone only allows a restart while old
  // connections linger in TIME_WAIT.
  s.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  s.set_pre_routing_handler([impl = impl_.get()](const httplib::Request& req,
                                                 httplib::Response& res) {
    if (!HostHeaderAllowed(req.get_header_value("Host"), impl->allowed)) {
      res.status = 421;  // Misdirected Request
      res.set_content("Host header is not a name of this exporter (see --allow-host)\n",
                      "text/plain");
      return httplib::Server::HandlerResponse::Handled;
    }
    bool body = req.has_header("Transfer-Encoding") ||
                (req.has_header("Content-Length") && req.get_header_value("Content-Length") != "0");
    if (body || (req.method != "GET" && req.method != "HEAD")) {
      res.status = body ? 413 : 405;
      res.set_header("Connection", "close");
      res.set_content(body ? "request bodies are not accepted\n" : "only GET\n", "text/plain");
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
  s.Get("/metrics", [&collectors](const httplib::Request&, httplib::Response& res) {
    res.set_content(collectors.Scrape().Text(), "text/plain; version=0.0.4; charset=utf-8");
  });
  s.Get("/api/telemetry", [&collectors](const httplib::Request&, httplib::Response& res) {
    res.set_header("Cache-Control", "no-store");
    res.set_content(TelemetryJson(collectors), "application/json");
  });
  s.Get("/", [page = std::move(page)](const httplib::Request&, httplib::Response& res) {
    res.set_content(page, "text/html; charset=utf-8");
  });
}

ExporterServer::~ExporterServer() { Stop(); }

Status ExporterServer::Serve(const ListenAddress& a) {
  YS_RETURN_IF_ERROR(Bind(a));
  return ServeBound();
}

Status ExporterServer::Bind(const ListenAddress& a) {
  impl_->allowed = AllowedHostNames(a.host, impl_->allow_hosts);
  if (!impl_->server.bind_to_port(a.host, a.port)) {
    return Status::Io(
        fmt::format("cannot listen on {}:{}: the port is in use (another exporter?) or the "
                    "address is not one of this node's",
                    a.host, a.port));
  }
  return Status::Ok();
}

Result<int> ExporterServer::BindAnyPort(const std::string& host) {
  impl_->allowed = AllowedHostNames(host, impl_->allow_hosts);
  int port = impl_->server.bind_to_any_port(host);
  if (port <= 0) return Status::Io("cannot bind a port on " + host);
  return port;
}

Status ExporterServer::ServeBound() {
  if (!impl_->server.listen_after_bind()) return Status::Io("the HTTP server stopped on an error");
  return Status::Ok();
}

void ExporterServer::Stop() { impl_->server.stop(); }

}  // namespace ys::serve
