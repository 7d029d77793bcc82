#include "cli/predict_serve_fit.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <set>

#include "cli/command.h"
#include "core/atomic_file.h"
#include "core/exit_codes.h"
#include "predict/serve_calibration.h"

namespace ys::cli {
namespace {

constexpr const char* kServeFitCutOff = "2025-06-30";
constexpr const char* kServeFitCommand = "yardstick predict --serve-fit --write";
constexpr int kServeFitWorstShown = 8;

constexpr const char* kServeCalibrationComment =
    R"(# Constants of the serving model of `yardstick predict --serve` (src/predict/serve_model.h; read
# strictly by src/predict/serve_calibration.h) and the held-out error of its predictions per chip
# and precision. Written by `yardstick predict --serve-fit --write`; edit the data, not this file.
#
# Fitted on the published rows of the table named in [provenance] (offline max-throughput runs of
# trtllm-bench, releases dated up to the cut-off), minimising the mean |log(predicted /
# published)| of the output tokens/s: prefill_efficiency, decode_hbm_efficiency,
# host_seconds_per_step, allreduce_latency_s (an all-reduce's fixed cost),
# decode_seconds_per_layer (a layer's kernel floor per decode step), decode_overlap_share (how
# much of a decode step's arithmetic hides behind its reads) and runtime_reserved_bytes (a GPU's
# memory the serving runtime holds beside the weights and the KV cache). Stated, not fitted:
# kv_memory_share (TensorRT-LLM's default share of the free memory the KV cache takes) and
# max_batch (TensorRT-LLM's default max_batch_size). In the fit, each row's batch is capped instead
# by the max_batch_size trtllm-bench's own heuristic gives its engine for the row's model, mapping
# and ISL/OSL (src/predict/serve_engine_settings.h).
#
# [constants]: fitted on every row, for a chip and precision without a [[chip]] set of its own.
# [[chip]]: {chip, dtype, the seven fitted constants}, fitted on that chip and precision's rows
# (where they cover two models or more); a prediction for it, or for a superchip of the same GPU
# die (GB200: B200), runs on it.
# [[error]]: {chip, dtype, architecture, median, p90, rows, source}, |predicted / published - 1|
# of the output tokens/s on rows held out of the fit: each model's rows predicted by constants
# fitted without that model, kept apart for dense models and MoE models (architecture = "moe"). A
# prediction for a chip and precision with an entry of its model's architecture states that entry.
# [moe_any_chip]: every chip's MoE rows held out by model, what an MoE model states (where wider
# than its chip's) when its chip has no MoE row.
# [other_chip]: the same over every chip and precision's rows predicted by [constants]-style sets
# fitted on the other chips' rows: what a prediction for a chip without rows states
# ("uncalibrated"). Without any entry, "no_serving_calibration" and no number.
)";

std::string Today() {
  const auto days = std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now());
  const std::chrono::year_month_day ymd{days};
  return fmt::format("{:04d}-{:02d}-{:02d}", static_cast<int>(ymd.year()),
                     static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()));
}

// "baselines/published/serving/trtllm_serving.tsv" (each file of the cases, joined by ", ").
std::string TableFiles(const predict::ServeFitData& data) {
  std::set<std::string> files;
  for (const predict::ServeFitCase& k : data.cases) files.insert(k.row.file);
  std::string out;
  for (const std::string& f : files) {
    out += (out.empty() ? "" : ", ") + std::string("baselines/published/serving/") + f;
  }
  return out;
}

std::string Releases(const predict::ServeFitData& data) {
  std::string out;
  for (const std::string& r : data.releases) out += (out.empty() ? "" : ", ") + r;
  return out;
}

std::string TomlString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string ConstantsLine(const predict::ServeConstants& c) {
  return fmt::format(
      "prefill_efficiency {:.4g}, decode_hbm_efficiency {:.4g}, host_seconds_per_step {:.4g}, "
      "allreduce_latency_s {:.4g}, decode_seconds_per_layer {:.4g}, decode_overlap_share {:.4g}, "
      "runtime_reserved_bytes {:.4g}",
      c.prefill_efficiency, c.decode_hbm_efficiency, c.host_seconds_per_step, c.allreduce_latency_s,
      c.decode_seconds_per_layer, c.decode_overlap_share, c.runtime_reserved_bytes);
}

