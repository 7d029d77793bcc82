#include "predict/step_rates.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>

#include "core/figure_spec.h"
#include "core/range_check.h"
#include "core/text.h"

namespace ys::predict {
namespace {

using predict::Constants;
using predict::kCollectives;
using predict::Recipe;
using predict::SystemRates;

bool KnownCollective(std::string_view c) {
  for (const char* k : kCollectives) {
    if (c == k) return true;
  }
  return false;
}

struct Unit {
  const char* suffix;
  double scale;
};

// "28GB/s" → 28e9 with the units given; a bare number takes units[0].
Result<double> ParseQuantity(std::string_view flag, std::string_view text,
                             std::initializer_list<Unit> units, double lo, double hi) {
  std::string t(Trim(text));
  const Unit* unit = nullptr;
  std::string number = t;
  for (const Unit& u : units) {
    if (EndsWith(t, u.suffix)) {
      number = std::string(Trim(std::string_view(t).substr(0, t.size() - strlen(u.suffix))));
      unit = &u;
      break;
    }
  }
  std::string expected;
  for (const Unit& u : units) expected += (expected.empty() ? "" : ", ") + std::string(u.suffix);
  auto v = ParseDouble(number);
  if (number.empty() || !v) {
    return Status::Invalid(fmt::format("{}: \"{}\": expected a number with a unit ({})", flag,
                                       std::string(text), expected));
  }
  const double base = *v * (unit != nullptr ? unit->scale : units.begin()->scale);
  YS_RETURN_IF_ERROR(CheckRange(base / units.begin()->scale, lo, hi,
                                fmt::format("{} ({})", flag, units.begin()->suffix),
                                LowerBound::kExclusive));
  return base;
}

constexpr double kGB = 1e9;

// The bus bandwidth of the measurements `ms` (out of place, more than one rank, NCCL) at the
// message size `bytes`: log-log interpolation between the two measured sizes around it (the median
// of the figures at each size), the nearest size's figure outside the measured range; nullopt when
// there is none. The pair is (the size the figure stands for, GB/s); an interpolated figure
// stands for `bytes`.
std::optional<std::pair<double, double>> BusbwAt(const std::vector<const Measurement*>& ms,
                                                 double bytes) {
  std::map<double, std::vector<double>> by_size;
  for (const Measurement* m : ms) {
    auto size = m->params.find("size");
    auto ranks = m->params.find("ranks");
    auto inplace = m->params.find("inplace");
    if (size == m->params.end() || inplace == m->params.end() || inplace->second != "0") continue;
    if (ranks != m->params.end() && ranks->second == "1") continue;  // nothing was exchanged
    // GPU collectives only (NCCL): a CPU backend's (MPI on host buffers) says nothing of NVLink
    // or of the GPUs' network path.
    auto backend = m->params.find("backend");
    if (backend == m->params.end() || backend->second != "nccl") continue;
    auto s = ParseDouble(size->second);
    if (!s || !(*s > 0) || !std::isfinite(*s) || !(m->value > 0) || !std::isfinite(m->value))
      continue;
    by_size[*s].push_back(m->value);
  }
  if (by_size.empty()) return std::nullopt;
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  };
  auto above = by_size.lower_bound(bytes);
  if (above == by_size.end()) {
    auto last = std::prev(by_size.end());
    return std::pair{last->first, median(last->second)};
  }
  if (above->first == bytes || above == by_size.begin())
    return std::pair{above->first, median(above->second)};
  auto below = std::prev(above);
  const double lo = median(below->second), hi = median(above->second);
  const double t = std::log(bytes / below->first) / std::log(above->first / below->first);
  return std::pair{bytes, std::exp(std::log(lo) + t * (std::log(hi) - std::log(lo)))};
}

// The figures the predictor takes, by what their benchmarks declare (core/figure_spec.h): each
// collective's bus bandwidth, by collective, and the GPU GEMM rate (the figure that is a share
// of the GPU's FLOPS peak).
struct TakenFigures {
  std::map<std::string, std::vector<const Measurement*>, std::less<>> busbw_by_op;
  std::vector<const Measurement*> gpu_gemm;
};

TakenFigures TakenFiguresOf(const RunDocument& doc) {
  TakenFigures out;
  auto take = [&](const Measurement& m) {
    auto d = FindFigure(m.name);
    if (!d || d->figure == nullptr) return;
    if (d->measures->kind == FigureKind::kCollective && d->figure->quantity == "busbw") {
      out.busbw_by_op[std::string(d->measures->op)].push_back(&m);
    } else if (d->measures->kind == FigureKind::kGemm && d->figure->peak == PeakKind::kGpuFlops) {
      out.gpu_gemm.push_back(&m);
    }
  };
  for (const BenchmarkResult& b : doc.benchmarks) {
    for (const Measurement& m : b.measurements) take(m);
  }
  for (const NodeReport& n : doc.nodes) {
    for (const BenchmarkResult& b : n.benchmarks) {
      for (const Measurement& m : b.measurements) take(m);
    }
  }
  for (const Measurement& m : doc.measurements) take(m);
  return out;
}

}  // namespace

