#include "report/prediction_report.h"

#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>

namespace ys::report {
namespace {

using workloads::predict::CommTerm;
using workloads::predict::StepPrediction;

std::string Bytes(double b) {
  if (b >= 1 << 30) return fmt::format("{:.1f} GiB", b / (1 << 30));
  if (b >= 1 << 20) return fmt::format("{:.1f} MiB", b / (1 << 20));
  return fmt::format("{:.0f} KiB", b / 1024);
}

// Exposed comm terms merged by name (dp has a reduce-scatter and an all-gather, for dense and
// expert parameters): one row each.
std::vector<CommTerm> Merged(const StepPrediction& p) {
  std::vector<CommTerm> out;
  for (const CommTerm& t : p.comm) {
    auto it =
        std::find_if(out.begin(), out.end(), [&](const CommTerm& o) { return o.name == t.name; });
    if (it == out.end()) {
      out.push_back(t);
    } else {
      it->raw_s += t.raw_s;
      it->exposed_s += t.exposed_s;
      if (it->collective.find(t.collective) == std::string::npos)
        it->collective += "+" + t.collective;
      if (it->link != t.link) it->link += "+" + t.link;
    }
  }
  return out;
}

const char* CommLabel(const std::string& name) {
  if (name == "tp") return "tensor-parallel comm";
  if (name == "cp") return "context-parallel comm";
  if (name == "ep") return "expert-parallel all-to-all";
  if (name == "pp") return "pipeline send/recv";
  if (name == "dp") return "data-parallel comm";
  return "comm";
}

std::string RateKeyValue(const std::string& key, double v) {
  if (key.starts_with("gemm.")) return fmt::format("{:.0f} TFLOPS", v / 1e12);
  if (key == "hbm.bandwidth") return fmt::format("{:.2f} TB/s", v / 1e12);
  return fmt::format("{:.1f} GB/s", v / 1e9);
}

}  // namespace

std::vector<BreakdownRow> Breakdown(const StepPrediction& p) {
  std::vector<BreakdownRow> rows;
  rows.push_back({"compute", p.compute_s,
                  fmt::format("GEMM {:.3f} s, attention {:.3f} s, elementwise {:.3f} s", p.gemm_s,
                              p.attention_s, p.elementwise_s)});
  for (const CommTerm& t : Merged(p)) {
    rows.push_back({std::string(CommLabel(t.name)) + " (" + t.name + ")", t.exposed_s,
                    fmt::format("{} over {}, {} per message, {:.3f} s before overlap", t.collective,
                                t.link, Bytes(t.message_bytes), t.raw_s)});
  }
  rows.push_back({"host-bound issue", p.host_s,
                  "the GPU waits for the host to issue kernels (eager step, MoE dispatcher sync)"});
  rows.push_back({"pipeline bubble", p.bubble_s, ""});
  rows.push_back({"optimizer step", p.optimizer_s, ""});
  return rows;
}

std::string PredictionConsole(const PredictionView& v) {
  const auto& r = *v.recipe;
  const auto& p = *v.prediction;
  std::string out = fmt::format(
      "{} on {} x {} ({}): tp {} pp {} cp {} ep {} etp {} vp {}, micro-batch {}, global batch {}, "
      "seq {}, {} layers, recompute {}, {} attention; dp {}, {} micro-batches per step\n\n",
      r.model->display_name, r.par.gpus, r.par.chip, r.dtype, r.par.tp, r.par.pp, r.par.cp,
      r.par.ep, r.Etp(), r.Vp(), r.par.micro_batch, r.par.global_batch, r.seq, r.layers,
      r.par.recompute, r.par.attention_backend, p.data_parallel, p.micro_batches);
  out += fmt::format("  {:<34} {:>10} {:>7}  {}\n", "component", "seconds", "share", "");
  for (const BreakdownRow& row : Breakdown(p)) {
    out += fmt::format("  {:<34} {:>10.3f} {:>6.1f}%  {}\n", row.name, row.seconds,
                       100 * row.seconds / p.step_time_s, row.detail);
  }
  out += fmt::format("  {:<34} {:>10.3f} {:>6.1f}%\n\n", "step time (total)", p.step_time_s, 100.0);
  out += fmt::format("  tokens/s/GPU {:.0f}   MFU {:.1f}% (model FLOPs {:.3g} per token)\n",
                     p.tokens_per_s_per_gpu, 100 * p.mfu, p.model_flops_per_token);
  std::map<std::string, std::string> origin = v.rates->origin;
  int non_reference = 0;
  for (const auto& [k, o] : origin) non_reference += o != "reference";
  out += fmt::format("  rates: {} ({}), {} rate(s) measured or set\n",
                     non_reference == 0 ? "reference" : "reference and measured",
                     v.calibration_path, non_reference);
  for (const std::string& m : v.measured) out += "    measured " + m + "\n";
  for (const auto& [k, o] : origin) {
    if (o == "--set") out += "    --set " + k + "\n";
  }
  if (!v.what_if.empty()) {
    out += "\n  what the measured shortfalls cost (each rate put back to the reference alone):\n";
    for (const auto& w : v.what_if) {
      out += fmt::format(
          "    {:<26} {} (reference {}): {:+.3f} s per step, {:.1f}% of the "
          "iteration\n",
          w.key, RateKeyValue(w.key, w.measured),
          w.reference > 0 ? RateKeyValue(w.key, w.reference) : "peak x efficiency", w.recovery_s,
          100 * w.recovery_share);
    }
  }
  return out;
}

nlohmann::json PredictionJson(const PredictionView& v) {
  const auto& r = *v.recipe;
  const auto& p = *v.prediction;
  nlohmann::json breakdown = nlohmann::json::array();
  for (const BreakdownRow& row : Breakdown(p)) {
    breakdown.push_back(
        {{"component", row.name}, {"seconds", row.seconds}, {"detail", row.detail}});
  }
  nlohmann::json comm = nlohmann::json::array();
  for (const CommTerm& t : p.comm) {
    comm.push_back({{"name", t.name},
                    {"collective", t.collective},
                    {"link", t.link},
                    {"message_bytes", t.message_bytes},
                    {"busbw_gb_per_s", t.busbw / 1e9},
                    {"raw_s", t.raw_s},
                    {"exposed_s", t.exposed_s}});
  }
  nlohmann::json what_if = nlohmann::json::array();
  for (const auto& w : v.what_if) {
    what_if.push_back({{"rate", w.key},
                       {"measured", w.measured},
                       {"reference", w.reference},
                       {"step_s", w.step_s},
                       {"restored_step_s", w.restored_s},
                       {"recovery_s", w.recovery_s},
                       {"recovery_share", w.recovery_share}});
  }
  return {
      {"schema_version", 1},
      {"command", "predict"},
      {"step_time_s", p.step_time_s},
      {"model", r.model->name},
      {"recipe",
       {{"chip", r.par.chip},
        {"dtype", r.dtype},
        {"gpus", r.par.gpus},
        {"tp", r.par.tp},
        {"pp", r.par.pp},
        {"cp", r.par.cp},
        {"ep", r.par.ep},
        {"etp", r.Etp()},
        {"vp", r.Vp()},
        {"micro_batch", r.par.micro_batch},
        {"global_batch", r.par.global_batch},
        {"seq", r.seq},
        {"layers", r.layers},
        {"recompute", r.par.recompute},
        {"attention_backend", r.par.attention_backend},
        {"fsdp", r.par.fsdp},
        {"data_parallel", p.data_parallel},
        {"micro_batches", p.micro_batches}}},
      {"breakdown", breakdown},
      {"compute_s", p.compute_s},
      {"exposed_comm_s", p.ExposedComm()},
      {"host_s", p.host_s},
      {"bubble_s", p.bubble_s},
      {"optimizer_s", p.optimizer_s},
      {"comm", comm},
      {"tokens_per_s_per_gpu", p.tokens_per_s_per_gpu},
      {"mfu", p.mfu},
      {"model_flops_per_token", p.model_flops_per_token},
      {"rates_origin", v.rates->origin},
      {"measured", v.measured},
      {"calibration", v.calibration_path},
      {"what_if", what_if},
  };
}

std::string ErrorTableConsole(const validate::ErrorTable& t) {
  std::string out =
      fmt::format("{:<28} {:<6} {:<10} {:>5} {:>5} {:>10} {:>10} {:>8}  {}\n", "workload", "chip",
                  "release", "GPUs", "GBS", "published", "predicted", "error", "fit");
  for (const auto& row : t.rows) {
    const auto& ref = row.c->ref;
    out += fmt::format("{:<28} {:<6} {:<10} {:>5} {:>5} {:>10.3f} {:>10.3f} {:>+7.1f}%  {}\n",
                       ref.workload, ref.provenance.chip, ref.provenance.release, ref.gpus, ref.gbs,
                       ref.step_time_s, row.prediction.step_time_s, 100 * row.error,
                       row.c->held_out ? "held out" : "in fit");
  }
  out += fmt::format(
      "\nin fit:   {} rows, median |error| {:.1f}%, 90th percentile {:.1f}%\n"
      "held out: {} rows, median |error| {:.1f}%, 90th percentile {:.1f}%\n",
      t.fitted.rows, 100 * t.fitted.median_abs, 100 * t.fitted.p90_abs, t.held_out.rows,
      100 * t.held_out.median_abs, 100 * t.held_out.p90_abs);
  return out;
}

nlohmann::json ErrorTableJson(const validate::ErrorTable& t) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& row : t.rows) {
    const auto& ref = row.c->ref;
    rows.push_back({{"workload", ref.workload},
                    {"chip", ref.provenance.chip},
                    {"release", ref.provenance.release},
                    {"dtype", ref.dtype},
                    {"gpus", ref.gpus},
                    {"gbs", ref.gbs},
                    {"published_step_time_s", ref.step_time_s},
                    {"step_time_s", row.prediction.step_time_s},
                    {"error", row.error},
                    {"held_out", row.c->held_out},
                    {"mfu", row.prediction.mfu}});
  }
  auto stats = [](const workloads::predict::ErrorStats& s) {
    return nlohmann::json{
        {"rows", s.rows}, {"median_abs_error", s.median_abs}, {"p90_abs_error", s.p90_abs}};
  };
  return {{"rows", rows}, {"fitted", stats(t.fitted)}, {"held_out", stats(t.held_out)}};
}