// The fitted constants as TOML lines.
std::string FittedToml(const predict::ServeConstants& c) {
  return fmt::format(
      "prefill_efficiency = {:.6g}\ndecode_hbm_efficiency = {:.6g}\nhost_seconds_per_step = "
      "{:.6g}\nallreduce_latency_s = {:.6g}\ndecode_seconds_per_layer = {:.6g}\n"
      "decode_overlap_share = {:.6g}\nruntime_reserved_bytes = {:.6g}\n",
      c.prefill_efficiency, c.decode_hbm_efficiency, c.host_seconds_per_step, c.allreduce_latency_s,
      c.decode_seconds_per_layer, c.decode_overlap_share, c.runtime_reserved_bytes);
}

// The p90 is rounded up: a stated p90 written below the row that sets it would not cover it.
std::string ErrorToml(const predict::ErrorStats& e) {
  return fmt::format("median = {:.4f}\np90 = {:.4f}\nrows = {}\n", e.median_abs,
                     std::ceil(e.p90_abs * 1e4) / 1e4, e.rows);
}

void PrintServeFit(const predict::ServeFitData& data, const predict::ServeCalibrationResult& r) {
  std::cout << fmt::format(
      "# serving calibration: {} rows of {} (releases {}), leave one model out\n",
      data.cases.size(), TableFiles(data), Releases(data));
  std::cout << fmt::format("{:<8} {:<7} {:<6} {:>6} {:>8} {:>8}\n", "chip", "dtype", "models",
                           "rows", "median", "p90");
  for (const predict::ServeHeldOutError& e : r.error) {
    std::cout << fmt::format("{:<8} {:<7} {:<6} {:>6} {:>7.1f}% {:>7.1f}%\n", e.chip, e.dtype,
                             e.architecture, e.stats.rows, 100 * e.stats.median_abs,
                             100 * e.stats.p90_abs);
  }
  if (r.moe_any_chip) {
    std::cout << fmt::format("{:<16} {:<6} {:>6} {:>7.1f}% {:>7.1f}%  (every chip's MoE rows)\n",
                             "any chip", "moe", r.moe_any_chip->rows,
                             100 * r.moe_any_chip->median_abs, 100 * r.moe_any_chip->p90_abs);
  }
  if (r.other_chip) {
    std::cout << fmt::format("{:<16} {:<6} {:>6} {:>7.1f}% {:>7.1f}%  (leave one chip out)\n",
                             "other chip", "all", r.other_chip->rows,
                             100 * r.other_chip->median_abs, 100 * r.other_chip->p90_abs);
  }
  std::cout << "constants (fitted on every row): " << ConstantsLine(r.constants) << "\n";
  for (const predict::ServeChipConstants& c : r.chips) {
    std::cout << fmt::format("constants of {} {}: {}\n", c.chip, c.dtype,
                             ConstantsLine(c.constants));
  }
  std::vector<const predict::ServeRowError*> worst;
  for (const predict::ServeRowError& e : r.rows) worst.push_back(&e);
  std::sort(worst.begin(), worst.end(), [](auto* a, auto* b) {
    return std::fabs(std::log1p(a->error)) > std::fabs(std::log1p(b->error));
  });
  if (worst.size() > kServeFitWorstShown) worst.resize(kServeFitWorstShown);
  std::cout << "worst held-out misses:\n";
  for (const predict::ServeRowError* e : worst) {
    const predict::ServePublishedRow& row = e->k->row;
    std::cout << fmt::format(
        "  {:+.0f}%  {} {} {} TP {} ISL {} / OSL {}: {:.0f} predicted, {:.0f} "
        "published ({}:{})\n",
        100 * e->error, row.chip, row.model, row.dtype, row.tp, row.isl, row.osl, e->predicted,
        row.TotalTokensPerS(), row.file, row.line);
  }
  for (const std::string& s : r.unpredicted) std::cout << "  not predicted: " << s << "\n";
  for (const std::string& s : data.skipped) std::cout << "  skipped: " << s << "\n";
}

}  // namespace

