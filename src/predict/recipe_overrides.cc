#include "predict/recipe_overrides.h"

namespace ys::predict {

void LayOver(const RecipeOverrides& o, predict::Parallelism& p) {
  if (o.tp) p.tp = *o.tp;
  if (o.pp) p.pp = *o.pp;
  if (o.cp) p.cp = *o.cp;
  if (o.ep) p.ep = *o.ep;
  if (o.etp) p.etp = *o.etp;
  if (o.vp) p.vp = *o.vp;
  if (o.micro_batch) p.micro_batch = *o.micro_batch;
  if (o.global_batch) p.global_batch = *o.global_batch;
  if (!o.recompute.empty()) p.recompute = o.recompute;
  if (o.recompute_layers) p.recompute_layers = *o.recompute_layers;
  if (!o.attention_backend.empty()) p.attention_backend = o.attention_backend;
  if (!o.moe_dispatcher.empty()) p.moe_dispatcher = o.moe_dispatcher;
  if (!o.cuda_graphs.empty()) p.cuda_graphs = o.cuda_graphs;
  if (o.fsdp) p.fsdp = *o.fsdp;
  if (o.moe_token_drop) p.moe_token_drop = *o.moe_token_drop;
  if (o.moe_a2a_overlap) p.moe_a2a_overlap = *o.moe_a2a_overlap;
  if (o.mtp_layers) p.mtp_layers = *o.mtp_layers;
  if (o.bf16_layers) p.bf16_layers = *o.bf16_layers;
  if (!o.module_precision.empty())
    p.module_precision = o.module_precision == "none" ? "" : o.module_precision;
}

}  // namespace ys::predict
