// The rates a step-time prediction runs on (predict/step_model.h SystemRates):
// - reference: the chip's peaks from specs/ and the calibrated efficiencies and system facts of
//   calibration/step_model.toml;
// - measured (`--measured RUN.json`): this cluster's GEMM TFLOPS at the recipe's shape
//   (gemm.gpu.tflops) and bus bandwidth at the recipe's message sizes (coll.<name>.busbw,
//   out-of-place; log-log interpolated between the two measured sizes around the recipe's, the
//   nearest measured size's outside the sweep), read through the run-document reader
//   (core/run_document_json.h). A document of one node gives NVLink rates (its collectives stay
//   inside the node's NVLink domain); one of several nodes gives network rates. Single-rank
//   collectives (nothing exchanged) are never taken;
// - overrides (`--set KEY=VALUE`), for what-ifs:
//     coll.<collective>.busbw=28GB/s     across the network (what nccl-tests at job scale reports)
//     nvlink.<collective>.busbw=400GB/s  inside one NVLink domain
//     gemm.<dtype>.tflops=650            achieved GEMM rate, in place of peak × efficiency
//     hbm.bandwidth=3.35TB/s
//   <collective> is one of all_reduce, all_gather, reduce_scatter, alltoall, sendrecv; values take
//   a unit (GB/s, MB/s, TB/s; TFLOPS, PFLOPS; a bare number is GB/s, TFLOPS, TB/s) and must lie in
//   a stated range; anything else is Invalid naming the flag, the key and what was expected.
//
// Thread safety: pure functions over values.
#ifndef YARDSTICK_PREDICT_STEP_RATES_H_
#define YARDSTICK_PREDICT_STEP_RATES_H_

#include <string>
#include <string_view>
#include <vector>

#include "bench/device_specs.h"
#include "core/run_document.h"
#include "core/status.h"
#include "predict/step_calibration.h"
#include "predict/step_flops.h"
#include "predict/step_model.h"

namespace ys::predict {

// Invalid naming the file when the chip has no [[chip]] entry, or no NVLink or HBM figure.
Result<predict::SystemRates> ReferenceRates(const bench::DeviceSpec& spec,
                                            const StepCalibration& cal,
                                            const predict::Constants& c);

// One `--set` assignment applied; Invalid as described above.
Status ApplyRateOverride(predict::SystemRates& rates, std::string_view assignment);

// What a measured document gave: one line per rate taken ("nvlink.all_gather.busbw 412 GB/s at
// 64 MiB (run.json)").
struct MeasuredRates {
  std::vector<std::string> taken;
};
// Rates of `doc` (read from `path`) at the recipe's shapes and message sizes; Invalid when the
// document gives none of them.
Result<MeasuredRates> ApplyMeasured(predict::SystemRates& rates, const RunDocument& doc,
                                    const std::string& path, const predict::Recipe& recipe);

}  // namespace ys::predict

#endif  // YARDSTICK_PREDICT_STEP_RATES_H_
