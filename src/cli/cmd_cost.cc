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
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "cli/command.h"
#include "core/document_schemas.h"
#include "core/exit_codes.h"
#include "core/json_fields.h"
#include "core/json_schema.h"
#include "core/log.h"
#include "core/run_document_json.h"
#include "core/text.h"
#include "core/text_table.h"
#include "cost/cost_model.h"
#include "cost/price_model.h"
#include "cost/throughput.h"
#include "history/run_input.h"
#include "report/html/validation_view.h"

namespace ys::cli::cmd_cost {
namespace {

struct CostArgs {
  std::string prices, run, validation, workload, tokens = "1T", compare;
  std::optional<double> tps, reference_tps, compare_tps;
  std::optional<int> gpus;
  bool json = false;
};

// The workload to cost: a validation document's workload (read by the report's reader) or a run
// document's proxy measurement, through the same extraction the report's Cost section uses.
Result<cost::WorkloadThroughput> FromValidation(const nlohmann::json& j, const std::string& path,
                                                const std::string& workload) {
  auto v = report::html::ValidationViewFromJson(j, path);
  if (!v.ok()) return v.status();
  auto found = report::html::ValidationThroughputs(*v, path);
  if (found.empty()) return Status::Invalid(path + ": no workload with tokens_per_s_per_gpu");
  return cost::PickWorkload(found, workload, path);
}

// --run FILE: a run document, or a validation document given there (the same reader as diagnose
// and compare tells them apart by the document's kind).
Result<cost::WorkloadThroughput> FromRun(const std::string& path, const std::string& workload) {
  auto in = history::ReadRunInput(path);
  if (!in.ok()) return in.status();
  if (in->validation) return FromValidation(*in->validation, path, workload);
  auto found = cost::RunThroughputs(*in->run, path);
  if (found.empty()) {
    return Status::Invalid(path +
                           ": no proxy.<model>.tokens_per_s_per_gpu measurement (run a proxy "
                           "workload, or give --tokens-per-s-per-gpu)");
  }
  return cost::PickWorkload(found, workload, path);
}

// The field lists of the cost document (core/json_fields.h); written only.
struct Training {
  const cost::TrainingCost& c;
};

template <typename V>
void Fields(V& v, Training& t) {
  const cost::TrainingCost& c = t.c;
  v("tokens", c.tokens);
  v("gpus", c.gpus);
  v("tokens_per_s_per_gpu", c.tokens_per_s_per_gpu);
  v("wall_days", c.wall_days);
  v("billed_minutes", c.billed_minutes);
  v("gpu_hours_billed", c.gpu_hours_billed);
  v("compute_cost", c.compute_cost);
  v("storage_cost", c.storage_cost);
  v("network_cost", c.network_cost);
  v("total_cost", c.total_cost);
}

struct PricesUsed {
  const cost::PriceModel& prices;
  const std::string& file;
};

template <typename V>
void Fields(V& v, PricesUsed& p) {
  v("name", p.prices.name);
  v("file", p.file);
  v("currency", p.prices.currency);
  v.computed("blended_per_gpu_hour", [&] { return cost::BlendedPricePerGpuHour(p.prices); });
}

struct Throughput {
  const cost::WorkloadThroughput& t;
};

template <typename V>
void Fields(V& v, Throughput& x) {
  v("tokens_per_s_per_gpu", x.t.tokens_per_s_per_gpu);
  v("source", x.t.source);
}

struct Gap {
  const cost::GapCost& g;
  double reference_tokens_per_s_per_gpu;
};

template <typename V>
void Fields(V& v, Gap& x) {
  v("score", x.g.score);
  v("reference_tokens_per_s_per_gpu", x.reference_tokens_per_s_per_gpu);
  v("extra_fraction", x.g.extra_fraction);
  v("extra_cost", x.g.extra_cost);
  v("total_cost_at_reference", x.g.at_reference.total_cost);
}

struct Compared {
  const cost::PriceModel& other;
  const std::string& file;
  const cost::Comparison& cmp;
};

template <typename V>
void Fields(V& v, Compared& x) {
  v("prices", x.other.name);
  v("file", x.file);
  v.computed("blended_per_gpu_hour", [&] { return cost::BlendedPricePerGpuHour(x.other); });
  v.computed("training", [&] { return Training{x.cmp.b}; });
  v("cheaper", x.cmp.cheaper);
  v("saving", x.cmp.saving);
  v("dearer_extra_fraction", x.cmp.dearer_extra);
}

struct CostDocument {
  PricesUsed prices;
  Throughput throughput;
  std::vector<std::string> estimate_reasons;  // empty: the price of a measured recipe run
  double cost_per_million_tokens = 0;
  Training training;
  std::optional<Gap> gap;           // null when there is no reference
  std::optional<Compared> compare;  // null without --compare
};

template <typename V>
void Fields(V& v, CostDocument& d) {
  v("prices", d.prices);
  v("throughput", d.throughput);
  v.computed("estimate", [&] { return !d.estimate_reasons.empty(); });
  v("estimate_reasons", d.estimate_reasons);
  v("cost_per_million_tokens", d.cost_per_million_tokens);
  v("training", d.training);
  v("gap", d.gap);
  v("compare", d.compare);
}

YS_DOCUMENT_SCHEMA("cost", CostDocument, "yardstick cost --json",
                   "What a training run costs at a price model: the throughput used, the "
                   "training's time and cost, the cost of the gap to the reference and the "
                   "comparison with another price model.");

// Money to the cent; an estimate's to two significant figures ("~620000 USD"): a proxy's
// throughput cannot price a training to the cent.
std::string Money(double v, const std::string& cur, bool estimate = false) {
  if (estimate) return fmt::format("~{} {}", TwoSignificant(v), cur);
  return fmt::format("{:.2f} {}", v, cur);
}

// The throughput judged: from a run document, a validation document or given.
Result<cost::WorkloadThroughput> ThroughputOf(const CostArgs& a) {
  if (!a.run.empty()) return FromRun(a.run, a.workload);
  if (!a.validation.empty()) {
    auto v = history::ReadValidationInput(a.validation, "--validation");
    if (!v.ok()) return v.status();
    return FromValidation(*v, a.validation, a.workload);
  }
  return cost::WorkloadThroughput{.source = "--tokens-per-s-per-gpu",
                                  .tokens_per_s_per_gpu = *a.tps};
}

// The console form: the price model, the throughput, the training's cost, the gap to the
// reference and, with --compare, the other price model.
void PrintCost(const CostArgs& a, const cost::PriceModel& prices, const cost::WorkloadThroughput& t,
               double tokens, const cost::WorkloadCost& c,
               const std::optional<cost::Comparison>& cmp,
               const std::optional<cost::PriceModel>& other) {
  const std::string& cur = prices.currency;
  const double blended = cost::BlendedPricePerGpuHour(prices);
  const int gpus = c.training.gpus;
  const cost::TrainingCost& train = c.training;
  const std::optional<cost::GapCost>& gap = c.gap;
  const double ref = c.reference_tokens_per_s_per_gpu.value_or(0);
  const TextTable rows({{"", Align::kLeft, 28}, {"", Align::kLeft, 0, " "}}, {.indent = "  "});
  auto row = [&rows](const std::string& k, const std::string& v) {
    std::cout << rows.Line({k, v});
  };
  const bool estimate = !c.estimate_reasons.empty();
  std::cout << fmt::format("Cost{}: {} ({})\n", estimate ? " (estimate)" : "", prices.name,
                           a.prices);
  if (estimate) {
    std::string why;
    for (const std::string& r : c.estimate_reasons) why += (why.empty() ? "" : "; ") + r;
    row("estimate", "yes: " + why);
  }
  row("blended GPU-hour",
      Money(blended, cur) + fmt::format(" ({:.0f}% on-demand, {:.0f}% reserved, {:.0f}% spot)",
                                        prices.on_demand_share * 100, prices.reserved_share * 100,
                                        prices.spot_share * 100));
  row("tokens/s/GPU", fmt::format("{:.1f} ({})", t.tokens_per_s_per_gpu, t.source));
  row("per million tokens", estimate ? Money(c.per_million_tokens, cur, true)
                                     : fmt::format("{:.4f} {}", c.per_million_tokens, cur));
  row("token budget", fmt::format("{:.4g} tokens on {} GPUs", tokens, gpus));
  row("wall time",
      fmt::format("{:.2f} days ({} billed minutes)", train.wall_days, train.billed_minutes));
  row("compute", Money(train.compute_cost, cur, estimate) +
                     fmt::format(" ({:.0f} GPU-hours)", train.gpu_hours_billed));
  row("storage", Money(train.storage_cost, cur, estimate));
  row("network", Money(train.network_cost, cur, estimate));
  row("total", Money(train.total_cost, cur, estimate));
  if (gap) {
    row("gap to reference",
        fmt::format("at {:.1f}% of reference ({:.1f} tokens/s/GPU) it costs {:.1f}% more: {}",
                    gap->score * 100, ref, gap->extra_fraction * 100,
                    Money(gap->extra_cost, cur, estimate)));
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
}

Result<int> Run(const CostArgs& a) {
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
  auto prices = cost::LoadPriceModel(a.prices);
  if (!prices.ok()) return prices.status();
  Result<cost::WorkloadThroughput> t = ThroughputOf(a);
  if (!t.ok()) return t.status();
  auto tokens = cost::ParseTokenCount(a.tokens, "--tokens");
  if (!tokens.ok()) return tokens.status();
  if (a.reference_tps) {
    Status s = cost::CheckTokensPerSPerGpu(*a.reference_tps, "--reference-tokens-per-s");
    if (!s.ok()) return s;
  }
  if (a.compare_tps) {
    Status s = cost::CheckTokensPerSPerGpu(*a.compare_tps, "--compare-tokens-per-s");
    if (!s.ok()) return s;
  }
  // The gap: an explicit reference throughput, else the validation's score.
  auto c = cost::CostOfWorkload(*prices, *t, a.gpus, *tokens, a.reference_tps);
  if (!c.ok()) return c.status();

  const int gpus = c->training.gpus;
  const cost::TrainingCost& train = c->training;
  const std::optional<cost::GapCost>& gap = c->gap;
  const double ref = c->reference_tokens_per_s_per_gpu.value_or(0);

  std::optional<cost::Comparison> cmp;
  std::optional<cost::PriceModel> other;
  if (!a.compare.empty()) {
    auto p2 = cost::LoadPriceModel(a.compare);
    if (!p2.ok()) return p2.status();
    other = *p2;
    std::string na = prices->name, nb = p2->name;
    if (na == nb) {
      na += " (a)";
      nb += " (b)";
    }
    auto compared = cost::CompareProfiles({na, *prices, t->tokens_per_s_per_gpu},
                                          {nb, *p2, *a.compare_tps}, gpus, *tokens);
    if (!compared.ok()) return compared.status();
    cmp = *compared;
  }

  if (a.json) {
    CostDocument d{.prices = {*prices, a.prices},
                   .throughput = {*t},
                   .estimate_reasons = c->estimate_reasons,
                   .cost_per_million_tokens = c->per_million_tokens,
                   .training = {train}};
    if (gap) d.gap.emplace(Gap{*gap, ref});
    if (cmp) d.compare.emplace(Compared{*other, a.compare, *cmp});
    std::cout << DumpJson(json_fields::Write(d)) << "\n";
    return kExitPass;
  }
  PrintCost(a, *prices, *t, *tokens, *c, cmp, other);
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

YS_REGISTER(
    CommandOf<Setup>,
    {.id = "cost",
     .summary = "What training costs at the measured throughput: $ per million tokens, cost "
                "and days for a token budget, the cost of the gap to the reference, and a "
                "comparison of two price/performance profiles"})

}  // namespace ys::cli::cmd_cost
