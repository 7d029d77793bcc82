// `yardstick exporter`: node telemetry and the latest run's results for Prometheus, and a page
// with live GPU curves (serve/).
#include <fmt/format.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>

#include "cli/command.h"
#include "core/exit_codes.h"
#include "core/log.h"
#include "host/host.h"
#include "serve/collectors.h"
#include "serve/exporter_server.h"

namespace ys::cli::cmd_exporter {
namespace {

volatile std::sig_atomic_t g_stop_requested = 0;

constexpr const char* kChartJsPath = "/usr/share/javascript/chart.js/chart.min.js";

struct ExporterArgs {
  std::string listen = "127.0.0.1:9400";
  bool allow_remote = false;
  std::vector<std::string> allow_hosts;
  std::string run;
  std::string validation;
  std::string root = "/";
  std::string nvml_state;
  double interval_s = 5;
  double collector_timeout_s = 2;
};

std::string ReadChartJs() {
  std::ifstream in(kChartJsPath, std::ios::binary);
  if (!in) return "";
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The node's collectors, and the run's when --run names one; without it, a warning: the page and
// /metrics then carry no results, which is easy to miss.
std::vector<std::unique_ptr<serve::Collector>> Collectors(const host::Host& host,
                                                          const ExporterArgs& a) {
  std::vector<std::unique_ptr<serve::Collector>> collectors;
  collectors.push_back(serve::MakeGpuCollector(host, a.nvml_state));
  collectors.push_back(serve::MakeInfinibandCollector(host));
  collectors.push_back(serve::MakeCpuClockCollector(host));
  if (!a.run.empty() || !a.validation.empty()) {
    // A validation alone (a serving suite's validation.json has no run document) is exported too.
    collectors.push_back(serve::MakeRunCollector(a.run, a.validation));
  } else {
    Log(LogLevel::kWarn,
        "no --run: exporting node telemetry only, no run results (give --run run.json to export "
        "the latest run's checks and measurements)");
  }

  return collectors;
}

Result<int> Main(const ExporterArgs& a) {
  auto address = serve::ParseListenAddress(a.listen);
  if (!address.ok()) return address.status();
  if (!address->loopback && !a.allow_remote) {
    return Status::Invalid(fmt::format(
        "--listen {}: not a loopback address. /metrics has no authentication or TLS and names "
        "this node's GPUs, links and results; give --allow-remote to serve it beyond this node "
        "(behind a firewall or a proxy that authenticates)",
        a.listen));
  }
  if (!(a.interval_s >= 0.1 && a.interval_s <= 3600)) {
    return Status::Invalid(
        fmt::format("--interval {}: expected seconds from 0.1 to 3600", a.interval_s));
  }
  if (!(a.collector_timeout_s > 0 && a.collector_timeout_s <= 3600)) {
    return Status::Invalid(fmt::format(
        "--collector-timeout {}: expected seconds above 0, at most 3600", a.collector_timeout_s));
  }
  auto host = a.root == "/" ? Result<host::Host>(host::Host::Live()) : host::Host::AtRoot(a.root);
  if (!host.ok()) return Prefixed("--root", host.status());
  if (!a.run.empty()) {
    std::ifstream probe(a.run);
    if (!probe) return Status::NotFound("--run " + a.run + ": cannot open the run document");
  }

  std::vector<std::unique_ptr<serve::Collector>> collectors = Collectors(*host, a);

  // SIGINT and SIGTERM set a flag (all a handler may safely do, whichever thread the kernel picks,
  // including threads libraries started); a watcher thread sees it and stops the server.
  struct sigaction sa {};
  sa.sa_handler = [](int) { g_stop_requested = 1; };
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);

  serve::CollectorSet set(std::move(collectors), {a.interval_s, a.collector_timeout_s});
  set.Start();
  std::string chart_js = ReadChartJs();
  if (chart_js.empty()) {
    Log(LogLevel::kWarn, "{} not found (libjs-chart.js): the page at / shows no curves",
        kChartJsPath);
  }
  serve::ExporterServer server(set, serve::ExporterPage(chart_js, a.interval_s), a.allow_hosts);

  std::atomic<bool> done = false;
  std::thread watcher([&] {
    while (!done) {
      // Again until Serve returns: a signal before listening began would find nothing to stop.
      if (g_stop_requested) server.Stop();
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  });
  if (Status bound = server.Bind(*address); !bound.ok()) {
    done = true;
    watcher.join();
    return bound;
  }
  fmt::print(stderr, "yardstick exporter: listening on http://{}{}{}:{}/ (metrics at /metrics)\n",
             address->host.find(':') != std::string::npos ? "[" : "", address->host,
             address->host.find(':') != std::string::npos ? "]" : "", address->port);
  Status st = server.ServeBound();
  done = true;
  server.Stop();
  watcher.join();
  YS_RETURN_IF_ERROR(st);
  return kExitPass;
}

Action Setup(CLI::App& sub) {
  auto a = std::make_shared<ExporterArgs>();
  sub.add_option("--listen", a->listen, "HOST:PORT to serve on (loopback unless --allow-remote)")
      ->capture_default_str();
  sub.add_flag("--allow-remote", a->allow_remote,
               "Allow a non-loopback --listen address (/metrics has no authentication)");
  sub.add_option(
      "--allow-host", a->allow_hosts,
      "A name clients may give in the Host header besides this machine's own names and addresses "
      "(e.g. a DNS alias or a proxy's name; repeatable). Others are refused (421), against DNS "
      "rebinding");
  sub.add_option("--run", a->run, "The latest run document (run.json) to export results from");
  sub.add_option("--validation", a->validation,
                 "A validation.json (default: validation.json beside --run, when present)");
  sub.add_option("--root", a->root, "Read /sys and /proc under this directory (a recorded tree)")
      ->capture_default_str();
  sub.add_option("--nvml-state", a->nvml_state,
                 "Recorded NVML state (JSON) instead of <root>/.yardstick/nvml.json or live NVML");
  sub.add_option("--interval", a->interval_s, "Seconds between collections")->capture_default_str();
  sub.add_option("--collector-timeout", a->collector_timeout_s,
                 "Seconds after which a running collector is reported late (up 0); a scrape "
                 "never waits for it")
      ->capture_default_str();
  return [a] { return Main(*a); };
}

}  // namespace

YS_REGISTER(CommandOf<Setup>,
            {.id = "exporter",
             .summary = "Serve node telemetry and the latest results to Prometheus"})

}  // namespace ys::cli::cmd_exporter
