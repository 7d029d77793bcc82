// Fuzz target: what the exporter (yardstick exporter) reads from outside, by selector byte:
//   0 --listen HOST:PORT (serve/exporter_server.cc ParseListenAddress)
//   1 a document's UTC timestamp (serve/run_collector.cc ParseUtcTimestamp)
//   2 the run collector (serve/run_collector.cc): a run document, a NUL byte, a validation
//     document, read from files as the exporter does, turned into Prometheus metrics and the
//     exposition text (serve/exposition.cc).
// HTTP request parsing and routing are cpp-httplib's: the exporter serves three fixed paths and
// reads nothing from a request, so there is no request handler of ours to drive.
#include <nlohmann/json.hpp>

#include "fuzz_target.h"
#include "fuzz_util.h"
#include "serve/collectors.h"
#include "serve/exporter_server.h"
#include "serve/exposition.h"

YS_FUZZ_TARGET(exporter) {
  using namespace ys::serve;
  std::string_view text = ys::fuzz::AsText(data, size);
  std::optional<int> which = ys::fuzz::TakeSelector(&text, 3);
  if (!which) return 0;
  if (*which == 0) {
    (void)ParseListenAddress(text);
  } else if (*which == 1) {
    (void)ParseUtcTimestamp(std::string(text));
  } else {
    size_t nul = text.find('\0');
    std::string run = ys::fuzz::WriteScratch("run.json", text.substr(0, nul));
    std::string validation = ys::fuzz::WriteScratch(
        "validation.json", nul == std::string_view::npos ? "" : text.substr(nul + 1));
    auto collected = MakeRunCollector(run, validation)->Collect();
    if (collected.ok()) (void)collected->Text();
  }
  return 0;
}
