// `yardstick scaling --unit UNIT [--ranks 1,2,4 | --max-ranks N] [--launcher mpirun|srun]
// [--oversubscribe] [--size BYTES] [--iters N] [--target 0.99] [--timeout S] [--json]`: the same
// proxy or collective at 1, 2, 4 ... N ranks, each count a real job started through the launcher
// (`mpirun -np K yardstick bench --filter UNIT --json` or `srun -n K --mpi=pmix ...`), and the
// efficiency at each step (predict/scaling.h: a proxy's tokens/s per GPU, a collective's busbw
// at --size). Exit 0 when every count stays at or above the target, 1 when one falls below, 2
// when a job fails or its document lacks the figure (the command, its exit and its stderr named).
// `--model NAME --chip CHIP --dtype DTYPE [--base-gpus N] [--set KEY=VALUE ...]`: beside the
// measured points (or alone, without --unit), the predicted weak-scaling curve of that recipe
// from 8 to 2,048 GPUs (predict/scaling.h PredictWeakScaling) at the reference rates, or with
// --set overrides, for --release TAG (default the newest calibrated release; the header names it),
// each point also anchored on the nearest published row of that model and chip in that release
// (or the newest older release with one).
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <tuple>

#include "bench/benchmark.h"
#include "cli/command.h"
#include "core/document_schemas.h"
#include "core/exit_codes.h"
#include "core/json_fields.h"
#include "core/json_schema.h"
#include "core/log.h"
#include "core/run_document_json.h"
#include "core/text.h"
#include "core/text_table.h"
#include "host/subprocess.h"
#include "predict/predictor.h"
#include "predict/published_table.h"
#include "predict/scaling.h"

