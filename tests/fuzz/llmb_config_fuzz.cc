// Fuzz target: the llmb-config YAML beside a training log (validate/llmb_config.cc:
// ParseLlmbConfig and the flat-YAML reader under it).
#include "fuzz_target.h"
#include "fuzz_util.h"
#include "validate/llmb_config.h"

YS_FUZZ_TARGET(llmb_config) {
  (void)ys::validate::ParseLlmbConfig(ys::fuzz::AsText(data, size), "llmb-config_1.yaml");
  return 0;
}
