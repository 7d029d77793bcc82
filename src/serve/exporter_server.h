// The exporter's HTTP side: /metrics (the collectors' latest snapshots as Prometheus text),
// /api/telemetry (a few GPU series as JSON for the page), / (a self-contained page drawing them).
//
// Loopback only unless the operator allows otherwise: /metrics has no authentication and no TLS,
// and it names the node's GPUs, serials, links and results, so listening on another interface
// must be a decision (--allow-remote), not a default.
#ifndef YARDSTICK_SERVE_EXPORTER_SERVER_H_
#define YARDSTICK_SERVE_EXPORTER_SERVER_H_

#include <memory>
#include <string>
#include <string_view>

#include "core/status.h"
#include "serve/collector.h"

namespace ys::serve {

struct ListenAddress {
  std::string host;  // "127.0.0.1", "::1", "0.0.0.0"
  int port = 0;
  bool loopback = false;
};
// "HOST:PORT" or "[V6]:PORT"; "localhost" is taken as 127.0.0.1. Invalid naming what is wrong.
Result<ListenAddress> ParseListenAddress(std::string_view text);

// The page at /: inline Chart.js (from `chart_js`, its text; empty: the page says the curves
// need libjs-chart.js and shows a table), polling /api/telemetry every `poll_s` seconds.
std::string ExporterPage(std::string_view chart_js, double poll_s);
// {"time": unix s, "gpus": [{"gpu": "0", "util": 93, "temp": 61, "power": 612.5, "fb_used": ...}]}
// from the gpu collector's latest good reading; "gpus": [] when there is none.
std::string TelemetryJson(const CollectorSet& collectors);

class ExporterServer {
 public:
  // `collectors` must outlive the server.
  ExporterServer(const CollectorSet& collectors, std::string page);
  ~ExporterServer();

  // Binds (Io naming the address when it cannot, e.g. in use) and serves until Stop().
  Status Serve(const ListenAddress& address);
  // Binds to a free port of `host` and returns it; then ServeBound() serves. For tests.
  Result<int> BindAnyPort(const std::string& host);
  Status ServeBound();
  // Safe from any thread, including before Serve() begins listening.
  void Stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ys::serve

#endif  // YARDSTICK_SERVE_EXPORTER_SERVER_H_