namespace ys::cli::cmd_scaling {
namespace {

struct ScalingArgs {
  std::string unit, ranks, launcher = "mpirun", size = "16M";
  int max_ranks = 4;
  int iters = -1;
  double target = 0.99;
  double timeout_s = 600;
  bool oversubscribe = false, json = false;
  std::string model, chip, dtype, data, release;
  std::optional<int> base_gpus;
  std::vector<std::string> sets;
};

// The predicted curve with the release it is for, and the factor of its anchor: the nearest
// published row of the model, chip and release (predict/anchor.h) over the base recipe; every
// point is anchored on that one row, so the anchored curve keeps the predicted efficiencies.
struct PredictedAnswer {
  predict::PredictedScaling curve;
  std::string release;  // the header line
  std::string anchor;   // the row, "" when none
  double anchor_factor = 0;
  std::string expected, expected_anchored;  // the answers' expected |error| (release_choice.h)
};

// The predicted weak-scaling curve of --model on --chip at --dtype: the model file's recipe at
// --base-gpus (default: its smallest entry for the chip and dtype) grown from 8 to 2,048 GPUs.
Result<PredictedAnswer> PredictedCurve(const ScalingArgs& a) {
  auto predictor = predict::Predictor::Open(DataDir(a.data));
  if (!predictor.ok()) return predictor.status();
  auto spec = predictor->LoadModel(a.model);
  if (!spec.ok()) return spec.status();
  auto r = predictor->BuildRecipe(*spec, {.chip = a.chip,
                                          .dtype = predict::DtypeOfPrecision(a.dtype),
                                          .gpus = a.base_gpus,
                                          .entry = predict::RecipeEntry::kCurrentBase,
                                          .release = a.release});
  if (!r.ok()) return Status::Invalid("--model " + a.model + ": " + r.status().message());
  auto chosen = predictor->Release(a.release, a.chip, a.dtype);
  if (!chosen.ok()) return chosen.status();
  auto chip = predictor->LoadChip(a.chip);
  if (!chip.ok()) return chip.status();
  auto rates = predictor->Rates(*r, *chip, chosen->constants, {.sets = a.sets});
  if (!rates.ok()) return rates.status();
  std::vector<int> gpus;
  for (int g = 8; g <= 2048; g *= 2) gpus.push_back(g);
  PredictedAnswer out;
  out.release = chosen->Header();

  auto curve = predict::PredictWeakScaling(*r, rates->rates, chosen->constants, gpus);
  if (!curve.ok()) return curve.status();
  out.curve = std::move(*curve);
  auto base = predictor->PredictAt(*r, std::move(*rates), chosen->constants);
  if (!base.ok()) return base.status();
  auto anchor = predictor->AnchorOn(*chosen, a.dtype, *r, base->step.step_time_s);
  if (!anchor.ok()) return anchor.status();
  const predict::ExpectedQuery unanchored{
      .precision = a.dtype, .moe = spec->moe.has_value(), .model_has_rows = anchor->has_value()};
  out.expected = chosen->ExpectedLine(unanchored);
  if (*anchor) {
    predict::ExpectedQuery anchored = unanchored;
    anchored.anchored = true;
    anchored.anchor = &**anchor;
    out.anchor = (*anchor)->Describe();
    out.expected_anchored = chosen->ExpectedLine(anchored);
    out.anchor_factor = (*anchor)->anchored_s / base->step.step_time_s;
  }
  return out;
}

// The predicted curve, with the measured per-rank figure and efficiency beside it where a
// measured count matches.
void PrintPredicted(const ScalingArgs& a, const PredictedAnswer& answer,
                    const predict::ScalingReport* measured) {
  const predict::PredictedScaling& curve = answer.curve;
  fmt::print("# {}\n# {}\n", answer.release, answer.expected);
  if (answer.anchor_factor > 0) {
    fmt::print("# anchored on {}: every point x {:.3f}\n# {}\n", answer.anchor,
               answer.anchor_factor, answer.expected_anchored);
  } else {
    fmt::print("# anchored: none (no published row of {} on {} in that release or an older one)\n",
               a.model, a.chip);
  }
  fmt::print(
      "# predicted weak scaling of {} on {} ({}): recipe parallelism kept, data parallel "
      "and GBS grown; efficiency = tokens/s/GPU / the best at that count or fewer (from {} "
      "GPUs)\n",
      a.model, a.chip, a.dtype, curve.points.front().gpus);
  const TextTable table({{"GPUs", Align::kRight, 6},
                         {"step s", Align::kRight, 10, " "},
                         {"anchored s", Align::kRight, 10, " "},
                         {"tokens/s/GPU", Align::kRight, 14, " "},
                         {"efficiency", Align::kRight, 10, " "},
                         {"exposed comm", Align::kRight, 12, " "},
                         {"measured", Align::kRight, 14, " "},
                         {"meas. eff", Align::kRight, 10, " "}},
                        {.indent = "  ", .header_indent = "# "});
  fmt::print("{}", table.HeaderLine());
  for (const auto& p : curve.points) {
    std::string mv = "-", me = "-";
    if (measured != nullptr) {
      for (const auto& r : measured->rows) {
        if (r.ranks == p.gpus) {
          mv = fmt::format("{:.6g}", r.value);
          me = fmt::format("{:.1f}%", 100 * r.efficiency);
        }
      }
    }
    const std::string anchored =
        answer.anchor_factor > 0 ? fmt::format("{:.3f}", p.step_s * answer.anchor_factor) : "-";
    fmt::print("{}", table.Line({std::to_string(p.gpus), fmt::format("{:.3f}", p.step_s), anchored,
                                 fmt::format("{:.1f}", p.tokens_per_s_per_gpu),
                                 fmt::format("{:.1f}%", 100 * p.efficiency),
                                 fmt::format("{:.3f}s", p.exposed_comm_s), mv, me}));
  }
  for (const auto& s : curve.skipped) fmt::print("# skipped: {}\n", s);
  if (!curve.gain.empty()) fmt::print("# note: {}\n", curve.gain);
}

// One point of the predicted weak-scaling curve. Only written.
struct PredictedRow {
  const predict::PredictedScalingPoint& p;
  double anchored_step_s = 0;  // 0: no anchor
};

template <typename V>
void Fields(V& v, PredictedRow& r) {
  v("gpus", r.p.gpus);
  v("step_s", r.p.step_s);
  v.optional("anchored_step_s", r.anchored_step_s, r.anchored_step_s > 0);
  v("tokens_per_s_per_gpu", r.p.tokens_per_s_per_gpu);
  v("efficiency", r.p.efficiency);
  v("exposed_comm_s", r.p.exposed_comm_s);
  v("data_parallel", r.p.data_parallel);
}

std::vector<PredictedRow> PredictedRows(const PredictedAnswer& answer) {
  std::vector<PredictedRow> rows;
  for (const auto& p : answer.curve.points) rows.push_back({p, p.step_s * answer.anchor_factor});
  return rows;
}

// `scaling --model --json` without --unit: the predicted curve alone.
struct PredictedDocument {
  std::string model;
  std::string release;  // the release line
  std::string anchor;   // the anchor row, "" when none
  std::vector<PredictedRow> predicted;
  std::string expected, expected_anchored;  // the expected |error| lines (release_choice.h)
  std::string gain;                         // predict/scaling.h PredictedScaling::gain ("" none)
};

template <typename V>
void Fields(V& v, PredictedDocument& d) {
  v("model", d.model);
  v("release", d.release);
  v.optional("anchor", d.anchor, !d.anchor.empty());
  v("predicted", d.predicted);
  v("expected_error", d.expected);
  v.optional("anchored_expected_error", d.expected_anchored, !d.anchor.empty());
  v.optional("gain", d.gain, !d.gain.empty());
}

// One measured rank count; the speed-up only for per-rank throughput.
struct MeasuredRow {
  const predict::ScalingRow& r;
  bool has_speedup;
};

template <typename V>
void Fields(V& v, MeasuredRow& m) {
  v("ranks", m.r.ranks);
  v("value", m.r.value);
  v("efficiency", m.r.efficiency);
  v("below_target", m.r.below_target);
  v.optional("speedup", m.r.speedup, m.has_speedup);
}

// `scaling --unit --json`: the measured points, and the predicted curve with --model.
struct ScalingDocument {
  std::string unit;
  std::string figure;
  const predict::ScalingReport& report;
  std::vector<MeasuredRow> points;
  std::optional<std::vector<PredictedRow>> predicted;
};

template <typename V>
void Fields(V& v, ScalingDocument& d) {
  v("unit", d.unit);
  v("figure", d.figure);
  v("base_ranks", d.report.base_ranks);
  v("target", d.report.target);
  v("worst_efficiency", d.report.worst_efficiency);
  v("linear", d.report.linear);
  v("points", d.points);
  v.optional("predicted", d.predicted);
}

YS_DOCUMENT_SCHEMA("scaling", ScalingDocument, "yardstick scaling --unit --json",
                   "A unit measured at several rank counts: each point's value and efficiency "
                   "against linear scaling, and the predicted curve with --model.");
YS_DOCUMENT_SCHEMA("scaling_predicted", PredictedDocument, "yardstick scaling --model --json",
                   "The predicted weak-scaling curve of a model, anchored to a published row "
                   "when one matches.");

bool IsCollective(const std::string& unit) { return StartsWith(unit, "coll."); }

// The figure a job's document gives for `unit`: a proxy's tokens/s per GPU, or a collective's
// out-of-place busbw at `size` bytes.
Result<double> FigureOf(const RunDocument& doc, const std::string& unit, uint64_t size) {
  std::vector<const BenchmarkResult*> results;
  for (const auto& b : doc.benchmarks) results.push_back(&b);
  for (const auto& n : doc.nodes) {
    for (const auto& b : n.benchmarks) results.push_back(&b);
  }
  for (const BenchmarkResult* b : results) {
    if (b->unit_id != unit) continue;
    if (b->outcome == Outcome::kSkip || b->outcome == Outcome::kError) {
      return Status::Invalid(fmt::format("{} {}: {}", unit, OutcomeName(b->outcome), b->summary));
    }
    for (const Measurement& m : b->measurements) {
      if (IsCollective(unit)) {
        auto s = m.params.find("size");
        auto inplace = m.params.find("inplace");
        if (m.name == unit + ".busbw" && s != m.params.end() && s->second == std::to_string(size) &&
            inplace != m.params.end() && inplace->second == "0") {
          return m.value;
        }
      } else if (m.name == unit + ".tokens_per_s_per_gpu") {
        return m.value;
      }
    }
  }
  return Status::Invalid(fmt::format(
      "the document has no {} figure for {}",
      IsCollective(unit) ? "busbw at " + std::to_string(size) + " B" : "tokens_per_s_per_gpu",
      unit));
}

std::vector<std::string> JobArgv(const ScalingArgs& a, int ranks, const std::string& self) {
  std::vector<std::string> argv;
  if (a.launcher == "srun") {
    argv = {"srun", "-n", std::to_string(ranks), "--mpi=pmix"};
  } else {
    argv = {"mpirun", "-np", std::to_string(ranks)};
    if (::geteuid() == 0) argv.push_back("--allow-run-as-root");
    if (a.oversubscribe) argv.push_back("--oversubscribe");
  }
  for (std::string s : {self, std::string("bench"), std::string("--filter"), a.unit,
                        std::string("--json"), std::string("--no-history")}) {
    argv.push_back(std::move(s));
  }
  if (IsCollective(a.unit)) argv.insert(argv.end(), {"--sizes", a.size});
  if (a.iters > 0) argv.insert(argv.end(), {"--iters", std::to_string(a.iters)});
  return argv;
}

// The rank counts of --ranks (or 1, 2, 4 ... --max-ranks); nullopt after logging a usage error.
std::optional<std::vector<int>> RankCounts(const ScalingArgs& a) {
  if (a.ranks.empty()) return predict::PowersOfTwoUpTo(a.max_ranks);
  std::vector<int> counts;
  for (std::string_view part : Split(a.ranks, ',')) {
    auto k = ParseInt(part);
    if (!k || *k < 1) {
      Log(LogLevel::kError, "--ranks {}: \"{}\" is not a rank count of 1 or more", a.ranks, part);
      return std::nullopt;
    }
    counts.push_back(static_cast<int>(*k));
  }
  return counts;
}

// One job per rank count through the launcher, and the figure each job's document gives.
Result<std::vector<predict::ScalingPoint>> MeasurePoints(const ScalingArgs& a,
                                                         const std::vector<int>& counts,
                                                         uint64_t size) {
  std::error_code ec;
  std::string self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (ec) {
    return Status::Io("/proc/self/exe: " + ec.message());
  }
  std::vector<predict::ScalingPoint> points;
  for (int k : counts) {
    if (IsCollective(a.unit) && k == 1) continue;  // one rank moves no data
    std::vector<std::string> argv = JobArgv(a, k, self);
    if (!a.json) fmt::print(stderr, "scaling: {} ranks: {}\n", k, Join(argv, " "));
    auto run = host::RunSubprocess(
        {.argv = argv,
         .timeout = std::chrono::milliseconds(static_cast<int64_t>(a.timeout_s * 1000))});
    if (!run.ok()) return run.status();
    auto doc = [&]() -> Result<RunDocument> {
      try {
        return RunDocumentFromJson(nlohmann::json::parse(run->out));
      } catch (const nlohmann::json::exception& e) {
        return Status::Invalid(std::string("not a run document: ") + e.what());
      }
    }();
    auto figure = doc.ok() ? FigureOf(*doc, a.unit, size) : Result<double>(doc.status());
    if (!figure.ok()) {
      return Status(figure.status().code(),
                    fmt::format("{} ranks ({}): {}; {}", k, run->Describe(),
                                figure.status().message(), run->Explain(argv[0])));
    }
    points.push_back({.ranks = k, .value = *figure});
  }
  return points;
}

// The measured points as a table, the verdict line and, with --model, the predicted curve.
void PrintMeasured(const ScalingArgs& a, const predict::ScalingReport& report,
                   predict::ScalingKind kind, const char* what,
                   const std::optional<PredictedAnswer>& curve) {
  std::vector<std::string> shown;
  for (const auto& r : report.rows) shown.push_back(std::to_string(r.ranks));
  fmt::print("# {} scaling over {} ranks: {}; efficiency = value / value at {} ranks{}\n", a.unit,
             Join(shown, ", "), what, report.base_ranks,
             kind == predict::ScalingKind::kPerRankThroughput
                 ? "; speed-up = ranks / base x efficiency"
                 : "");
  const TextTable table({{"ranks", Align::kRight, 6},
                         {what, Align::kRight, 14, " "},
                         {"efficiency", Align::kRight, 10, " "},
                         {"speed-up", Align::kRight, 9, " "},
                         {"", Align::kLeft, 0, ""}},
                        {.indent = "  ", .header_indent = "# "});
  fmt::print("{}", table.HeaderLine());
  for (const auto& r : report.rows) {
    fmt::print("{}", table.Line({std::to_string(r.ranks), fmt::format("{:.6g}", r.value),
                                 fmt::format("{:.1f}%", r.efficiency * 100),
                                 r.speedup ? fmt::format("{:.2f}", *r.speedup) : "-",
                                 r.below_target ? "  below target" : ""}));
  }
  fmt::print("scaling: worst efficiency {:.1f}% against a target of {:.1f}%: {}\n",
             report.worst_efficiency * 100, report.target * 100,
             report.linear ? "LINEAR" : "BELOW TARGET");
  if (curve) PrintPredicted(a, *curve, &report);
}

// The measured series of --unit (after the predicted curve of --model, when given).
Result<int> RunMeasured(const ScalingArgs& a, const std::optional<PredictedAnswer>& curve) {
  if (!StartsWith(a.unit, "proxy.") && !IsCollective(a.unit)) {
    Log(LogLevel::kError, "--unit {}: expected a proxy (proxy.*) or a collective (coll.*)", a.unit);
    return kExitUsage;
  }
  auto size = bench::ParseByteSize(a.size);
  if (!size.ok()) {
    Log(LogLevel::kError, "--size: {}", size.status().message());
    return kExitUsage;
  }
  std::optional<std::vector<int>> counts = RankCounts(a);
  if (!counts) return kExitUsage;
  auto points = MeasurePoints(a, *counts, *size);
  if (!points.ok()) return points.status();
  auto kind = IsCollective(a.unit) ? predict::ScalingKind::kBusBandwidth
                                   : predict::ScalingKind::kPerRankThroughput;
  auto report = predict::AnalyseScaling(*points, kind, a.target);
  if (!report.ok()) return report.status();
  const char* what = IsCollective(a.unit) ? "busbw GB/s" : "tokens/s/GPU";
  if (a.json) {
    ScalingDocument doc{.unit = a.unit, .figure = what, .report = *report};
    for (const auto& r : report->rows) doc.points.push_back({r, r.speedup.has_value()});
    if (curve) doc.predicted = PredictedRows(*curve);
    std::cout << DumpJson(json_fields::Write(doc)) << "\n";
  } else {
    PrintMeasured(a, *report, kind, what, curve);
  }
  return report->linear ? kExitPass : kExitFail;
}

Result<int> RunScaling(ScalingArgs& a) {
  YS_RETURN_IF_ERROR(RefuseOutOfRange(
      {CheckRange(a.timeout_s, 0, kMaxTimeoutSeconds, "--timeout", LowerBound::kExclusive)}));
  std::optional<PredictedAnswer> curve;
  if (!a.model.empty()) {
    if (a.chip.empty() || a.dtype.empty()) {
      Log(LogLevel::kError, "scaling: --model needs --chip and --dtype");
      return kExitUsage;
    }
    for (auto [flag, folder, value] :
         {std::tuple{"--model", "models", &a.model}, {"--chip", "specs", &a.chip}}) {
      auto named = ResolveDataName(DataDir(a.data), folder, flag, *value);
      if (!named.ok()) return Prefixed("scaling", named.status());
      *value = *named;
    }
    auto c = PredictedCurve(a);
    if (!c.ok()) {
      return Prefixed("scaling", c.status());
    }
    curve = std::move(*c);
    if (a.unit.empty()) {
      if (a.json) {
        std::cout << DumpJson(json_fields::Write(PredictedDocument{
                         a.model, curve->release, curve->anchor, PredictedRows(*curve),
                         curve->expected, curve->expected_anchored, curve->curve.gain}))
                  << "\n";
      } else {
        PrintPredicted(a, *curve, nullptr);
      }
      return kExitPass;
    }
  } else if (a.unit.empty()) {
    Log(LogLevel::kError, "scaling: give --unit (measure) or --model (predict), or both");
    return kExitUsage;
  }
  return RunMeasured(a, curve);
}

Action Setup(CLI::App& sub) {
  auto a = std::make_shared<ScalingArgs>();
  sub.add_option("--unit", a->unit, "A proxy (proxy.llama3.1_8b) or collective (coll.all_reduce)");
  sub.add_option("--model", a->model,
                 "Also print the predicted weak-scaling curve (8 to 2048 GPUs) of this model's "
                 "recipe (a name from models/ or a model file)");
  sub.add_option("--chip", a->chip, "With --model: the chip (specs/)");
  sub.add_option("--dtype", a->dtype,
                 "With --model: bf16, fp8 (current scaling), fp8_cs, fp8_ds, mxfp8 or nvfp4");
  sub.add_option("--release", a->release,
                 "With --model: the release whose calibrated constants apply (26.04.01; default "
                 "the newest calibrated)");
  sub.add_option("--base-gpus", a->base_gpus,
                 "With --model: the recipe entry to grow (default: the smallest for the chip)");
  sub.add_option("--set", a->sets, "With --model: override a rate, as predict --set");
  sub.add_option("--data", a->data, "Directory holding models/, specs/, calibration/");
  sub.add_option("--ranks", a->ranks,
                 "Rank counts, comma-separated (default 1, 2, 4 ... --max-ranks)");
  sub.add_option("--max-ranks", a->max_ranks, "Largest rank count of the default series")
      ->check(CLI::Range(1, 1 << 20));
  sub.add_option("--launcher", a->launcher, "How each job starts")
      ->check(CLI::IsMember({"mpirun", "srun"}));
  sub.add_flag("--oversubscribe", a->oversubscribe, "mpirun: more ranks than cores");
  sub.add_option("--size", a->size, "Collectives: the message size judged (default 16M)");
  sub.add_option("--iters", a->iters, "Timed iterations (steps) per job");
  sub.add_option("--target", a->target, "Efficiency each count must keep (default 0.99)")
      ->check(CLI::Range(0.01, 1.0));
  sub.add_option("--timeout", a->timeout_s, "Seconds each job may take");
  sub.add_flag("--json", a->json, "Print the points and efficiencies as JSON");
  return [a]() -> Result<int> { return RunScaling(*a); };
}

}  // namespace

YS_REGISTER(
    CommandOf<Setup>,
    {.id = "scaling",
     .summary =
         "Run a proxy or collective at 1, 2, 4 ... N ranks and report the scaling efficiency"})

}  // namespace ys::cli::cmd_scaling
