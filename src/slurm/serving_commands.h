// The serving phase's default commands (slurm/serving_script.h), used where cluster.toml's
// [serving] server_command or load_command is not set: each stack's launch line (vLLM, SGLang,
// TensorRT-LLM) and each load generator's (vllm bench serve, AIPerf, GenAI-Perf). Words keep
// their {placeholders} ({served_model}, {port}, {tp}, {concurrency}, ...) for the script to fill.
#ifndef YARDSTICK_SLURM_SERVING_COMMANDS_H_
#define YARDSTICK_SLURM_SERVING_COMMANDS_H_

#include <string>
#include <vector>

#include "core/status.h"
#include "validate/serving_phase.h"

namespace ys::slurm {

// The aggregated server's command. Invalid for a stack without a launch line, or one other than
// TensorRT-LLM across nodes (a site launch line is needed there).
Result<std::vector<std::string>> DefaultServerCommand(const validate::ServingPhase& p,
                                                      bool multinode);

// The load generator's command at one concurrency point.
std::vector<std::string> DefaultLoadCommand(const validate::ServingPhase& p);

}  // namespace ys::slurm

#endif  // YARDSTICK_SLURM_SERVING_COMMANDS_H_
