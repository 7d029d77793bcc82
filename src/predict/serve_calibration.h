// The serving model's data file (calibration/serve_model.toml): the constants of serve_model.h
// (ServeConstants) with their provenance — [constants] fitted on every published row, [[chip]]
// sets fitted on one chip and precision's rows — and the held-out error of the model per chip and
// precision ([[error]] entries) and for a chip without constants of its own ([other_chip]), from
// which every serving prediction states its expected error.
//
// Reading is strict (core/toml_reader.h): every section and key known, every value in its range,
// every constant present; otherwise Invalid naming the file, the table, the key and its line.
//
// The constants of a prediction (ServeConstantsFor): the [[chip]] set of the chip and dtype, else
// that of its die sibling (ServeSiblingChip: a Grace superchip's GPU is its HGX part's die,
// GB200's the B200's), else [constants].
// The expected error of a prediction (ExpectedServeError), by situation:
// - calibrated_chip: the [[error]] entry of the chip and dtype;
// - borrowed_chip: no entry of the chip, one of its die sibling and the dtype; its figures, said to
//   be measured on the sibling;
// - uncalibrated: the file has entries, none of this chip and dtype; [other_chip] where the file
//   has it (each chip's rows predicted by constants fitted without that chip: what a chip never
//   fitted meets), else the widest entry's figures as a floor of what it may miss by;
// - no_serving_calibration: no entry at all (or no file): the error is unknown, no number given.
// Entries are kept per architecture (ServeArchitecture: "dense", or "moe" for a model with routed
// experts): a prediction reads the entries of its model's. An MoE model whose chip (or die
// sibling) has no MoE entry states its chip's situation with the wider of that situation's figures
// and [moe_any_chip] (the MoE rows of every chip, each held out by model).
//
// Thread safety: values only.
#ifndef YARDSTICK_PREDICT_SERVE_CALIBRATION_H_
#define YARDSTICK_PREDICT_SERVE_CALIBRATION_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "predict/serve_model.h"

namespace ys::predict {

// The relative error (|predicted / measured − 1|) of serving predictions on held-out rows.
struct ServeErrorEntry {
  std::string chip;
  std::string dtype;
  std::string architecture = "dense";  // the models it was measured on: "dense" or "moe"
  double median = 0;
  double p90 = 0;
  int rows = 0;
  std::string source;  // how it was measured: "leave-one-model-out over ..."
};

// The fitted constants of one chip and precision; the stated ones (kv_memory_share, max_batch)
// are those of [constants].
struct ServeChipConstants {
  std::string chip;
  std::string dtype;
  ServeConstants constants;
};

struct ServeCalibration {
  std::string path;
  std::string source;     // [provenance] source
  std::string fitted_by;  // [provenance] fitted_by
  ServeConstants constants;
  std::vector<ServeChipConstants> chips;
  std::vector<ServeErrorEntry> errors;
  std::optional<ServeErrorEntry> other_chip;    // chip and dtype "*"
  std::optional<ServeErrorEntry> moe_any_chip;  // chip and dtype "*", architecture "moe"
};

enum class ServeSituation { kCalibratedChip, kBorrowedChip, kUncalibrated, kNoServingCalibration };
// "calibrated_chip", "borrowed_chip", "uncalibrated", "no_serving_calibration"
const char* ServeSituationName(ServeSituation s);

struct ServeExpectedError {
  ServeSituation situation = ServeSituation::kNoServingCalibration;
  std::optional<double> median, p90;  // absent: unknown
  int rows = 0;
  std::string source;
  // One console line: "expected error: median 12%, p90 30% (calibrated_chip: 14 rows, ...)".
  std::string Line() const;
};

// The chip whose GPU die `chip` carries when it is a Grace superchip ("gb200" -> "b200",
// "gb300" -> "b300"); empty otherwise.
std::string ServeSiblingChip(std::string_view chip);

// The constants a prediction for `chip` and `dtype` runs on (above); `cal` may be null (no file):
// `fallback` then.
ServeConstants ServeConstantsFor(const ServeCalibration* cal, const ServeConstants& fallback,
                                 std::string_view chip, std::string_view dtype);

// "moe" for a model with routed experts, else "dense".
const char* ServeArchitecture(const ModelSpec& model);

// `cal` may be null (no file); `architecture` as ServeArchitecture gives.
ServeExpectedError ExpectedServeError(const ServeCalibration* cal, std::string_view chip,
                                      std::string_view dtype,
                                      std::string_view architecture = "dense");

Result<ServeCalibration> ParseServeCalibration(std::string_view text, const std::string& path);
Result<ServeCalibration> LoadServeCalibration(const std::string& path);
// <data>/calibration/serve_model.toml
std::string ServeCalibrationPath(const std::string& data_dir);

}  // namespace ys::predict

#endif  // YARDSTICK_PREDICT_SERVE_CALIBRATION_H_
