// The communication terms of the step model (predict/step_comm.h): each collective's link
// (NVLink inside the job's NVLink domain, else the network) and bus bandwidth, and the tensor,
// context, expert, pipeline and data-parallel terms with the share of each that compute does not
// hide. The compute, bubble and optimizer terms stay in predict/step_model.cc.
#include "predict/step_comm.h"

#include <algorithm>
#include <string>
#include <string_view>

namespace ys::predict {
namespace {

bool InDomain(int64_t span, int domain) { return span <= domain && domain % span == 0; }

struct Link {
  const char* name;
  double busbw;
};

Result<Link> LinkFor(const SystemRates& rates, const char* collective, int64_t span, int domain) {
  const bool nvlink = InDomain(span, domain);
  const auto& table = nvlink ? rates.nvlink_busbw : rates.network_busbw;
  auto it = table.find(collective);
  const char* name = nvlink ? "nvlink" : "network";
  if (it == table.end() || !(it->second > 0)) {
    return Status::Invalid(std::string("no positive ") + name + " bus bandwidth for " + collective +
                           " on " + rates.chip);
  }
  return Link{name, it->second};
}

// The bus bandwidth of a ring collective (all-gather, reduce-scatter) over a group whose members
// lie `stride` ranks apart. Inside one NVLink domain: the domain's link. Across domains a ring
// enters and leaves each domain once per channel, and NCCL spreads its channels over the NICs of
// the group's GPUs in the domain, so the network part runs at the members' NICs together: the
// per-GPU network rate times the members per domain (domain / stride), at most the NVLink rate
// (nccl-tests' busbw across nodes reaches the node's NIC total, not one NIC's: a DP group of a
// TP 2 job on 4-GPU nodes has 2 members per node, so twice one NIC). Concurrent groups (the other
// TP ranks' DP groups) share the NICs, which this per-member figure already assumes. Only the
// reference rate, one NIC per GPU, is scaled; a measured (or --set) coll.* busbw is the cluster's
// own figure and is taken as it is.
double RingBusbw(const SystemRates& rates, const char* collective, const Link& link, int64_t stride,
                 int domain) {
  if (std::string_view(link.name) != "network" || stride <= 0 || domain % stride != 0)
    return link.busbw;
  auto origin = rates.origin.find(std::string("coll.") + collective + ".busbw");
  if (origin == rates.origin.end() || origin->second != "reference") return link.busbw;
  const double members = static_cast<double>(domain / stride);
  auto nvlink = rates.nvlink_busbw.find(collective);
  const double cap = nvlink != rates.nvlink_busbw.end() ? nvlink->second : link.busbw * members;
  return std::max(link.busbw, std::min(cap, link.busbw * members));
}

// One collective term: `count` collectives a step of `bytes` each over `span` ranks (`stride`
// apart where given: a ring through the job), each moving bytes × bus_factor at the link's busbw
// plus a fixed time, exposed_share of it exposed.
struct CommSpec {
  const char* name;
  const char* label;      // the collectives as the breakdown names them
  const char* rate_coll;  // the collective whose busbw rates it
  int64_t span;
  double bytes, count, bus_factor, exposed_share;
  double fixed_s = 0;
  int64_t stride = 0;
};
Status AddCommTerm(const SystemRates& rates, int domain, const CommSpec& s, StepPrediction& out) {
  auto link = LinkFor(rates, s.rate_coll, s.span, domain);
  if (!link.ok()) return link.status();
  if (s.stride > 0) link->busbw = RingBusbw(rates, s.rate_coll, *link, s.stride, domain);
  CommTerm t{s.name, s.label, link->name, s.bytes, link->busbw, 0, 0};
  t.raw_s = s.count * (s.bytes * s.bus_factor / link->busbw + s.fixed_s);
  t.exposed_s = t.raw_s * s.exposed_share;
  out.comm.push_back(t);
  return Status::Ok();
}

// The expert-parallel all-to-all: dispatch and combine, forward and backward (and the forward
// again where the MoE block is recomputed), each over the ep ranks (etp GPUs apart). The
// all-to-all dispatcher sends top_k copies of a token across the group: (ep − 1)/ep of them leave
// the GPU. Where the group spans several NVLink domains the copies to the other domains,
// (domains − 1)/domains of them, cross the network, one NIC per GPU, while those inside the
// domain ride NVLink at the same time, so the network share sets the time (nccl-tests' alltoall
// busbw on N nodes reaches N/(N − 1) × the NIC rate: the NCCL maintainers on
// NVIDIA/nccl-tests#130). DeepEP sends one copy over the network to each other domain that holds
// one of the token's experts (forwarded to the experts over NVLink, concurrently)
// (RemoteNodesPerToken). Each all-to-all also pays a fixed time per peer.
Status AddExpertComm(const Recipe& r, const StepWork& w, const SystemRates& rates,
                     const Constants& c, int domain, double m, const MicroBatchShape& mb,
                     StepPrediction& out) {
  const Parallelism& p = r.par;
  const int64_t span = int64_t{p.ep} * r.Etp();
  double bytes = w.ep_message_bytes, factor = (p.ep - 1.0) / p.ep;
  if (!InDomain(span, domain)) {
    const int64_t domains = std::max<int64_t>(2, (span + domain - 1) / domain);
    if (p.moe_dispatcher == "deepep") {
      bytes *= RemoteNodesPerToken(*r.model->moe, domains) / r.model->moe->top_k;
      factor = 1.0;
    } else {
      factor = (domains - 1.0) / domains;
    }
  }
  const double moe_recomputed = RecomputedShare(p, r.layers, "moe");
  YS_RETURN_IF_ERROR(AddCommTerm(rates, domain,
                                 {"ep", "alltoall", "alltoall", span, bytes,
                                  m * (4.0 + 2.0 * moe_recomputed) * w.moe_layers / p.pp * mb.stage,
                                  factor, 1.0, (p.ep - 1.0) * c.alltoall_seconds_per_peer},
                                 out));
  if (p.moe_a2a_overlap) {
    CommTerm& ep_term = out.comm.back();
    ep_term.exposed_s = OverlappedAllToAllSeconds(ep_term.raw_s / m, mb.compute_s, m, p.pp, r.Vp());
  }
  return Status::Ok();
}

}  // namespace

// Communication per micro-batch: tensor, context, expert and pipeline parallel.
Status AddMicroBatchComm(const Recipe& r, const StepWork& w, const SystemRates& rates,
                         const Constants& c, int domain, double m, const MicroBatchShape& mb,
                         StepPrediction& out) {
  const Parallelism& p = r.par;
  const double layers_stage = mb.stage * r.layers / p.pp;  // layers of the stage waited for
  if (p.tp > 1) {
    // Sequence parallel: per layer an all-gather and a reduce-scatter before and after attention
    // and the MLP, forward and backward: 4 + 4.
    YS_RETURN_IF_ERROR(
        AddCommTerm(rates, domain,
                    {"tp", "all_gather+reduce_scatter", "all_gather", p.tp, w.tp_message_bytes,
                     m * 8 * layers_stage, (p.tp - 1.0) / p.tp, c.tp_exposed},
                    out));
  }
  if (p.cp > 1 && w.cp_message_bytes > 0) {
    // Ring attention: cp − 1 key/value blocks forward, twice that backward (keys/values and
    // their gradients).
    YS_RETURN_IF_ERROR(AddCommTerm(
        rates, domain,
        {"cp", "sendrecv", "sendrecv", int64_t{p.tp} * p.cp, w.cp_message_bytes,
         m * 3.0 * (p.cp - 1) * w.attention_layers / p.pp * mb.stage, 1.0, c.tp_exposed},
        out));
  }
  if (w.moe_layers > 0 && p.ep > 1)
    YS_RETURN_IF_ERROR(AddExpertComm(r, w, rates, c, domain, m, mb, out));
  if (p.pp > 1) {
    YS_RETURN_IF_ERROR(AddCommTerm(rates, domain,
                                   {"pp", "sendrecv", "sendrecv", p.gpus, w.pp_message_bytes,
                                    m * 2.0 * r.Vp(), 1.0, c.tp_exposed},
                                   out));
  }
  return Status::Ok();
}

// Data parallel: gradients reduce-scattered in fp32 and parameters all-gathered in bf16, once a
// step (distributed optimizer) or every micro-batch (FSDP: gathered forward and backward). Both
// overlap compute (bucketed reduce-scatter under the backward, all-gather under the forward):
// within dp_overlap_microbatches micro-batches' compute a step, or under every micro-batch with
// FSDP; not at all when the recipe does not overlap them (dp_overlap false). What does not fit
// under the window is exposed, shared between the two by their raw times.
Status AddDataParallelComm(const Recipe& r, const StepWork& w, const SystemRates& rates,
                           const Constants& c, int domain, double m, double compute_mb,
                           StepPrediction& out) {
  const Parallelism& p = r.par;
  const int64_t dp_span = int64_t{p.tp} * p.cp * out.data_parallel;
  const double dp_rounds = p.fsdp ? m : 1.0;
  const double gather_bytes = p.fsdp ? 4.0 : 2.0;
  double rs_raw = 0, ag_raw = 0;
  // Members of a dense data-parallel group lie tp·cp ranks apart, of an expert one etp·ep.
  struct DpGroup {
    double params;
    int group;
    int64_t stride;
  };
  for (const DpGroup& g :
       {DpGroup{w.dense_params_per_gpu, w.dense_dp, int64_t{p.tp} * p.cp},
        DpGroup{w.expert_params_per_gpu, w.expert_dp, int64_t{p.ep} * r.Etp()}}) {
    if (g.group <= 1 || g.params <= 0) continue;
    const double factor = (g.group - 1.0) / g.group;
    YS_RETURN_IF_ERROR(AddCommTerm(rates, domain,
                                   {"dp", "reduce_scatter", "reduce_scatter", dp_span,
                                    g.params * 4.0, dp_rounds, factor, 0, 0, g.stride},
                                   out));
    rs_raw += out.comm.back().raw_s;
    YS_RETURN_IF_ERROR(AddCommTerm(rates, domain,
                                   {"dp", "all_gather", "all_gather", dp_span,
                                    g.params * gather_bytes, dp_rounds, factor, 0, 0, g.stride},
                                   out));
    ag_raw += out.comm.back().raw_s;
  }
  const double window =
      p.dp_overlap ? (p.fsdp ? m : std::min(m, c.dp_overlap_microbatches)) * compute_mb : 0.0;
  const double dp_raw = rs_raw + ag_raw;
  const double dp_exposed = std::max(0.0, dp_raw - window);
  const double rs_exposed = dp_raw > 0 ? dp_exposed * rs_raw / dp_raw : 0;
  const double ag_exposed = dp_raw > 0 ? dp_exposed * ag_raw / dp_raw : 0;
  for (CommTerm& t : out.comm) {
    if (t.name != "dp") continue;
    const bool rs = t.collective == "reduce_scatter";
    const double raw = rs ? rs_raw : ag_raw;
    t.exposed_s = raw > 0 ? t.raw_s / raw * (rs ? rs_exposed : ag_exposed) : 0;
  }
  return Status::Ok();
}

}  // namespace ys::predict
