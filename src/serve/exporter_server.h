// The exporter's HTTP side: /metrics (the collectors' latest snapshots as Prometheus text),
// /api/telemetry (a few GPU series as JSON for the page), / (a self-contained page drawing them).
//
// Loopback only unless the operator allows otherwise: /metrics has no authentication and no TLS,
// and it names the node's GPUs, serials, links and results, so listening on another interface
// must be a decision (--allow-remote), not a default. A browser on this machine is an HTTP client
// too: requests whose Host header is not a name of this exporter are refused (421), so a web
// page cannot read /metrics through DNS rebinding.
#ifndef YARDSTICK_SERVE_EXPORTER_SERVER_H_
#define YARDSTICK_SERVE_EXPORTER_SERVER_H_

#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

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

// The names a request's Host header may give for an exporter listening on `listen_host`:
// that address, "localhost", 127.0.0.1 and ::1, this machine's host names and the addresses of
// its interfaces, and `extra` (--allow-host). Lowercase, IPv6 without brackets.
std::set<std::string> AllowedHostNames(const std::string& listen_host,
                                       const std::vector<std::string>& extra);
// True when the Host header ("name", "name:port", "[v6]", "[v6]:port"; case and a trailing dot
// ignored) names one of `allowed`, or is absent (HTTP/1.0). A browser sends the name it was
// given, so a page from elsewhere that rebinds its own DNS name to this address is refused.
bool HostHeaderAllowed(std::string_view host_header, const std::set<std::string>& allowed);

// How the HTTP side bounds its clients: a few small GETs, nothing else. A request with a body
// is refused (413) before the body is read and its connection closed; headers and request lines
// are bounded by cpp-httplib (8 KiB each); a connection that sends nothing, or stalls mid-request,
// is dropped after `timeout_s`; one request per connection, so no connection holds a thread
// between scrapes; `threads` serve in parallel, so a few idle connections do not delay a scrape.
struct HttpLimits {
  int threads = 32;
  int timeout_s = 2;
};

class ExporterServer {
 public:
  // `collectors` must outlive the server. `allow_hosts`: Host header names accepted beyond this
  // machine's own (AllowedHostNames).
  ExporterServer(const CollectorSet& collectors, std::string page,
                 std::vector<std::string> allow_hosts = {}, HttpLimits limits = {});
  ~ExporterServer();

  // Binds (Io naming the address when it cannot, e.g. in use) and serves until Stop().
  Status Serve(const ListenAddress& address);
  // Serve in two steps: Bind, then ServeBound. The socket is bound without SO_REUSEPORT (which
  // cpp-httplib sets by default), so an address another process listens on is refused instead
  // of shared: two exporters on one port would split the scrapes between them.
  Status Bind(const ListenAddress& address);
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