std::string CrossValidationConsole(const validate::CrossValidation& cv) {
  std::string out = fmt::format(
      "\nleave one model out (fit without the family, predict it):\n{:<20} {:>5} {:>14} {:>10}\n",
      "family", "rows", "median |error|", "p90");
  for (const auto& f : cv.folds) {
    out += fmt::format("{:<20} {:>5} {:>13.1f}% {:>9.1f}%\n", f.family, f.stats.rows,
                       100 * f.stats.median_abs, 100 * f.stats.p90_abs);
  }
  out += fmt::format("all families: {} rows, median |error| {:.1f}%, 90th percentile {:.1f}%\n",
                     cv.all.rows, 100 * cv.all.median_abs, 100 * cv.all.p90_abs);
  return out;
}

nlohmann::json CrossValidationJson(const validate::CrossValidation& cv) {
  auto stats = [](const workloads::predict::ErrorStats& s) {
    return nlohmann::json{
        {"rows", s.rows}, {"median_abs_error", s.median_abs}, {"p90_abs_error", s.p90_abs}};
  };
  nlohmann::json folds = nlohmann::json::array();
  for (const auto& f : cv.folds) {
    nlohmann::json j = stats(f.stats);
    j["family"] = f.family;
    j["errors"] = f.errors;
    folds.push_back(std::move(j));
  }
  return {{"folds", folds}, {"all", stats(cv.all)}};
}