Result<SystemRates> ReferenceRates(const bench::DeviceSpec& spec, const StepCalibration& cal,
                                   const Constants& c) {
  const ChipSystem* sys = cal.Chip(spec.chip);
  if (sys == nullptr) {
    return Status::Invalid(cal.path + ": no [[chip]] entry for " + spec.chip +
                           " (its NVLink domain and network rate are needed)");
  }
  SystemRates r;
  r.chip = spec.chip;
  for (const auto& [dtype, tflops] : spec.peak_dense_tflops) r.peak_flops[dtype] = tflops * 1e12;
  if (spec.hbm_tb_per_s) {
    r.hbm_bytes_per_s = *spec.hbm_tb_per_s * 1e12;
  } else if (sys->hbm_tb_per_s) {
    r.hbm_bytes_per_s = *sys->hbm_tb_per_s * 1e12;
  } else {
    return Status::Invalid(spec.path + ": no [memory] hbm_tb_per_s, and " + cal.path +
                           " gives none for " + spec.chip);
  }
  if (!spec.nvlink_per_direction_gb_per_s) {
    return Status::Invalid(spec.path + ": no [nvlink] per_direction_gb_per_s for " + spec.chip);
  }
  r.nvlink_domain = sys->nvlink_domain;
  r.gpus_per_node = sys->gpus_per_node;
  r.chip_efficiency = sys->family == "blackwell" ? c.blackwell_efficiency : 1.0;
  predict::SetReferenceLinks(r, *spec.nvlink_per_direction_gb_per_s * kGB,
                             sys->network_gb_per_s * kGB, c);
  return r;
}

Status ApplyRateOverride(SystemRates& rates, std::string_view assignment) {
  const std::string flag = "--set " + std::string(assignment);
  const size_t eq = assignment.find('=');
  if (eq == std::string_view::npos) {
    return Status::Invalid(flag + ": expected KEY=VALUE (coll.all_gather.busbw=28GB/s)");
  }
  const std::string key(Trim(assignment.substr(0, eq)));
  const std::string_view value = assignment.substr(eq + 1);
  std::vector<std::string> parts;
  for (std::string_view piece : Split(key, '.')) parts.emplace_back(piece);
  const std::string known =
      "expected coll.<collective>.busbw, nvlink.<collective>.busbw, gemm.<dtype>.tflops or "
      "hbm.bandwidth";
  if (parts.size() == 3 && (parts[0] == "coll" || parts[0] == "nvlink") && parts[2] == "busbw") {
    if (!KnownCollective(parts[1])) {
      return Status::Invalid(flag + ": collective \"" + parts[1] +
                             "\" (expected all_reduce, all_gather, reduce_scatter, alltoall or "
                             "sendrecv)");
    }
    auto v = ParseQuantity(flag, value, {{"GB/s", kGB}, {"MB/s", 1e6}, {"TB/s", 1e12}}, 0, 1e5);
    if (!v.ok()) return v.status();
    (parts[0] == "coll" ? rates.network_busbw : rates.nvlink_busbw)[parts[1]] = *v;
    rates.origin[key] = "--set";
    return Status::Ok();
  }
  if (parts.size() == 3 && parts[0] == "gemm" && parts[2] == "tflops") {
    if (parts[1] != "bf16" && parts[1] != "fp8" && parts[1] != "nvfp4") {
      return Status::Invalid(flag + ": dtype \"" + parts[1] + "\" (expected bf16, fp8 or nvfp4)");
    }
    auto v = ParseQuantity(flag, value, {{"TFLOPS", 1e12}, {"PFLOPS", 1e15}}, 0, 1e6);
    if (!v.ok()) return v.status();
    rates.gemm_flops[parts[1]] = *v;
    rates.origin[key] = "--set";
    return Status::Ok();
  }
  if (key == "hbm.bandwidth") {
    auto v = ParseQuantity(flag, value, {{"TB/s", 1e12}, {"GB/s", kGB}}, 0, 1e3);
    if (!v.ok()) return v.status();
    rates.hbm_bytes_per_s = *v;
    rates.origin[key] = "--set";
    return Status::Ok();
  }
  return Status::Invalid(flag + ": unknown rate \"" + key + "\" (" + known + ")");
}