void AddServeFitOptions(CLI::App& sub, ServeFitArgs* a) {
  sub.add_flag("--serve-fit", a->fit,
               "Fit the serving model's constants on the published serving table and print the "
               "held-out error per chip and precision");
  sub.add_flag("--write", a->write,
               "With --serve-fit: rewrite calibration/serve_model.toml with the fit");
}

std::string ServeCalibrationToml(const predict::ServeFitData& data,
                                 const predict::ServeCalibrationResult& result,
                                 const std::string& date) {
  const std::string table = TableFiles(data);
  const std::string over =
      fmt::format("{} ({} rows, releases {})", table, data.cases.size(), Releases(data));
  std::string out = kServeCalibrationComment;
  out += "\n[provenance]\n";
  out += "source = " +
         TomlString(fmt::format("{}: {} published rows of releases {}, dated up to {}", table,
                                data.cases.size(), Releases(data), kServeFitCutOff)) +
         "\n";
  out += "fitted_by = " + TomlString(fmt::format("{}, {}", kServeFitCommand, date)) + "\n";
  const predict::ServeConstants& c = result.constants;
  out += "\n[constants]\n" + FittedToml(c);
  out += fmt::format("kv_memory_share = {:.6g}\n", c.kv_memory_share);
  out += fmt::format("max_batch = {:.6g}\n", c.max_batch);
  for (const predict::ServeChipConstants& k : result.chips) {
    out +=
        fmt::format("\n[[chip]]\nchip = {}\ndtype = {}\n", TomlString(k.chip), TomlString(k.dtype));
    out += FittedToml(k.constants);
  }
  for (const predict::ServeHeldOutError& e : result.error) {
    const bool own = std::any_of(result.chips.begin(), result.chips.end(), [&](const auto& k) {
      return k.chip == e.chip && k.dtype == e.dtype;
    });
    out += "\n[[error]]\n";
    out += fmt::format("chip = {}\ndtype = {}\narchitecture = {}\n", TomlString(e.chip),
                       TomlString(e.dtype), TomlString(e.architecture));
    out += ErrorToml(e.stats);
    out += "source = " +
           TomlString(
               fmt::format("{} models' rows, leave-one-model-out {}", e.architecture,
                           own ? fmt::format("within the {} {} rows of {}", e.chip, e.dtype, over)
                               : "over " + over)) +
           "\n";
  }
  if (result.moe_any_chip) {
    out += "\n[moe_any_chip]\n" + ErrorToml(*result.moe_any_chip);
    out += "source = " +
           TomlString("every chip's MoE models' rows, leave-one-model-out over " + over) + "\n";
  }
  if (result.other_chip) {
    out += "\n[other_chip]\n" + ErrorToml(*result.other_chip);
    out += "source = " +
           TomlString("leave-one-chip-out over " + over +
                      ": each chip and precision predicted by constants fitted on the others") +
           "\n";
  }
  return out;
}

Result<int> RunServeFit(const std::string& data_flag, bool write) {
  const std::string dir = DataDir(data_flag);
  auto data = predict::LoadServeFitData(dir);
  if (!data.ok()) return data.status();
  auto result = predict::CalibrateServe(data->cases, predict::ServeConstants{});
  if (!result.ok()) return Status::Invalid(data->table_dir + ": " + result.status().message());
  PrintServeFit(*data, *result);
  if (write) {
    const std::string path = predict::ServeCalibrationPath(dir);
    const std::string text = ServeCalibrationToml(*data, *result, Today());
    auto check = predict::ParseServeCalibration(text, path);
    if (!check.ok()) return check.status();
    YS_RETURN_IF_ERROR(WriteFileAtomic(path, text));
    std::cout << "wrote " << path << "\n";
  }
  return kExitPass;
}

}  // namespace ys::cli
