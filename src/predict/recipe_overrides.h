// Fields laid over a model file's [[parallelism]] entry: the command line's (`predict --tp ...`), a
// suite workload's batch and sequence, a published row's stated recipe. A field left empty keeps
// the entry's. A new recipe property that callers may set is added here and in LayOver.
//
// Thread safety: values only.
#ifndef YARDSTICK_PREDICT_RECIPE_OVERRIDES_H_
#define YARDSTICK_PREDICT_RECIPE_OVERRIDES_H_

#include <optional>
#include <string>

#include "predict/model_spec.h"

namespace ys::predict {

struct RecipeOverrides {
  std::optional<int> tp, pp, cp, ep, etp, vp, micro_batch, global_batch;
  std::optional<int> seq, layers;
  std::optional<int> mtp_layers;  // the recipe's, not the entry's: else [shape] seq_length, layers
  std::optional<int> recompute_layers, bf16_layers;
  std::string recompute, attention_backend, moe_dispatcher, cuda_graphs;
  std::string module_precision;  // "none" clears the entry's
  std::optional<bool> fsdp, moe_token_drop, moe_a2a_overlap;
};

// The entry's fields that `o` sets, replaced (seq and layers belong to the recipe, not the entry).
void LayOver(const RecipeOverrides& o, predict::Parallelism& p);

}  // namespace ys::predict

#endif  // YARDSTICK_PREDICT_RECIPE_OVERRIDES_H_