Result<MeasuredRates> ApplyMeasured(SystemRates& rates, const RunDocument& doc,
                                    const std::string& path, const Recipe& recipe) {
  auto work = predict::ComputeStepWork(recipe);
  if (!work.ok()) return work.status();
  const TakenFigures figures = TakenFiguresOf(doc);
  const auto& busbw_by_op = figures.busbw_by_op;
  const auto& gpu_gemm = figures.gpu_gemm;

  MeasuredRates out;
  const bool network = doc.nodes.size() > 1;
  const char* link = network ? "coll" : "nvlink";
  for (const char* coll : kCollectives) {
    auto it = busbw_by_op.find(coll);
    if (it == busbw_by_op.end()) continue;
    // The recipe's message for this collective on this link.
    double bytes = work->tp_message_bytes;
    const std::string c = coll;
    if (c == "alltoall") bytes = work->ep_message_bytes;
    if (c == "sendrecv") bytes = work->pp_message_bytes;
    if (network && (c == "all_gather" || c == "reduce_scatter"))
      bytes = work->dense_params_per_gpu * (c == "all_gather" ? 2.0 : 4.0);
    if (!(bytes > 0)) continue;
    auto found = BusbwAt(it->second, bytes);
    if (!found) continue;
    const double busbw = found->second * kGB;  // coll.* units report GB/s
    (network ? rates.network_busbw : rates.nvlink_busbw)[c] = busbw;
    const std::string key = std::string(link) + "." + c + ".busbw";
    rates.origin[key] = path;
    out.taken.push_back(fmt::format("{} {:.1f} GB/s at {:.0f} B (recipe message {:.0f} B; {})", key,
                                    found->second, found->first, bytes, path));
  }
  if (!gpu_gemm.empty()) {
    // The recipe's main GEMM on one GPU: tokens of a micro-batch × hidden × the MLP shard.
    const predict::ModelShape& s = recipe.model->shape;
    const double m_dim = static_cast<double>(recipe.par.micro_batch) * recipe.seq / recipe.par.cp;
    const double n_dim = s.ffn_hidden_size.value_or(4 * s.hidden_size) / recipe.par.tp;
    const double k_dim = s.hidden_size;
    std::vector<std::pair<double, double>> candidates;  // (distance, TFLOPS)
    for (const Measurement* m : gpu_gemm) {
      auto dt = m->params.find("dtype");
      if (dt == m->params.end() || dt->second != recipe.dtype) continue;
      auto get = [&](const char* k) -> std::optional<double> {
        auto p = m->params.find(k);
        return p == m->params.end() ? std::nullopt : ParseDouble(p->second);
      };
      auto mm = get("m"), nn = get("n"), kk = get("k");
      if (!mm || !nn || !kk || !(*mm > 0 && *nn > 0 && *kk > 0) || !(m->value > 0)) continue;
      const double d = std::fabs(std::log(*mm / m_dim)) + std::fabs(std::log(*nn / n_dim)) +
                       std::fabs(std::log(*kk / k_dim));
      candidates.push_back({d, m->value});
    }
    if (!candidates.empty()) {
      std::sort(candidates.begin(), candidates.end());
      // Every GPU's figure at the nearest shape: their median.
      std::vector<double> at;
      for (const auto& [d, v] : candidates) {
        if (d <= candidates.front().first + 1e-9) at.push_back(v);
      }
      std::sort(at.begin(), at.end());
      const double tflops = at[at.size() / 2];
      rates.gemm_flops[recipe.dtype] = tflops * 1e12;
      const std::string key = "gemm." + recipe.dtype + ".tflops";
      rates.origin[key] = path;
      out.taken.push_back(
          fmt::format("{} {:.0f} TFLOPS (median of {} GPU(s) at the shape "
                      "nearest {:.0f}x{:.0f}x{:.0f}; {})",
                      key, tflops, at.size(), m_dim, n_dim, k_dim, path));
    }
  }
  if (out.taken.empty()) {
    return Status::Invalid(path + ": no gemm.gpu.tflops at " + recipe.dtype +
                           " and no multi-rank coll.*.busbw measurement to take a rate from");
  }
  return out;
}

}  // namespace ys::predict
