// `yardstick merge DOC...`: fleet analysis over per-node run documents from many jobs — the peer
// median and MAD of every figure, evidence pooled per node, GPU, NIC and kind of figure, checks,
// versions, missing units — streamed from disk in two passes, in memory that does not grow with
// the node count (fleet/fleet.h). Exit: 0 pass; 1 fail, incomplete (documents skipped under
// --keep-going) or inconclusive (too few nodes to compare); 2 bad input.
#include <unistd.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "core/atomic_file.h"
#include "core/exit_codes.h"
#include "core/log.h"
#include "core/run_document_json.h"
#include "fleet/merge.h"
#include "fleet/output.h"
#include "report/html/html_fleet_page.h"
#include "report/output.h"

namespace ys::cli::cmd_merge {
namespace {

struct MergeArgs {
  std::vector<std::string> inputs;
  std::string output;
  bool json = false;
  std::string format = "console";
  std::string html;
  fleet::MergeOptions options;
  double min_deficit_pct = 5, isolated_deficit_pct = 10, noise_floor_pct = 0.5;
  double drain_loss_pct = 2;
};

// The run documents to merge.
void AddMergeInputOptions(CLI::App& sub, MergeArgs& a) {
  sub.add_option(
         "DOC", a.inputs,
         "Run documents: files, directories (every run.json and *.run.json under them) or @LIST "
         "(a file naming one input a line)")
      ->required();
}

// Where the fleet document goes and in which form.
void AddMergeOutputOptions(CLI::App& sub, MergeArgs& a) {
  sub.add_option("-o,--output", a.output, "Also write the fleet document (JSON) to this file");
  sub.add_flag("--json", a.json,
               "Print the fleet document as JSON instead of the summary (--format json)");
  sub.add_option("--format", a.format,
                 "console: the ranked list as a table; json: the fleet document; slurm: one "
                 "`scontrol update "
                 "nodename=X state=drain reason=...` line per node to drain")
      ->check(CLI::IsMember({"console", "json", "slurm"}));
  sub.add_option("--html", a.html, "Also write the fleet heat map (HTML) to this file");
}

// How the documents are read: in parallel, and whether a malformed one stops the merge.
void AddMergeReadingOptions(CLI::App& sub, MergeArgs& a) {
  sub.add_option("--threads", a.options.threads, "Documents read in parallel (0: one per core)")
      ->default_val(0)
      ->check(CLI::Range(0, 256));
  sub.add_flag("--keep-going", a.options.keep_going,
               "Skip malformed documents and list them, instead of stopping at the first (exit 2)");
}

// When a figure, device or node is flagged, and when it is drained.
void AddMergeJudgingOptions(CLI::App& sub, MergeArgs& a) {
  sub.add_option("--z", a.options.fleet.z_threshold,
                 "Robust z a figure must be beyond to be flagged")
      ->default_val(5.0)
      ->check(CLI::PositiveNumber);
  sub.add_option("--min-deficit", a.min_deficit_pct,
                 "...and how much worse than the peer median it must be, in percent")
      ->default_val(5.0)
      ->check(CLI::Range(0.0, 100.0));
  sub.add_option("--isolated-deficit", a.isolated_deficit_pct,
                 "How much worse a lone figure (not corroborated by its device or node) must be, "
                 "in percent")
      ->default_val(10.0)
      ->check(CLI::Range(0.0, 100.0));
  sub.add_option("--noise-floor", a.noise_floor_pct,
                 "Smallest spread assumed, in percent of the median (used when MAD is 0)")
      ->default_val(0.5)
      ->check(CLI::Range(0.0, 100.0));
  sub.add_option("--false-alarms", a.options.fleet.false_alarms,
                 "Healthy nodes, GPUs and NICs flagged per 10,000 judged (the rate the thresholds "
                 "are set for; the report states the count expected at this fleet size)")
      ->default_val(5.0)
      ->check(CLI::Range(1e-6, 5000.0));
  sub.add_option(
         "--drain-false-alarms", a.options.fleet.drain_false_alarms,
         "Healthy nodes, GPUs and NICs expected drained in the whole fleet: a row is drained "
         "only when its evidence also passes this family-wise bar")
      ->default_val(0.05)
      ->check(CLI::Range(1e-9, 100.0));
  sub.add_option("--drain-loss", a.drain_loss_pct,
                 "Expected training-throughput loss, in percent, from which a slow node or device "
                 "is drained (below it: watch)")
      ->default_val(2.0)
      ->check(CLI::Range(0.0, 100.0));
}

// The statistics' resolution: how many peers a key needs and the histogram's bin width.
void AddMergeStatisticsOptions(CLI::App& sub, MergeArgs& a) {
  sub.add_option("--min-peers", a.options.fleet.min_peers,
                 "Figures a key needs before any is judged")
      ->default_val(3)
      ->check(CLI::Range(1, 1 << 30));
  sub.add_option("--bin-width", a.options.fleet.bin_relative_width,
                 "Relative width of the histogram bins (bounds the error of median and MAD)")
      ->default_val(5e-4)
      ->check(CLI::Range(1e-7, 0.1));
}

// Merges the documents and reports the fleet: pass when it is healthy.
Result<int> RunMerge(MergeArgs& a) {
  a.options.fleet.min_deficit = a.min_deficit_pct / 100;
  a.options.fleet.isolated_deficit = a.isolated_deficit_pct / 100;
  a.options.fleet.noise_floor = a.noise_floor_pct / 100;
  a.options.fleet.drain_loss = a.drain_loss_pct / 100;
  auto report = fleet::MergeFleet(a.inputs, a.options);
  if (!report.ok()) return report.status();
  for (const auto& s : report->skipped) Log(LogLevel::kWarn, "skipped {}", s.error);
  auto document = fleet::ToJson(*report);
  if (!a.output.empty()) {
    YS_RETURN_IF_ERROR(WriteFileAtomic(a.output, DumpJson(document) + "\n"));
  }
  if (!a.html.empty()) {
    YS_RETURN_IF_ERROR(WriteFileAtomic(a.html, report::html::FleetHeatMapPage(document)));
  }
  if (a.json || a.format == "json") {
    std::cout << DumpJson(document) << "\n";
  } else if (a.format == "slurm") {
    fleet::WriteSlurmDrain(*report, std::cout);
  } else {
    fleet::WriteFleetSummary(*report, std::cout, /*limit=*/50, ColorOnStdout());
    if (!a.output.empty()) std::cout << "fleet document: " << a.output << "\n";
    if (!a.html.empty()) std::cout << "fleet heat map: " << a.html << "\n";
  }
  return report->Healthy() ? kExitPass : kExitFail;
}

Action Setup(CLI::App& sub) {
  auto a = std::make_shared<MergeArgs>();
  AddMergeInputOptions(sub, *a);
  AddMergeOutputOptions(sub, *a);
  AddMergeReadingOptions(sub, *a);
  AddMergeJudgingOptions(sub, *a);
  AddMergeStatisticsOptions(sub, *a);
  return [a]() -> Result<int> { return RunMerge(*a); };
}

}  // namespace

YS_REGISTER(CommandOf<Setup>, {.id = "merge",
                               .summary = "Merge per-node run documents: peer median and MAD of "
                                          "every figure, slow nodes, GPUs and NICs"})

}  // namespace ys::cli::cmd_merge
