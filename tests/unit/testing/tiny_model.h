// A small dense model file, literal, and the shipped models' folder: what the model-spec tests
// parse and edit.
#ifndef YARDSTICK_TESTS_UNIT_TESTING_TINY_MODEL_H_
#define YARDSTICK_TESTS_UNIT_TESTING_TINY_MODEL_H_

#include <string>

namespace ys::testing {

inline const std::string kModels = std::string(YS_SOURCE_DIR) + "/models";

inline constexpr const char* kGood = R"([model]
name = "tiny"
display_name = "Tiny"
architecture = "dense"
source = "test"

[shape]
layers = 2
hidden_size = 64
ffn_hidden_size = 256
attention_heads = 4
kv_heads = 2
vocab_size = 1000
seq_length = 128
source = "test"

[[parallelism]]
chip = "h100"
dtype = "bf16"
gpus = 16
tp = 2
pp = 2
cp = 1
ep = 1
vp = 2
micro_batch = 1
global_batch = 32
source = "test"
)";

}  // namespace ys::testing

#endif  // YARDSTICK_TESTS_UNIT_TESTING_TINY_MODEL_H_
