#include "cost/throughput.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <map>
#include <system_error>

namespace ys::cost {
namespace {

constexpr std::string_view kProxyPrefix = "proxy.";
constexpr std::string_view kTpsSuffix = ".tokens_per_s_per_gpu";

// What makes a proxy's tokens/s/GPU an estimate of the recipe's (proxy_unit.cc writes these
// parameters): always a proxy; shapes scaled down; layers left out; the CPU backend.
std::vector<std::string> ProxyEstimateReasons(const std::map<std::string, std::string>& params) {
  std::vector<std::string> out = {"a proxy of one training step, not a run of the recipe"};
  auto at = [&params](const char* key) {
    auto it = params.find(key);
    return it == params.end() ? std::string() : it->second;
  };
  if (std::string scale = at("scale"); !scale.empty() && scale != "1/1" && scale != "1")
    out.push_back("shapes scaled down " + scale);
  if (std::string backend = at("backend"); backend == "cpu")
    out.push_back("measured on CPUs (" + (at("dtype").empty() ? "fp32" : at("dtype")) +
                  "), not on the recipe's GPUs");
  if (std::string recipe = at("recipe"); !recipe.empty())
    out.push_back("the recipe " + recipe +
                  (at("layers").empty() ? "" : ", " + at("layers") + " layers run"));
  return out;
}

void ScanProxies(const std::vector<Measurement>& ms, const std::string& where,
                 std::vector<WorkloadThroughput>& out) {
  for (const Measurement& m : ms) {
    const std::string& n = m.name;
    if (n.size() <= kProxyPrefix.size() + kTpsSuffix.size() || n.rfind(kProxyPrefix, 0) != 0 ||
        n.compare(n.size() - kTpsSuffix.size(), kTpsSuffix.size(), kTpsSuffix) != 0) {
      continue;
    }
    if (!std::isfinite(m.value)) continue;
    std::string model =
        n.substr(kProxyPrefix.size(), n.size() - kProxyPrefix.size() - kTpsSuffix.size());
    WorkloadThroughput t{.workload = model,
                         .source = "proxy." + model + " in " + where,
                         .tokens_per_s_per_gpu = m.value,
                         .estimate_reasons = ProxyEstimateReasons(m.params)};
    if (auto r = m.params.find("ranks"); r != m.params.end()) {
      int ranks = 0;
      auto [end, ec] =
          std::from_chars(r->second.data(), r->second.data() + r->second.size(), ranks);
      if (ec == std::errc() && end == r->second.data() + r->second.size() && ranks > 0)
        t.measured_ranks = ranks;
    }
    out.push_back(std::move(t));
  }
}

}  // namespace

std::optional<double> WorkloadThroughput::ReferenceTokensPerSPerGpu() const {
  if (!score || !(*score > 0)) return std::nullopt;
  return tokens_per_s_per_gpu / *score;
}

std::vector<WorkloadThroughput> RunThroughputs(const RunDocument& doc, const std::string& where) {
  std::vector<WorkloadThroughput> out;
  ScanProxies(doc.measurements, where, out);
  for (const BenchmarkResult& b : doc.benchmarks) ScanProxies(b.measurements, where, out);
  return out;
}

WorkloadThroughput ValidatedWorkloadThroughput(const std::string& id, double tokens_per_s_per_gpu,
                                               std::optional<double> score, std::optional<int> gpus,
                                               const std::string& where) {
  return {.workload = id,
          .source = id + " in " + where,
          .tokens_per_s_per_gpu = tokens_per_s_per_gpu,
          .score = score,
          .gpus = gpus};
}

Result<WorkloadThroughput> PickWorkload(const std::vector<WorkloadThroughput>& found,
                                        const std::string& workload, const std::string& where) {
  std::string names;
  for (const WorkloadThroughput& t : found) {
    if (!workload.empty() && (t.workload == workload || "proxy." + t.workload == workload)) {
      return t;
    }
    names += (names.empty() ? "" : ", ") + t.workload;
  }
  if (found.empty()) return Status::Invalid(where + ": no workload with a measured tokens/s/GPU");
  if (!workload.empty()) {
    return Status::Invalid(where + ": no measured tokens/s/GPU for --workload " + workload +
                           " (present: " + names + ")");
  }
  if (found.size() > 1) {
    return Status::Invalid(where + ": several workloads (" + names +
                           "): choose one with --workload");
  }
  return found[0];
}

Result<WorkloadCost> CostOfWorkload(const PriceModel& prices, const WorkloadThroughput& t,
                                    std::optional<int> gpus, double tokens,
                                    std::optional<double> reference) {
  YS_RETURN_IF_ERROR(CheckTokensPerSPerGpu(t.tokens_per_s_per_gpu, t.source + ": tokens/s/GPU"));
  int n = gpus ? *gpus : t.gpus.value_or(kDefaultGpus);
  YS_RETURN_IF_ERROR(CheckGpus(n, gpus ? "--gpus" : t.source + ": gpus"));
  WorkloadCost c{.throughput = t, .estimate_reasons = t.estimate_reasons};
  if (t.measured_ranks && *t.measured_ranks != n) {
    c.estimate_reasons.push_back(fmt::format("{} {} measured, {} GPUs priced", *t.measured_ranks,
                                             *t.measured_ranks == 1 ? "rank" : "ranks", n));
  }
  auto per_m = CostPerMillionTokens(BlendedPricePerGpuHour(prices), t.tokens_per_s_per_gpu);
  if (!per_m.ok()) return per_m.status();
  c.per_million_tokens = *per_m;
  auto train = CostToTrain(prices, t.tokens_per_s_per_gpu, n, tokens);
  if (!train.ok()) return train.status();
  c.training = *train;
  if (reference) {
    YS_RETURN_IF_ERROR(CheckTokensPerSPerGpu(*reference, "reference tokens/s/GPU"));
    c.reference_tokens_per_s_per_gpu = reference;
  } else {
    c.reference_tokens_per_s_per_gpu = t.ReferenceTokensPerSPerGpu();
    if (c.reference_tokens_per_s_per_gpu) {
      YS_RETURN_IF_ERROR(
          CheckTokensPerSPerGpu(*c.reference_tokens_per_s_per_gpu,
                                t.source + ": reference tokens/s/GPU (tokens/s/GPU / score)"));
    }
  }
  if (c.reference_tokens_per_s_per_gpu) {
    auto g =
        CostOfGap(prices, t.tokens_per_s_per_gpu, *c.reference_tokens_per_s_per_gpu, n, tokens);
    if (!g.ok()) return g.status();
    c.gap = *g;
  }
  return c;
}

}  // namespace ys::cost
