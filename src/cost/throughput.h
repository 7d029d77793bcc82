// The measured training throughput that the cost arithmetic starts from, and the cost of each
// workload: shared by `yardstick cost` (one workload) and the report's Cost section (every
// workload of a run or a validation).
//
// Where throughput comes from:
// - a run document: proxy.<model>.tokens_per_s_per_gpu among its measurements (top level and the
//   job-wide benchmarks'); a proxy has no reference throughput;
// - a validation document: each workload's tokens_per_s_per_gpu, the GPUs it ran on, and its
//   score (measured ÷ reference), from which the reference is measured ÷ score. The document is
//   read by its reader (report/html/validation_view.h), which gives ValidatedWorkloadThroughput
//   the fields.
//
// Thread safety: values only; no shared state.
#ifndef YARDSTICK_COST_THROUGHPUT_H_
#define YARDSTICK_COST_THROUGHPUT_H_

#include <optional>
#include <string>
#include <vector>

#include "core/run_document.h"
#include "core/status.h"
#include "cost/cost_model.h"
#include "cost/price_model.h"

namespace ys::cost {

struct WorkloadThroughput {
  std::string workload;  // proxy model ("llama3.1_8b") or validation workload id
  std::string source;    // "proxy.llama3.1_8b in run.json"
  double tokens_per_s_per_gpu = 0;
  std::optional<double> score;  // measured ÷ reference, when a reference exists
  std::optional<int> gpus;      // the GPUs the workload ran on, when known
  // Why the throughput is an estimate of the real recipe's rather than a measurement of it,
  // one reason each ("a proxy of one training step, not a run of the recipe", "shapes scaled
  // down 1/16", "measured on CPUs (fp32)"); empty for a recipe's own run.
  std::vector<std::string> estimate_reasons;
  std::optional<int> measured_ranks;  // a proxy: the ranks it ran on (one stands for one GPU)
  // tokens_per_s_per_gpu ÷ score; unset without a score > 0.
  std::optional<double> ReferenceTokensPerSPerGpu() const;
};

// Every proxy.<model>.tokens_per_s_per_gpu of a run document, in document order. `where` names
// the document in `source`.
std::vector<WorkloadThroughput> RunThroughputs(const RunDocument& doc, const std::string& where);

// One validated workload; `where` names the document.
WorkloadThroughput ValidatedWorkloadThroughput(const std::string& id, double tokens_per_s_per_gpu,
                                               std::optional<double> score, std::optional<int> gpus,
                                               const std::string& where);

// The one workload a cost is asked for: `workload` by name ("llama3.1_8b" or "proxy.llama3.1_8b"
// for a proxy), or the only one when `workload` is empty. Invalid names `where`, what is present
// and how to choose.
Result<WorkloadThroughput> PickWorkload(const std::vector<WorkloadThroughput>& found,
                                        const std::string& workload, const std::string& where);

struct WorkloadCost {
  WorkloadThroughput throughput;
  double per_million_tokens = 0;
  TrainingCost training;
  std::optional<double> reference_tokens_per_s_per_gpu;
  std::optional<GapCost> gap;  // with a reference
  // The throughput's reasons, and "N ranks measured, M GPUs priced" when a proxy's rank count
  // is not the GPU count priced: the price is an estimate when any is given.
  std::vector<std::string> estimate_reasons;
};

// What training `tokens` costs at the workload's throughput on `gpus` GPUs (default: the
// workload's own, else 8), and the gap to `reference` (default: the workload's, from its score).
// Invalid when the throughput, GPUs or token budget are not > 0.
Result<WorkloadCost> CostOfWorkload(const PriceModel& prices, const WorkloadThroughput& t,
                                    std::optional<int> gpus, double tokens,
                                    std::optional<double> reference = std::nullopt);

inline constexpr int kDefaultGpus = 8;

}  // namespace ys::cost

#endif  // YARDSTICK_COST_THROUGHPUT_H_