std::string SuitePredictionConsole(const std::vector<validate::WorkloadPrediction>& rows,
                                   double threshold) {
  auto num = [](const std::optional<double>& v, const char* f) {
    return v ? fmt::format(fmt::runtime(f), *v) : std::string("-");
  };
  std::string out = fmt::format(
      "predicted before the runs (step-time model; score = predicted at the reference rates / "
      "predicted at this cluster's):\n{:<28} {:>5} {:>5}  {:>9} {:>9} {:>9} {:>8}  {}\n",
      "workload", "prec", "GPUs", "model s", "ref s", "pred s", "score", "why");
  int under = 0;
  for (const auto& r : rows) {
    under += r.under;
    out += fmt::format("{:<28} {:>5} {:>5}  {:>9} {:>9} {:>9} {:>8}  {}{}\n", r.workload.id,
                       r.workload.dtype, r.workload.gpus, num(r.model_step_s, "{:.3f}"),
                       num(r.reference_step_s, "{:.3f}"), num(r.predicted_step_s, "{:.3f}"),
                       r.predicted_score ? fmt::format("{:.1f}%", 100 * *r.predicted_score) : "-",
                       r.under ? "UNDER: " : "", r.why);
  }
  out += fmt::format("predicted: {} of {} workloads under {:.0f}%\n", under, rows.size(),
                     100 * threshold);
  return out;
}

nlohmann::json SuitePredictionJson(const std::vector<validate::WorkloadPrediction>& rows,
                                   double threshold) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& r : rows) {
    auto opt = [](const std::optional<double>& v) {
      return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
    };
    a.push_back({{"workload", r.workload.id},
                 {"dtype", r.workload.dtype},
                 {"gpus", r.workload.gpus},
                 {"model_step_s", opt(r.model_step_s)},
                 {"reference_step_s", opt(r.reference_step_s)},
                 {"predicted_step_s", opt(r.predicted_step_s)},
                 {"predicted_score", opt(r.predicted_score)},
                 {"under", r.under},
                 {"why", r.why}});
  }
  return {{"threshold", threshold}, {"workloads", a}};
}

std::string ConstantsToml(const workloads::predict::Constants& c) {
  std::string out = "[constants]\n";
  for (const auto& info : workloads::predict::ConstantTable()) {
    out += fmt::format("{} = {:.4g}\n", info.name, c.*(info.field));
  }
  return out;
}

}  // namespace ys::report
