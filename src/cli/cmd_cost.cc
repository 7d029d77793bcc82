// `yardstick cost --prices FILE (--run RUN.json | --validation FILE | --tokens-per-s-per-gpu X)
// [--workload ID] [--gpus N] [--tokens 15T] [--reference-tokens-per-s X] [--compare PRICES2
// --compare-tokens-per-s X] [--json]`: what training costs at the measured throughput — $ per
// million tokens, cost and days for a token budget, the cost of the gap to the reference (from
// --reference-tokens-per-s, or the validation's score), and a TCO comparison with a second
// price/performance profile. Exit 0 on a result, 2 when an input cannot be read (the file, the
// field and what was expected), 64 on a usage error.
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "cli/command.h"
#include "core/exit_codes.h"
#include "core/log.h"
#include "core/report_json.h"
#include "cost/cost_model.h"
#include "cost/price_model.h"

namespace ys::cli {
namespace {

struct CostArgs {
  std::string prices, run, validation, workload, tokens = "1T", compare;
  std::optional<double> tps, reference_tps, compare_tps;
  std::optional<int> gpus;
  bool json = false;
};

struct Throughput {
  double tokens_per_s_per_gpu = 0;
  std::string source;           // "proxy.llama3.1_8b in run.json", "--tokens-per-s-per-gpu"
  std::optional<double> score;  // from a validation document
  std::optional<int> gpus;      // from a validation document
};

// proxy.<model>.tokens_per_s_per_gpu among a run document's measurements (top level and per
// benchmark); --workload picks one model when there are several.
Result<Throughput> FromRun(const std::string& path, const std::string& workload) {
  auto j = ReadJsonFile(path);
  if (!j.ok()) return j.status();
  std::vector<std::pair<std::string, double>> found;
  auto scan = [&](const nlohmann::json& ms) {
    if (!ms.is_array()) return;
    for (const auto& m : ms) {
      if (!m.is_object() || !m.contains("name") || !m["name"].is_string()) continue;
      std::string name = m["name"];
      const std::string suffix = ".tokens_per_s_per_gpu";
      if (name.rfind("proxy.", 0) != 0 || name.size() <= suffix.size() ||
          name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
        continue;
      if (!m.contains("value") || !m["value"].is_number()) continue;
      found.emplace_back(name.substr(6, name.size() - 6 - suffix.size()), m["value"].get<double>());
    }
  };
  if (j->is_object()) {
    if (j->contains("measurements")) scan((*j)["measurements"]);
    if (j->contains("benchmarks") && (*j)["benchmarks"].is_array())
      for (const auto& b : (*j)["benchmarks"])
        if (b.is_object() && b.contains("measurements")) scan(b["measurements"]);
  }
  std::string names;
  for (const auto& [n, v] : found) {
    if (!workload.empty() && (n == workload || "proxy." + n == workload))
      return Throughput{v, "proxy." + n + " in " + path, std::nullopt, std::nullopt};
    names += (names.empty() ? "" : ", ") + n;
  }
  if (found.empty())
    return Status::Invalid(path +
                           ": no proxy.<model>.tokens_per_s_per_gpu measurement (run a proxy "
                           "workload, or give --tokens-per-s-per-gpu)");
  if (!workload.empty())
    return Status::Invalid(path + ": no proxy measurement for --workload " + workload +
                           " (present: " + names + ")");
  if (found.size() > 1)
    return Status::Invalid(path + ": several proxy measurements (" + names +
                           "): choose one with --workload");
  return Throughput{found[0].second, "proxy." + found[0].first + " in " + path, std::nullopt,
                    std::nullopt};
}

// workloads[].tokens_per_s_per_gpu (and score, gpus) of a validation document.
Result<Throughput> FromValidation(const std::string& path, const std::string& workload) {
  auto j = ReadJsonFile(path);
  if (!j.ok()) return j.status();
  if (!j->is_object() || !j->contains("workloads") || !(*j)["workloads"].is_array())
    return Status::Invalid(path +
                           ": workloads: expected an array (a validation document, \"kind\": "
                           "\"yardstick-validation\")");
  std::vector<const nlohmann::json*> usable;
  std::string names;
  const auto& ws = (*j)["workloads"];
  for (size_t i = 0; i < ws.size(); ++i) {
    const auto& w = ws[i];
    if (!w.is_object() || !w.contains("id") || !w["id"].is_string()) continue;
    bool has = w.contains("tokens_per_s_per_gpu") && w["tokens_per_s_per_gpu"].is_number();
    if (!workload.empty() && w["id"] == workload) {
      if (!has)
        return Status::Invalid(
            path + ": workloads[" + std::to_string(i) + "] (" + workload +
            "): tokens_per_s_per_gpu: expected a number (the workload was not measured)");
      usable = {&w};
      break;
    }
    if (has) {
      usable.push_back(&w);
      names += (names.empty() ? "" : ", ") + w["id"].get<std::string>();
    }
  }
  if (!workload.empty() && (usable.size() != 1 || (*usable[0])["id"] != workload))
    return Status::Invalid(path + ": no workload " + workload +
                           " with tokens_per_s_per_gpu (present: " + names + ")");
  if (usable.empty()) return Status::Invalid(path + ": no workload with tokens_per_s_per_gpu");
  if (usable.size() > 1)
    return Status::Invalid(path + ": several workloads (" + names +
                           "): choose one with --workload");
  const auto& w = *usable[0];
  Throughput t{w["tokens_per_s_per_gpu"].get<double>(), w["id"].get<std::string>() + " in " + path,
               std::nullopt, std::nullopt};
  if (w.contains("score") && w["score"].is_number()) t.score = w["score"].get<double>();
  if (w.contains("gpus") && w["gpus"].is_number_integer()) t.gpus = w["gpus"].get<int>();
  return t;
}

nlohmann::ordered_json ToJson(const cost::TrainingCost& c) {
  nlohmann::ordered_json j;
  j["tokens"] = c.tokens;
  j["gpus"] = c.gpus;
  j["tokens_per_s_per_gpu"] = c.tokens_per_s_per_gpu;
  j["wall_days"] = c.wall_days;
  j["billed_minutes"] = c.billed_minutes;
  j["gpu_hours_billed"] = c.gpu_hours_billed;
  j["compute_cost"] = c.compute_cost;
  j["storage_cost"] = c.storage_cost;
  j["network_cost"] = c.network_cost;
  j["total_cost"] = c.total_cost;
  return j;
}

std::string Money(double v, const std::string& cur) { return fmt::format("{:.2f} {}", v, cur); }

int Run(const CostArgs& a) {
  int inputs = !a.run.empty() + !a.validation.empty() + a.tps.has_value();
  if (inputs != 1) {
    Log(LogLevel::kError, "cost: give exactly one of --run, --validation, --tokens-per-s-per-gpu");
    return kExitUsage;
  }
  if (!a.compare.empty() && !a.compare_tps) {
    Log(LogLevel::kError,
        "cost: --compare needs --compare-tokens-per-s (the second profile's throughput)");
    return kExitUsage;
  }
  auto fail = [](const Status& s) {
    Log(LogLevel::kError, "{}", s.message());
    return kExitCannotRun;
  };
  auto prices = cost::LoadPriceModel(a.prices);
  if (!prices.ok()) return fail(prices.status());
  Result<Throughput> t = Throughput{};
  if (!a.run.empty())
    t = FromRun(a.run, a.workload);
  else if (!a.validation.empty())
    t = FromValidation(a.validation, a.workload);
  else
    t = Throughput{*a.tps, "--tokens-per-s-per-gpu", std::nullopt, std::nullopt};
  if (!t.ok()) return fail(t.status());
  if (!(t->tokens_per_s_per_gpu > 0))
    return fail(Status::Invalid(t->source + ": tokens/s/GPU " +
                                std::to_string(t->tokens_per_s_per_gpu) + ": expected > 0"));
  auto tokens = cost::ParseTokenCount(a.tokens);
  if (!tokens.ok()) return fail(Status::Invalid("--tokens: " + tokens.status().message()));
  int gpus = a.gpus ? *a.gpus : (t->gpus ? *t->gpus : 8);
  if (gpus <= 0) return fail(Status::Invalid("--gpus: expected a whole number > 0"));

  const std::string& cur = prices->currency;
  double blended = cost::BlendedPricePerGpuHour(*prices);
  auto per_m = cost::CostPerMillionTokens(blended, t->tokens_per_s_per_gpu);
  if (!per_m.ok()) return fail(per_m.status());
  auto train = cost::CostToTrain(*prices, t->tokens_per_s_per_gpu, gpus, *tokens);
  if (!train.ok()) return fail(train.status());

  // The gap: an explicit reference throughput, else the validation's score.
  std::optional<cost::GapCost> gap;
  double ref = 0;
  if (a.reference_tps)
    ref = *a.reference_tps;
  else if (t->score && *t->score > 0)
    ref = t->tokens_per_s_per_gpu / *t->score;
  if (ref > 0) {
    auto g = cost::CostOfGap(*prices, t->tokens_per_s_per_gpu, ref, gpus, *tokens);
    if (!g.ok()) return fail(g.status());
    gap = *g;
  } else if (a.reference_tps) {
    return fail(Status::Invalid("--reference-tokens-per-s: expected a number > 0"));
  }

  std::optional<cost::Comparison> cmp;
  std::optional<cost::PriceModel> other;
  if (!a.compare.empty()) {
    auto p2 = cost::LoadPriceModel(a.compare);
    if (!p2.ok()) return fail(p2.status());
    other = *p2;
    std::string na = prices->name, nb = p2->name;
    if (na == nb) {
      na += " (a)";
      nb += " (b)";
    }
    auto c = cost::CompareProfiles({na, *prices, t->tokens_per_s_per_gpu},
                                   {nb, *p2, *a.compare_tps}, gpus, *tokens);
    if (!c.ok()) return fail(c.status());
    cmp = *c;
  }

  if (a.json) {
    nlohmann::ordered_json j;
    j["prices"] = {{"name", prices->name},
                   {"file", a.prices},
                   {"currency", cur},
                   {"blended_per_gpu_hour", blended}};
    j["throughput"] = {{"tokens_per_s_per_gpu", t->tokens_per_s_per_gpu}, {"source", t->source}};
    j["cost_per_million_tokens"] = *per_m;
    j["training"] = ToJson(*train);
    if (gap) {
      j["gap"] = {{"score", gap->score},
                  {"reference_tokens_per_s_per_gpu", ref},
                  {"extra_fraction", gap->extra_fraction},
                  {"extra_cost", gap->extra_cost},
                  {"total_cost_at_reference", gap->at_reference.total_cost}};
    } else {
      j["gap"] = nullptr;
    }
    if (cmp) {
      j["compare"] = {{"prices", other->name},
                      {"file", a.compare},
                      {"blended_per_gpu_hour", cost::BlendedPricePerGpuHour(*other)},
                      {"training", ToJson(cmp->b)},
                      {"cheaper", cmp->cheaper},
                      {"saving", cmp->saving},
                      {"dearer_extra_fraction", cmp->dearer_extra}};
    } else {
      j["compare"] = nullptr;
    }
    std::cout << DumpJson(j) << "\n";
    return kExitPass;
  }
  auto row = [](const std::string& k, const std::string& v) {
    std::cout << fmt::format("  {:<28} {}\n", k, v);
  };
  std::cout << fmt::format("Cost: {} ({})\n", prices->name, a.prices);
  row("blended GPU-hour",
      Money(blended, cur) + fmt::format(" ({:.0f}% on-demand, {:.0f}% reserved, {:.0f}% spot)",
                                        prices->on_demand_share * 100, prices->reserved_share * 100,
                                        prices->spot_share * 100));
  row("tokens/s/GPU", fmt::format("{:.1f} ({})", t->tokens_per_s_per_gpu, t->source));
  row("per million tokens", fmt::format("{:.4f} {}", *per_m, cur));
  row("token budget", fmt::format("{:.4g} tokens on {} GPUs", *tokens, gpus));
  row("wall time",
      fmt::format("{:.2f} days ({} billed minutes)", train->wall_days, train->billed_minutes));
  row("compute", Money(train->compute_cost, cur) +
                     fmt::format(" ({:.0f} GPU-hours)", train->gpu_hours_billed));
  row("storage", Money(train->storage_cost, cur));
  row("network", Money(train->network_cost, cur));
  row("total", Money(train->total_cost, cur));
  if (gap) {
    row("gap to reference",
        fmt::format("at {:.1f}% of reference ({:.1f} tokens/s/GPU) it costs {:.1f}% more: {}",
                    gap->score * 100, ref, gap->extra_fraction * 100, Money(gap->extra_cost, cur)));
  }
  if (cmp) {
    std::cout << fmt::format("Compared with: {} ({}) at {:.1f} tokens/s/GPU\n", other->name,
                             a.compare, *a.compare_tps);
    row("blended GPU-hour", Money(cost::BlendedPricePerGpuHour(*other), cur));
    row("wall time", fmt::format("{:.2f} days", cmp->b.wall_days));
    row("total", Money(cmp->b.total_cost, cur));
    if (cmp->cheaper.empty())
      row("cheaper", "neither: the totals are equal");
    else
      row("cheaper",
          fmt::format("{} by {} ({:.1f}% less than the other)", cmp->cheaper,
                      Money(cmp->saving, cur), cmp->dearer_extra / (1 + cmp->dearer_extra) * 100));
  }
  return kExitPass;
}

Action Setup(CLI::App& sub) {
  auto a = std::make_shared<CostArgs>();
  sub.add_option("--prices", a->prices, "A price model (TOML; see examples/prices.toml)")
      ->required();
  sub.add_option("--run", a->run,
                 "A run document (run.json) with a proxy.<model>.tokens_per_s_per_gpu measurement");
  sub.add_option("--validation", a->validation,
                 "A validation document (workloads[].tokens_per_s_per_gpu and score)");
  sub.add_option("--tokens-per-s-per-gpu", a->tps,
                 "Measured training tokens/s per GPU, given directly");
  sub.add_option("--workload", a->workload, "Which proxy model (run) or workload id (validation)");
  sub.add_option("--gpus", a->gpus, "GPUs training (default: the validation workload's, else 8)");
  sub.add_option("--tokens", a->tokens, "Token budget: 15T, 300B, 2.5e12 (default 1T)");
  sub.add_option("--reference-tokens-per-s", a->reference_tps,
                 "Reference tokens/s per GPU (default: from the validation's score)");
  sub.add_option("--compare", a->compare, "A second price model to compare with (TCO)");
  sub.add_option("--compare-tokens-per-s", a->compare_tps,
                 "Tokens/s per GPU of the second profile");
  sub.add_flag("--json", a->json, "Print the figures as JSON");
  return [a] { return Run(*a); };
}

}  // namespace

YS_REGISTER_COMMAND("cost",
                    "What training costs at the measured throughput: $ per million tokens, cost "
                    "and days for a token budget, the cost of the gap to the reference, and a "
                    "comparison of two price/performance profiles",
                    Setup)

}  // namespace ys::cli
