// `yardstick predict --serve`: the serving model (predict/serve_model.h) behind the command line.
// The model from models/ (a file name, or a name its [model] workload_names gives: deepseek-r1,
// llama3.3_70b), the chip's rates from specs/ and calibration/step_model.toml with --measured and
// --set laid over them as for a training prediction, the constants and the expected error from
// calibration/serve_model.toml (predict/serve_calibration.h).
//
// Output: a console headline, the expected error and the breakdown; or with --json one document,
// top level output_tokens_per_s_per_gpu, output_tokens_per_s, tokens_per_s_per_user, ttft_s,
// tpot_s, batch_per_instance, instances, breakdown {prefill, decode: [{name, seconds, basis}]},
// expected_error {situation, median, p90, rows, source}, notes and the inputs (its field list
// in cli/predict_serve_json.cc, schemas/predict_serve.schema.json). The system and constants are
// built by predict/serve_system.h, as validate --predict builds them for a serving suite.
//
// Thread safety: one thread.
#ifndef YARDSTICK_CLI_PREDICT_SERVE_H_
#define YARDSTICK_CLI_PREDICT_SERVE_H_

#include <CLI/CLI.hpp>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "core/status.h"
#include "predict/serve_calibration.h"
#include "predict/serve_model.h"

namespace ys::cli {

struct ServeArgs {
  std::string model, chip, dtype, data;
  int gpus = 0, tp = 1, pp = 1, ep = 1;
  int prefill_gpus = 0, decode_gpus = 0;
  int isl = 0, osl = 0, concurrency = 0;
  bool max_throughput = false, json = false;
  std::vector<std::string> measured, sets;
};

// --serve and its own flags (--isl, --osl, --concurrency, --max-throughput, --prefill-gpus,
// --decode-gpus) on `predict`; the flags it shares with a training prediction stay predict's.
void AddServeOptions(CLI::App& sub, bool* serve, ServeArgs* a);

// Invalid naming the flag: --model, --chip, --dtype, --gpus, --isl or --osl missing; both or
// neither of --concurrency and --max-throughput; one of --prefill-gpus and --decode-gpus without
// the other, or their sum not --gpus; tp × pp not dividing the GPUs.
Status CheckServeArgs(const ServeArgs& a);

// The JSON document and the console text of one prediction.
nlohmann::json ServeJson(const ServeArgs& a, const predict::ServePrediction& p,
                         const predict::ServeExpectedError& e, const std::string& constants_path,
                         const std::vector<std::string>& measured);
std::string ServeConsole(const ServeArgs& a, const predict::ServePrediction& p,
                         const predict::ServeExpectedError& e, const std::string& constants_path);

// Checks, reads and predicts, and prints; the exit code, or the Status of bad input.
Result<int> RunServe(ServeArgs a);

}  // namespace ys::cli

#endif  // YARDSTICK_CLI_PREDICT_SERVE_H_
