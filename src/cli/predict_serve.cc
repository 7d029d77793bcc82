#include "cli/predict_serve.h"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/command.h"
#include "core/exit_codes.h"
#include "core/run_document_json.h"
#include "predict/predictor.h"
#include "predict/published_table.h"
#include "predict/serve_system.h"

namespace ys::cli {
namespace {

Status Missing(const char* flag, const char* what) {
  return Status::Invalid(fmt::format("{}: missing; expected {}", flag, what));
}

std::string TermsConsole(const char* title, const std::vector<predict::ServeTerm>& terms,
                         double total, const char* total_name) {
  std::string out = fmt::format("{}\n", title);
  for (const predict::ServeTerm& t : terms) {
    out += fmt::format("  {:<27} {:>10.3f} ms  {}\n", t.name, t.seconds * 1e3, t.basis);
  }
  out += fmt::format("  {:<27} {:>10.3f} ms\n", total_name, total * 1e3);
  return out;
}

std::string LoadText(const ServeArgs& a) {
  return a.max_throughput ? std::string("max throughput")
                          : fmt::format("concurrency {}", a.concurrency);
}

std::string LayoutText(const ServeArgs& a) {
  std::string out = fmt::format("TP {}", a.tp);
  if (a.pp > 1) out += fmt::format(" PP {}", a.pp);
  if (a.ep > 1) out += fmt::format(" EP {}", a.ep);
  if (a.prefill_gpus > 0) {
    out +=
        fmt::format(", disaggregated: {} prefill + {} decode GPUs", a.prefill_gpus, a.decode_gpus);
  }
  return out;
}

// --model as a file of models/, a [model] workload_names alias, or a path.
Result<std::string> ResolveModel(const predict::Predictor& predictor, const ServeArgs& a) {
  const std::string path = predictor.ModelPath(a.model);
  if (std::filesystem::exists(path)) return path;
  auto name = ResolveDataName(predictor.data_dir(), "models", "--model", a.model);
  if (!name.ok()) return name.status();
  return predictor.ModelPath(*name);
}

// The serving system of the chip with --measured and --set laid over its reference rates
// (predict/serve_system.h).
Result<predict::ServeSystemOf> SystemOf(const predict::Predictor& predictor, const ServeArgs& a,
                                        const predict::ModelSpec& spec,
                                        const bench::DeviceSpec& chip) {
  std::vector<RunDocument> docs;
  docs.reserve(a.measured.size());
  predict::ServeSystemQuery q{.chip = a.chip,
                              .precision = a.dtype,
                              .layout = {a.gpus, a.tp, a.pp, a.ep, a.prefill_gpus, a.decode_gpus},
                              .isl = a.isl,
                              .rates = {.sets = a.sets}};
  for (const std::string& path : a.measured) {
    auto j = ReadJsonFile(path);
    if (!j.ok()) return j.status();
    auto doc = RunDocumentFromJson(*j);
    if (!doc.ok()) return Status::Invalid(path + ": " + doc.status().message());
    docs.push_back(std::move(*doc));
    q.rates.measured.emplace_back(path, &docs.back());
  }
  return predict::BuildServeSystem(predictor, spec, chip, q);
}

}  // namespace

void AddServeOptions(CLI::App& sub, bool* serve, ServeArgs* a) {
  sub.add_flag("--serve", *serve,
               "Predict a serving deployment (throughput, TTFT, TPOT) instead of a training step");
  sub.add_option("--isl", a->isl, "With --serve: input tokens per request")
      ->check(CLI::Range(1, 1 << 22));
  sub.add_option("--osl", a->osl, "With --serve: output tokens per request")
      ->check(CLI::Range(1, 1 << 22));
  sub.add_option("--concurrency", a->concurrency, "With --serve: requests in flight")
      ->check(CLI::Range(1, 1 << 24));
  sub.add_flag("--max-throughput", a->max_throughput,
               "With --serve: every request queued at once (offline max throughput)");
  sub.add_option("--prefill-gpus", a->prefill_gpus, "With --serve: GPUs of prefill workers")
      ->check(CLI::Range(1, 1 << 20));
  sub.add_option("--decode-gpus", a->decode_gpus, "With --serve: GPUs of decode workers")
      ->check(CLI::Range(1, 1 << 20));
}

Status CheckServeArgs(const ServeArgs& a) {
  if (a.model.empty()) return Missing("--model", "a model of models/ (llama3.1_70b)");
  if (a.chip.empty()) return Missing("--chip", "a chip of specs/ (h100)");
  if (a.dtype.empty()) return Missing("--dtype", "bf16, fp8 or nvfp4");
  if (a.gpus < 1) return Missing("--gpus", "the GPUs of the deployment, 1 or more");
  if (a.isl < 1) return Missing("--isl", "input tokens per request, 1 or more");
  if (a.osl < 1) return Missing("--osl", "output tokens per request, 1 or more");
  if (a.max_throughput && a.concurrency > 0) {
    return Status::Invalid("--concurrency " + std::to_string(a.concurrency) +
                           " with --max-throughput: expected one of them");
  }
  if (!a.max_throughput && a.concurrency < 1) {
    return Missing("--concurrency", "requests in flight (1 or more), or --max-throughput");
  }
  if ((a.prefill_gpus > 0) != (a.decode_gpus > 0)) {
    return Status::Invalid(a.prefill_gpus > 0 ? "--prefill-gpus: expected --decode-gpus beside it"
                                              : "--decode-gpus: expected --prefill-gpus beside it");
  }
  if (a.prefill_gpus > 0 && a.prefill_gpus + a.decode_gpus != a.gpus) {
    return Status::Invalid(fmt::format("--prefill-gpus {} + --decode-gpus {}: expected --gpus {}",
                                       a.prefill_gpus, a.decode_gpus, a.gpus));
  }
  if (a.gpus % (a.tp * a.pp) != 0) {
    return Status::Invalid(
        fmt::format("--tp {} × --pp {}: does not divide --gpus {}", a.tp, a.pp, a.gpus));
  }
  return Status::Ok();
}

std::string ServeConsole(const ServeArgs& a, const predict::ServePrediction& p,
                         const predict::ServeExpectedError& e, const std::string& constants_path) {
  std::string out =
      fmt::format("# serving prediction: {} {} on {} × {} ({}), ISL {} / OSL {}, {}\n", a.model,
                  a.dtype, a.gpus, a.chip, LayoutText(a), a.isl, a.osl, LoadText(a));
  out += fmt::format(
      "output {:.0f} tok/s ({:.1f} tok/s/GPU); per user {:.1f} tok/s; TTFT {:.3f} s; TPOT "
      "{:.2f} ms; batch {} per instance × {} instance{}\n",
      p.output_tokens_per_s, p.output_tokens_per_s_per_gpu, p.tokens_per_s_per_user, p.ttft_s,
      p.tpot_s * 1e3, p.batch_per_instance, p.instances, p.instances == 1 ? "" : "s");
  out += e.Line() + "\n\n";
  out += TermsConsole("prefill, per request", p.prefill, p.ttft_s, "TTFT (total)");
  out += TermsConsole("decode, per step", p.decode, p.tpot_s, "TPOT (total)");
  out += "notes:\n";
  for (const std::string& n : p.notes) out += "  - " + n + "\n";
  out += "constants: " + constants_path + "\n";
  return out;
}

Result<int> RunServe(ServeArgs a) {
  YS_RETURN_IF_ERROR(CheckServeArgs(a));
  auto predictor = predict::Predictor::Open(DataDir(a.data));
  if (!predictor.ok()) return predictor.status();
  auto model_path = ResolveModel(*predictor, a);
  if (!model_path.ok()) return model_path.status();
  auto chip_name = ResolveDataName(predictor->data_dir(), "specs", "--chip", a.chip);
  if (!chip_name.ok()) return chip_name.status();
  a.chip = *chip_name;
  auto spec = predict::LoadModelSpec(*model_path);
  if (!spec.ok()) return spec.status();
  auto chip = predictor->LoadChip(a.chip);
  if (!chip.ok()) return chip.status();
  auto system = SystemOf(*predictor, a, *spec, *chip);
  if (!system.ok()) return system.status();
  auto constants = predict::LoadServeConstants(predictor->data_dir());
  if (!constants.ok()) return constants.status();
  const std::string dtype = predict::DtypeOfPrecision(a.dtype);
  const predict::ServeLayout layout{a.gpus, a.tp, a.pp, a.ep, a.prefill_gpus, a.decode_gpus};
  const predict::ServeLoad load{a.isl, a.osl, a.concurrency, a.max_throughput};
  auto p = predict::PredictServe(*spec, dtype, layout, load, system->system,
                                 constants->For(a.chip, dtype));
  if (!p.ok()) return p.status();
  const auto expected = constants->Expected(a.chip, dtype, predict::ServeArchitecture(*spec));
  const std::string& constants_path = constants->path;
  a.model = spec->name;
  if (a.json) {
    std::cout << ServeJson(a, *p, expected, constants_path, system->measured).dump(2) << "\n";
  } else {
    std::cout << ServeConsole(a, *p, expected, constants_path);
  }
  return kExitPass;
}

}  // namespace ys::cli
