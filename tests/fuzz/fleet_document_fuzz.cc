// Fuzz target: the lean run-document reader of fleet analysis (fleet/reader.cc), and,
// where it and the full reader (core/run_document_json.cc) both accept a document, that they agree
// on what the fleet uses (host name, how many units and measurements). The fleet analysis of the
// document (fleet/merge.cc) runs on whatever the lean reader accepts.
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "core/run_document_json.h"
#include "fleet/merge.h"
#include "fleet/reader.h"
#include "fuzz_target.h"
#include "fuzz_util.h"

namespace {

size_t Measurements(const ys::RunDocument& d) {
  size_t n = d.measurements.size();
  for (const auto& b : d.benchmarks) n += b.measurements.size();
  for (const auto& node : d.nodes) {
    for (const auto& b : node.benchmarks) n += b.measurements.size();
  }
  return n;
}

}  // namespace

YS_FUZZ_TARGET(fleet_document) {
  std::string_view text = ys::fuzz::AsText(data, size);
  std::optional<ys::RunDocument> lean = ys::fleet::ReadFleetDocument(text);
  if (!lean) return 0;
  if (std::optional<nlohmann::json> j = ys::fuzz::ParseJson(text)) {
    auto full = ys::RunDocumentFromJson(*j);
    if (full.ok() &&
        (full->host.hostname != lean->host.hostname || full->checks.size() != lean->checks.size() ||
         full->nodes.size() != lean->nodes.size() || Measurements(*full) != Measurements(*lean))) {
      std::abort();  // the two readers disagree on a document both accept
    }
  }
  ys::fuzz::WriteScratch("fleet.run.json", text);
  ys::fleet::MergeOptions options;
  options.keep_going = true;
  options.threads = 1;
  (void)ys::fleet::MergeFleet({ys::fuzz::ScratchDir() + "/fleet.run.json"}, options);
  return 0;
}
