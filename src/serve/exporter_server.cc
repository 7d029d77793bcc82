#include "serve/exporter_server.h"

#include <fmt/format.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <arpa/inet.h>

#include <chrono>
#include <charconv>
#include <map>

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

std::string TelemetryJson(const CollectorSet& collectors) {
  nlohmann::ordered_json j;
  j["time"] = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
                  .count();
  std::map<std::string, nlohmann::ordered_json> gpus;
  auto latest = collectors.Latest("gpu");
  if (latest && latest->metrics) {
    const std::pair<const char*, const char*> series[] = {{"DCGM_FI_DEV_GPU_UTIL", "util"},
                                                          {"DCGM_FI_DEV_GPU_TEMP", "temp"},
                                                          {"DCGM_FI_DEV_POWER_USAGE", "power"},
                                                          {"DCGM_FI_DEV_FB_USED", "fb_used"},
                                                          {"DCGM_FI_DEV_SM_CLOCK", "sm_clock"}};
    for (const auto& [family, key] : series) {
      const MetricFamily* f = latest->metrics->Find(family);
      if (f == nullptr) continue;
      for (const auto& s : f->samples) {
        for (const auto& [label, value] : s.labels) {
          if (label != "gpu") continue;
          auto& g = gpus[value];
          g["gpu"] = value;
          g[key] = s.value;
        }
      }
    }
  }
  j["gpus"] = nlohmann::ordered_json::array();
  for (auto& [id, g] : gpus) j["gpus"].push_back(std::move(g));
  return j.dump();
}

struct ExporterServer::Impl {
  httplib::Server server;
};

ExporterServer::ExporterServer(const CollectorSet& collectors, std::string page)
    : impl_(std::make_unique<Impl>()) {
  auto& s = impl_->server;
  s.set_read_timeout(5, 0);
  s.set_write_timeout(5, 0);
  s.set_keep_alive_timeout(5);
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
  if (!impl_->server.bind_to_port(a.host, a.port)) {
    return Status::Io(fmt::format("cannot listen on {}:{} (in use, or not an address of this "
                                  "node)",
                                  a.host, a.port));
  }
  return ServeBound();
}

Result<int> ExporterServer::BindAnyPort(const std::string& host) {
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
