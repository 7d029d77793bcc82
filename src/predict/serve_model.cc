#include "predict/serve_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "predict/serve_engine_settings.h"
#include "predict/serve_work.h"

namespace ys::predict {
namespace {

// One serving instance: pp stages of max(tp, ep) GPUs. Attention runs tensor-parallel over tp GPUs;
// where ep > tp the stage holds ep / tp attention groups (data-parallel attention), each with its
// own sequences, and the routed experts are spread over all max(tp, ep) GPUs of the stage.
struct Instance {
  int tp = 1, pp = 1, ep = 1;
  int wide = 1;    // GPUs of one stage: max(tp, ep)
  int gpus = 1;    // pp × wide
  int groups = 1;  // attention groups of a stage: wide / tp
};

// What every term of one prediction reads.
struct Setting {
  const ServeWork& w;
  const ServeSystem& sys;
  const ServeConstants& c;
  Instance in;
  double gemm_rate = 0;  // FLOP/s of the serving dtype's GEMMs on one GPU
  double attn_rate = 0;  // FLOP/s of the attention core (bf16 kernels) on one GPU
  double hbm = 0;        // bytes/s a decode step reads at
  bool explain = true;   // false: the terms' bases and the notes are left empty (a fit's figures)
};

std::string Gb(double bytes) { return fmt::format("{:.3g} GB", bytes / 1e9); }

// A term's basis or a note, formatted only where the prediction explains itself: a fit evaluates
// thousands of predictions, and their text took more of its time than their arithmetic.
template <typename... Args>
std::string Basis(bool explain, fmt::format_string<Args...> f, Args&&... args) {
  return explain ? fmt::format(f, std::forward<Args>(args)...) : std::string();
}

Result<Instance> InstanceOf(const ServeLayout& l, const ServeWork& w) {
  for (auto [flag, v] : {std::pair{"--tp", l.tp}, {"--pp", l.pp}, {"--ep", l.ep}}) {
    if (v < 1) return Status::Invalid(fmt::format("{} {}: expected 1 or more", flag, v));
  }
  if (l.ep > 1 && w.experts == 0) {
    return Status::Invalid(fmt::format("--ep {}: the model has no routed experts", l.ep));
  }
  if (l.ep % l.tp != 0 && l.tp % l.ep != 0) {
    return Status::Invalid(
        fmt::format("--ep {} with --tp {}: expected one to divide the other", l.ep, l.tp));
  }
  Instance in{.tp = l.tp, .pp = l.pp, .ep = l.ep, .wide = std::max(l.tp, l.ep)};
  in.gpus = in.pp * in.wide;
  in.groups = in.wide / in.tp;
  const bool split = l.prefill_gpus > 0 || l.decode_gpus > 0;
  if (split && (!l.Disaggregated() || l.prefill_gpus + l.decode_gpus != l.gpus)) {
    return Status::Invalid(fmt::format(
        "--prefill-gpus {} + --decode-gpus {}: expected both above 0 and adding up to --gpus {}",
        l.prefill_gpus, l.decode_gpus, l.gpus));
  }
  // Each part of the deployment holds whole instances.
  auto whole = [&](const char* flag, int n) -> Status {
    if (n >= 1 && n % in.gpus == 0) return Status::Ok();
    return Status::Invalid(fmt::format(
        "{} {}: not a multiple of one instance's {} GPUs (--tp {} × --pp {}{})", flag, n, in.gpus,
        l.tp, l.pp, l.ep > l.tp ? fmt::format(", --ep {} beyond --tp", l.ep) : ""));
  };
  if (!split) YS_RETURN_IF_ERROR(whole("--gpus", l.gpus));
  if (split) YS_RETURN_IF_ERROR(whole("--prefill-gpus", l.prefill_gpus));
  if (split) YS_RETURN_IF_ERROR(whole("--decode-gpus", l.decode_gpus));
  return in;
}

Status CheckLoad(const ServeLoad& load) {
  if (load.isl < 1) return Status::Invalid(fmt::format("--isl {}: expected 1 or more", load.isl));
  if (load.osl < 1) return Status::Invalid(fmt::format("--osl {}: expected 1 or more", load.osl));
  if ((load.concurrency > 0) == load.max_throughput) {
    return Status::Invalid("--concurrency or --max-throughput: expected exactly one of them");
  }
  return Status::Ok();
}

// Weights one GPU holds: the dense part over a stage's tensor-parallel ranks, the routed experts
// over every GPU of the stage.
double WeightBytesPerGpu(const ServeWork& w, const Instance& in) {
  return (w.body_bytes + w.head_bytes + w.embed_bytes) / (in.tp * in.pp) +
         w.routed_bytes / (in.wide * in.pp);
}

// KV cache (and Mamba state) one GPU holds for one sequence of `context` tokens: its stage's
// layers, its share of the KV heads (a head fewer than the ranks is replicated; MLA's latent is
// whole on every rank), the Mamba state split by heads.
double KvBytesPerSequencePerGpu(const ServeWork& w, const Instance& in, double context) {
  const double share = w.kv_split_by_tp ? 1.0 / std::min(in.tp, std::max(1, w.kv_heads)) : 1.0;
  return (context * w.kv_bytes_per_token * share + w.state_bytes_per_sequence / in.tp) / in.pp;
}

// The link a collective inside one instance crosses and its bus bandwidth.
Result<std::pair<std::string, double>> LinkOf(const Setting& s, const char* collective) {
  const bool nvlink = s.in.gpus <= s.sys.rates.nvlink_domain;
  const auto& table = nvlink ? s.sys.rates.nvlink_busbw : s.sys.rates.network_busbw;
  auto it = table.find(collective);
  if (it == table.end() || !(it->second > 0)) {
    return Status::Invalid(fmt::format("{}: no {} {} bus bandwidth", s.sys.rates.chip,
                                       nvlink ? "NVLink" : "network", collective));
  }
  return std::pair{std::string(nvlink ? "NVLink" : "network"), it->second};
}

// The collectives a forward pass meets: a TP all-reduce at each of the model's all-reduce points;
// an EP dispatch and combine per MoE layer.
double AllReducesPerPass(const ServeWork& w) { return w.allreduce_points; }
double AllToAllsPerPass(const ServeWork& w) { return 2.0 * w.moe_layers; }

// `points` TP all-reduces of `tokens` tokens' activations (bf16), each 2(n−1)/n of its bytes over
// the bus bandwidth plus a fixed latency.
Result<ServeTerm> AllReduceTerm(const Setting& s, const std::string& name, double tokens) {
  const double n = s.in.tp;
  auto link = LinkOf(s, "all_reduce");
  if (!link.ok()) return link.status();
  const double bytes = tokens * s.w.hidden * 2;
  const double one = 2 * (n - 1) / n * bytes / link->second + s.c.allreduce_latency_s;
  return ServeTerm{
      name, AllReducesPerPass(s.w) * one,
      Basis(s.explain, "{} all-reduces × ({:.3g} B × 2·{}/{} / {:.0f} GB/s {} + {:.3g} s)",
            s.w.allreduce_points, bytes, n - 1, n, link->second / 1e9, link->first,
            s.c.allreduce_latency_s)};
}

// Expert-parallel dispatch and combine: each GPU sends its `tokens` tokens' top_k copies (bf16),
// (ep−1)/ep of them leaving it, twice per MoE layer.
Result<ServeTerm> AllToAllTerm(const Setting& s, const std::string& name, double tokens) {
  const double n = s.in.ep;
  auto link = LinkOf(s, "alltoall");
  if (!link.ok()) return link.status();
  const double bytes = tokens * s.w.top_k * s.w.hidden * 2;
  const double one = (n - 1) / n * bytes / link->second + s.c.allreduce_latency_s;
  return ServeTerm{
      name, AllToAllsPerPass(s.w) * one,
      Basis(s.explain, "2 × {} MoE layers × ({:.3g} B × {}/{} / {:.0f} GB/s {} + {:.3g} s)",
            s.w.moe_layers, bytes, n - 1, n, link->second / 1e9, link->first,
            s.c.allreduce_latency_s)};
}

// Adds the communication terms of `tokens` per tensor-parallel group (all-reduce) and per GPU
// (all-to-all).
Status AddComm(const Setting& s, const std::string& prefix, double tp_tokens, double ep_tokens,
               std::vector<ServeTerm>& out) {
  if (s.in.tp > 1) {
    auto t = AllReduceTerm(s, prefix + "tp_allreduce", tp_tokens);
    if (!t.ok()) return t.status();
    out.push_back(*t);
  }
  if (s.in.ep > 1) {
    auto t = AllToAllTerm(s, prefix + "ep_alltoall", ep_tokens);
    if (!t.ok()) return t.status();
    out.push_back(*t);
  }
  return Status::Ok();
}

// The fixed cost of the collectives one forward pass meets (their latency, not their bytes): what
// a prefill chunked into a decode step does not pay again, the step's own forward pass having paid
// it.
double CollectiveLatencySeconds(const Setting& s) {
  double out = 0;
  if (s.in.tp > 1) out += AllReducesPerPass(s.w) * s.c.allreduce_latency_s;
  if (s.in.ep > 1) out += AllToAllsPerPass(s.w) * s.c.allreduce_latency_s;
  return out;
}

// The rates of the serving dtype: a measured GEMM rate (--set gemm.<dtype>.tflops) as it is, else
// the peak × prefill_efficiency; the attention core at the bf16 peak × the same share.
Result<Setting> SettingOf(const ServeWork& w, const ServeSystem& sys, const ServeConstants& c,
                          const Instance& in, std::string_view dtype) {
  Setting s{w, sys, c, in};
  const std::string d(dtype);
  const auto& r = sys.rates;
  if (auto g = r.gemm_flops.find(d); g != r.gemm_flops.end()) {
    s.gemm_rate = g->second;
  } else if (auto p = r.peak_flops.find(d); p != r.peak_flops.end()) {
    s.gemm_rate = p->second * c.prefill_efficiency;
  } else {
    return Status::Invalid(fmt::format("--dtype {}: {} has no {} tensor rate", d, r.chip, d));
  }
  auto bf16 = r.peak_flops.find("bf16");
  s.attn_rate = (bf16 != r.peak_flops.end() ? bf16->second : s.gemm_rate) * c.prefill_efficiency;
  s.hbm = r.hbm_bytes_per_s * c.decode_hbm_efficiency;
  if (!(s.gemm_rate > 0) || !(s.attn_rate > 0) || !(s.hbm > 0)) {
    return Status::Invalid(r.chip + ": a tensor or HBM rate is not positive");
  }
  return s;
}

// Sequences one instance can hold at `context` tokens each: kv_memory_share of the HBM its weights
// leave, per attention group; Invalid when the weights, or the weights and one sequence, do not
// fit.
Result<int> FittingBatch(const Setting& s, double context) {
  const double cap = s.sys.hbm_capacity_bytes;
  if (!(cap > 0))
    return Status::Invalid(s.sys.rates.chip + ": no HBM capacity ([memory] capacity_gb)");
  const double weights = WeightBytesPerGpu(s.w, s.in);
  if (weights + s.c.runtime_reserved_bytes >= cap) {
    return Status::Invalid(fmt::format(
        "the weights need {} per GPU ({} in all over an instance of {} GPUs){}; a {} holds {}",
        Gb(weights), Gb(s.w.WeightBytes()), s.in.gpus,
        s.c.runtime_reserved_bytes > 0
            ? fmt::format(", the runtime {} beside them", Gb(s.c.runtime_reserved_bytes))
            : "",
        s.sys.rates.chip, Gb(cap)));
  }
  const double free = s.c.kv_memory_share * (cap - weights - s.c.runtime_reserved_bytes);
  const double per_seq = KvBytesPerSequencePerGpu(s.w, s.in, context);
  const double fit = std::floor(free / per_seq) * s.in.groups;
  if (fit < 1) {
    return Status::Invalid(fmt::format(
        "the weights ({} per GPU) leave {} for KV cache, less than one sequence of {} tokens ({})",
        Gb(weights), Gb(free), context, Gb(per_seq)));
  }
  return static_cast<int>(std::min(fit, s.c.max_batch));
}

// One decode step of `b` sequences at `context` tokens (see serve_model.h): the weights and the
// experts the step's tokens touch, the KV cache, compute beyond the HBM time, TP and EP traffic,
// and the host.
Result<std::vector<ServeTerm>> DecodeTerms(const Setting& s, double b, double context) {
  const ServeWork& w = s.w;
  const Instance& in = s.in;
  const double m = b / in.pp;  // tokens of one micro-batch
  const double touched =
      w.experts > 0 ? ExpectedDistinctExperts(w.experts, w.top_k, m) / w.experts : 0;
  const double weights = (w.body_bytes + w.head_bytes) / in.tp + w.routed_bytes / in.wide * touched;
  const double kv = b / in.groups * KvBytesPerSequencePerGpu(w, in, context);
  const double gemm =
      b * (w.dense_flops_per_token / (in.groups * in.tp) + w.routed_flops_per_token / in.wide) /
      in.pp;
  const double attn = b / (in.groups * in.tp * in.pp) *
                      (w.attention_flops_per_position * context + w.scan_flops_per_token);
  // The arithmetic hides behind the reads by decode_overlap_share of the shorter of the two: 1 is
  // max(bytes, FLOPs), 0 their sum (serve_model.h).
  const double hbm_s = (weights + kv) / s.hbm;
  const double compute_s = gemm / s.gemm_rate + attn / s.attn_rate;
  const double hidden = s.c.decode_overlap_share * std::min(hbm_s, compute_s);
  std::vector<ServeTerm> out{
      {"decode_weights", weights / s.hbm,
       w.experts > 0
           ? Basis(
                 s.explain,
                 "{:.3g} GB per GPU ({:.1f} of {} experts touched by {:.0f} tokens) / {:.3g} TB/s",
                 weights / 1e9, touched * w.experts, w.experts, m, s.hbm / 1e12)
           : Basis(s.explain, "{:.3g} GB per GPU / {:.3g} TB/s", weights / 1e9, s.hbm / 1e12)},
      {"decode_kv", kv / s.hbm,
       Basis(s.explain, "{:.0f} sequences × {:.0f} tokens: {:.3g} GB per GPU / {:.3g} TB/s",
             b / in.groups, context, kv / 1e9, s.hbm / 1e12)},
      {"decode_compute_beyond_hbm", compute_s - hidden,
       Basis(s.explain,
             "{:.3g} GEMM FLOP / {:.3g} TFLOP/s + {:.3g} attention FLOP / {:.3g} TFLOP/s − "
             "{:.3g} × min(that, {:.3g} s of HBM)",
             gemm, s.gemm_rate / 1e12, attn, s.attn_rate / 1e12, s.c.decode_overlap_share, hbm_s)}};
  YS_RETURN_IF_ERROR(AddComm(s, "", m / in.groups, m / in.wide, out));
  if (s.c.decode_seconds_per_layer > 0) {
    out.push_back({"decode_layer_floor", w.layers * s.c.decode_seconds_per_layer,
                   Basis(s.explain, "{} layers × {:.3g} s (kernel floors beyond bytes and FLOPs)",
                         w.layers, s.c.decode_seconds_per_layer)});
  }
  out.push_back({"host", s.c.host_seconds_per_step + b * s.c.host_seconds_per_sequence,
                 s.c.host_seconds_per_sequence > 0
                     ? Basis(s.explain, "{:.3g} s per step + {:.0f} sequences × {:.3g} s",
                             s.c.host_seconds_per_step, b, s.c.host_seconds_per_sequence)
                     : Basis(s.explain, "scheduling, sampling and launch per step")});
  return out;
}

// The prefill of one request of `isl` tokens on one attention group and its stage's experts,
// stages one after another.
Result<std::vector<ServeTerm>> PrefillTerms(const Setting& s, double isl) {
  const ServeWork& w = s.w;
  // The output head runs on the prompt's last token only (its logits give the first token).
  const double dense =
      isl * (w.dense_flops_per_token - w.head_flops_per_token) + w.head_flops_per_token;
  const double gemm = dense / s.in.tp + isl * w.routed_flops_per_token / s.in.wide;
  const double attn =
      (isl * isl / 2 * w.attention_flops_per_position + isl * w.scan_flops_per_token) / s.in.tp;
  std::vector<ServeTerm> out{
      {"prefill_gemm", gemm / s.gemm_rate,
       Basis(s.explain, "{:.3g} FLOP per GPU / {:.4g} TFLOP/s", gemm, s.gemm_rate / 1e12)},
      {"prefill_attention", attn / s.attn_rate,
       Basis(s.explain, "{:.3g} FLOP per GPU (causal, ISL²/2 positions) / {:.4g} TFLOP/s", attn,
             s.attn_rate / 1e12)}};
  YS_RETURN_IF_ERROR(AddComm(s, "prefill_", isl, isl / s.in.tp, out));
  return out;
}

// The KV cache of one request sent from a prefill to a decode instance, each GPU its shard, over
// NVLink when both instances fit in one NVLink domain, else the network.
Result<ServeTerm> KvTransferTerm(const Setting& s, const ServeLayout& l, double isl) {
  const bool nvlink = l.gpus <= s.sys.rates.nvlink_domain;
  const auto& table = nvlink ? s.sys.rates.nvlink_busbw : s.sys.rates.network_busbw;
  auto it = table.find("sendrecv");
  if (it == table.end() || !(it->second > 0)) {
    return Status::Invalid(s.sys.rates.chip + ": no sendrecv bus bandwidth for the KV transfer");
  }
  const double bytes = KvBytesPerSequencePerGpu(s.w, s.in, isl);
  return ServeTerm{"kv_transfer", bytes / it->second,
                   fmt::format("{} per GPU / {:.0f} GB/s {}", Gb(bytes), it->second / 1e9,
                               nvlink ? "NVLink" : "network")};
}

double Sum(const std::vector<ServeTerm>& terms) {
  return std::accumulate(terms.begin(), terms.end(), 0.0,
                         [](double a, const ServeTerm& t) { return a + t.seconds; });
}

// The sequences a decode instance holds: at max throughput what fits at ISL + OSL (capped at
// max_batch); at a concurrency its share, rounded up, or what fits where that is less.
Result<int> BatchOf(const Setting& s, const ServeLoad& load, int instances,
                    std::vector<std::string>& notes) {
  auto fit = FittingBatch(s, load.isl + load.osl);
  if (!fit.ok()) return fit.status();
  const bool capped = *fit >= s.c.max_batch;
  if (load.max_throughput) {
    if (s.explain)
      notes.push_back(fmt::format(
          "max throughput: {} sequences per instance, what fits in {:.0f}% of the HBM the weights "
          "leave at ISL + OSL = {} tokens each{}",
          *fit, 100 * s.c.kv_memory_share, load.isl + load.osl,
          capped ? fmt::format(", capped at max_batch {:.0f}", s.c.max_batch) : ""));
    return *fit;
  }
  const int b = (load.concurrency + instances - 1) / instances;
  if (s.explain && load.concurrency % instances != 0) {
    notes.push_back(
        fmt::format("concurrency {} over {} instances: {} on the busiest, which sets TPOT",
                    load.concurrency, instances, b));
  }
  if (b > *fit) {
    if (s.explain)
      notes.push_back(fmt::format(
          "{} sequences per instance do not fit: {} do{}; the rest wait in the queue, a wait this "
          "model does not add to TTFT",
          b, *fit, capped ? " (max_batch)" : " (HBM)"));
    return *fit;
  }
  return b;
}

// The prefill's wait: at max throughput the first wave's prefills queue behind each other (mean
// (n − 1)/2 of them ahead on an instance, each `per_prompt`, the prompts sharing forward passes;
// later waves also wait for a free slot, not counted); at a concurrency an aggregated instance
// takes a new request at the next step boundary (half a step on average:
// ServeConstants::step_wait_share).
void AddWait(const ServeLoad& load, const ServeLayout& l, const Instance& in, double b,
             double instances, double per_prompt, double tpot, double wait_share, bool explain,
             std::vector<ServeTerm>& prefill) {
  if (load.max_throughput) {
    const double first_wave =
        l.Disaggregated() ? b * instances / (l.prefill_gpus / in.gpus) : b;  // per prefill instance
    prefill.push_back(
        {"queue_for_prefill", (first_wave - 1) / 2 * per_prompt,
         Basis(explain, "({:.0f} − 1) / 2 prefills ahead × {:.3g} s", first_wave, per_prompt)});
  } else if (!l.Disaggregated()) {
    prefill.push_back({"wait_for_step", tpot * wait_share,
                       Basis(explain, "{:.3g} of a decode step", wait_share)});
  }
}

// Output tokens per second: sequences in flight over the step; disaggregated, no more than the
// prefill instances feed (each request's prefill, `per_prompt` in a batched pass, OSL tokens out).
void SetThroughput(const ServeLoad& load, const ServeLayout& l, const Instance& in,
                   double per_prompt, bool explain, ServePrediction& p) {
  const double held = static_cast<double>(p.instances) * p.batch_per_instance;
  const double in_flight = load.max_throughput ? held : std::min<double>(load.concurrency, held);
  double out = in_flight / p.tpot_s;
  if (l.Disaggregated()) {
    const double prefill_instances = l.prefill_gpus / in.gpus;
    const double fed = prefill_instances / per_prompt * load.osl;
    if (explain)
      p.notes.push_back(fmt::format(
          "disaggregated: decode side {:.4g} tok/s, prefill side {:.4g} tok/s ({} prefill "
          "instances); the {} side bounds it",
          out, fed, prefill_instances, fed < out ? "prefill" : "decode"));
    out = std::min(out, fed);
  }
  p.output_tokens_per_s = out;
  p.output_tokens_per_s_per_gpu = out / l.gpus;
  p.tokens_per_s_per_user = 1 / p.tpot_s;
}

void AddNotes(const Setting& s, std::string_view dtype, ServePrediction& p) {
  if (!s.explain) return;
  const ServeWork& w = s.w;
  p.notes.push_back(fmt::format(
      "weights {} in all ({} at {:.4g} B per parameter; embedding and output head bf16), {} per "
      "GPU of {}",
      Gb(w.WeightBytes()), dtype, w.bytes_per_param, Gb(WeightBytesPerGpu(w, s.in)),
      Gb(s.sys.hbm_capacity_bytes)));
  p.notes.push_back(fmt::format(
      "KV cache in {} ({:.0f} B per token{}{}): fp8 for fp8 and nvfp4 serving, bf16 for bf16",
      w.kv_bytes_per_value == 1 ? "fp8" : "bf16", w.kv_bytes_per_token,
      w.kv_split_by_tp ? "" : ", MLA latent replicated on every TP rank",
      w.state_bytes_per_sequence > 0
          ? fmt::format("; Mamba state {} per sequence, bf16", Gb(w.state_bytes_per_sequence))
          : ""));
  if (s.in.groups > 1) {
    p.notes.push_back(
        fmt::format("--ep {} over --tp {}: {} data-parallel attention groups per stage", s.in.ep,
                    s.in.tp, s.in.groups));
  }
  p.notes.push_back(
      "TTFT is the sum of the prefill terms; TPOT the sum of the decode terms; tokens/s per user "
      "1 / TPOT");
}

// The constants of one prediction: at max throughput, max_batch is the max_batch_size
// trtllm-bench's heuristic gives this engine (per instance: each of its pp stages holds one
// micro-batch of it), the benchmark the constants were fitted on; where the heuristic refuses the
// engine, the constants' max_batch stays. At a concurrency the constants as given.
ServeConstants AtEngineSettings(const ServeWork& w, const ServeLayout& layout,
                                const ServeLoad& load, const ServeSystem& system,
                                const ServeConstants& c, bool explain,
                                std::vector<std::string>& notes) {
  ServeConstants at = c;
  if (!load.max_throughput) return at;
  auto e = TrtllmBenchEngineSettings(w, system.hbm_capacity_bytes, layout.tp, layout.pp, load.isl,
                                     load.osl);
  if (!e.ok()) return at;
  at.max_batch = static_cast<double>(e->max_batch_size) * layout.pp;
  if (explain)
    notes.push_back(fmt::format(
        "max_batch {:.0f}: the max_batch_size trtllm-bench's engine heuristic gives TP {} x PP {} "
        "at "
        "ISL {} / OSL {} (the benchmark behind the published figures the constants are fitted on)",
        at.max_batch, layout.tp, layout.pp, load.isl, load.osl));
  return at;
}

}  // namespace

Result<ServePrediction> PredictServe(const ModelSpec& model, std::string_view dtype,
                                     const ServeLayout& layout, const ServeLoad& load,
                                     const ServeSystem& system, const ServeConstants& c,
                                     ServeText text) {
  YS_RETURN_IF_ERROR(CheckLoad(load));
  auto work = ComputeServeWork(model, dtype);
  if (!work.ok()) return work.status();
  return PredictServe(*work, dtype, layout, load, system, c, text);
}

Result<ServePrediction> PredictServe(const ServeWork& w, std::string_view dtype,
                                     const ServeLayout& layout, const ServeLoad& load,
                                     const ServeSystem& system, const ServeConstants& constants,
                                     ServeText text) {
  YS_RETURN_IF_ERROR(CheckLoad(load));
  const bool explain = text == ServeText::kExplained;
  const ServeWork* work = &w;
  ServePrediction p;
  const ServeConstants c = AtEngineSettings(w, layout, load, system, constants, explain, p.notes);
  auto in = InstanceOf(layout, *work);
  if (!in.ok()) return in.status();
  auto s = SettingOf(*work, system, c, *in, dtype);
  if (!s.ok()) return s.status();
  s->explain = explain;
  p.instances = (layout.Disaggregated() ? layout.decode_gpus : layout.gpus) / in->gpus;
  auto b = BatchOf(*s, load, p.instances, p.notes);
  if (!b.ok()) return b.status();
  p.batch_per_instance = *b;
  auto prefill = PrefillTerms(*s, load.isl);
  if (!prefill.ok()) return prefill.status();
  const double busy = Sum(*prefill) / in->pp;  // an instance's time per request's prefill
  // Prompts batched into one forward pass (in-flight batching, or many prompts queued on a prefill
  // instance): their FLOPs and bytes add, the collectives' latency is paid once per pass.
  const double chunk = std::max(0.0, busy - CollectiveLatencySeconds(*s) / in->pp);
  auto decode = DecodeTerms(*s, *b, load.isl + load.osl / 2.0);
  if (!decode.ok()) return decode.status();
  if (!layout.Disaggregated()) {
    decode->push_back({"prefill_chunks", *b * chunk / load.osl,
                       Basis(explain,
                             "{} sequences / OSL {} requests start per step × {:.3g} s of "
                             "prefill (in the step's forward pass: its collectives' latency "
                             "not paid again)",
                             *b, load.osl, chunk)});
  }
  p.tpot_s = Sum(*decode);
  if (layout.Disaggregated()) {
    auto kv = KvTransferTerm(*s, layout, load.isl);
    if (!kv.ok()) return kv.status();
    prefill->push_back(*kv);
  }
  AddWait(load, layout, *in, *b, p.instances, chunk, p.tpot_s, c.step_wait_share, explain,
          *prefill);
  p.ttft_s = Sum(*prefill);
  p.prefill = std::move(*prefill);
  p.decode = std::move(*decode);
  SetThroughput(load, layout, *in, chunk, explain, p);
  AddNotes(*s, dtype, p);
  return p;
}

}  // namespace ys::predict
