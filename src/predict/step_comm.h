// The communication terms of one step (predict/step_model.h PredictStep): the tensor, context,
// expert and pipeline-parallel collectives of each micro-batch and the data-parallel
// reduce-scatter and all-gather of the step, each appended to the prediction's comm terms with
// its link, bus bandwidth, raw and exposed seconds.
//
// Thread safety: pure functions of their arguments (they append to `out`).
#ifndef YARDSTICK_PREDICT_STEP_COMM_H_
#define YARDSTICK_PREDICT_STEP_COMM_H_

#include "core/status.h"
#include "predict/step_model.h"

namespace ys::predict {

// The micro-batch figures the communication terms read: the critical stage's layer factor
// (SlowestStage) and the compute seconds of one micro-batch on it.
struct MicroBatchShape {
  double stage = 1;
  double compute_s = 0;
};

// Tensor (sequence-parallel all-gather and reduce-scatter), context (ring sendrecv), expert
// (all-to-all) and pipeline (sendrecv) terms of `m` micro-batches, over a job whose NVLink domain
// holds `domain` GPUs (JobNvlinkDomain). Invalid when a link the recipe needs has no positive
// bus bandwidth.
Status AddMicroBatchComm(const Recipe& r, const StepWork& w, const SystemRates& rates,
                         const Constants& c, int domain, double m, const MicroBatchShape& mb,
                         StepPrediction& out);

// The data-parallel reduce-scatter and all-gather, dense and expert, exposed beyond the compute
// of the overlap window (`compute_mb`: one micro-batch's compute seconds); reads
// out.data_parallel.
Status AddDataParallelComm(const Recipe& r, const StepWork& w, const SystemRates& rates,
                           const Constants& c, int domain, double m, double compute_mb,
                           StepPrediction& out);

}  // namespace ys::predict

#endif  // YARDSTICK_PREDICT_STEP_COMM_H_
