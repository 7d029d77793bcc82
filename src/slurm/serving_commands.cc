#include "slurm/serving_commands.h"

#include <fmt/format.h>

#include <initializer_list>

namespace ys::slurm {

// The aggregated server's command when [serving] server_command is not set.
Result<std::vector<std::string>> DefaultServerCommand(const validate::ServingPhase& p,
                                                      bool multinode) {
  std::vector<std::string> cmd;
  auto add_if = [&](bool cond, std::initializer_list<std::string> words) {
    if (cond) cmd.insert(cmd.end(), words);
  };
  if (p.stack == "trtllm") {
    add_if(multinode, {"trtllm-llmapi-launch"});
    cmd.insert(cmd.end(), {"trtllm-serve", "serve", "{served_model}", "--host", "0.0.0.0", "--port",
                           "{port}", "--backend", "pytorch", "--tp_size", "{tp}", "--ep_size",
                           "{ep}", "--pp_size", "{pp}"});
    return cmd;
  }
  if (multinode) {
    return Status::Invalid(fmt::format(
        "phase {}: stack {} across nodes needs a site launch line: set [serving] server_command",
        p.id, p.stack));
  }
  if (p.stack == "vllm") {
    cmd.insert(cmd.end(), {"vllm", "serve", "{served_model}", "--host", "0.0.0.0", "--port",
                           "{port}", "--tensor-parallel-size", "{tp}"});
    add_if(p.pp > 1, {"--pipeline-parallel-size", "{pp}"});
    add_if(p.dp > 1, {"--data-parallel-size", "{dp}"});
    add_if(p.ep > 1, {"--enable-expert-parallel"});
    return cmd;
  }
  if (p.stack == "sglang") {
    cmd.insert(cmd.end(),
               {"python3", "-m", "sglang.launch_server", "--model-path", "{served_model}", "--host",
                "0.0.0.0", "--port", "{port}", "--tp-size", "{tp}"});
    add_if(p.pp > 1, {"--pp-size", "{pp}"});
    add_if(p.dp > 1, {"--dp-size", "{dp}"});
    add_if(p.ep > 1, {"--ep-size", "{ep}"});
    return cmd;
  }
  return Status::Invalid(fmt::format(
      "phase {}: yardstick has no launch line for stack '{}' (it knows vllm, sglang, trtllm, "
      "dynamo-trtllm): set [serving] server_command",
      p.id, p.stack));
}

// The load generator's command at one concurrency when [serving] load_command is not set.
std::vector<std::string> DefaultLoadCommand(const validate::ServingPhase& p) {
  std::vector<std::string> cmd;
  auto add_if = [&](bool cond, std::initializer_list<std::string> words) {
    if (cond) cmd.insert(cmd.end(), words);
  };
  if (p.load_generator == "vllm") {
    cmd.insert(cmd.end(), {"vllm",
                           "bench",
                           "serve",
                           "--backend",
                           "openai-chat",
                           "--base-url",
                           "{url}",
                           "--endpoint",
                           "/v1/chat/completions",
                           "--model",
                           "{served_model}",
                           "--dataset-name",
                           "random",
                           "--random-input-len",
                           "{isl}",
                           "--random-output-len",
                           "{osl}",
                           "--num-prompts",
                           "{requests}",
                           "--max-concurrency",
                           "{concurrency}",
                           "--request-rate",
                           "inf"});
    add_if(p.warmup_requests > 0, {"--num-warmups", "{warmup_requests}"});
    add_if(p.ignore_eos, {"--ignore-eos"});
    cmd.insert(cmd.end(),
               {"--percentile-metrics", "ttft,tpot,itl,e2el", "--save-result", "--result-dir",
                "{artifact_dir}", "--result-filename", "vllm_bench_c{concurrency}.json",
                "--metadata", "input_len={isl}", "output_len={osl}", "tensor_parallel_size={tp}"});
    return cmd;
  }
  // AIPerf and GenAI-Perf share their flags; GenAI-Perf takes host:port.
  const bool aiperf = p.load_generator != "genai-perf";
  cmd = {
      aiperf ? "aiperf" : "genai-perf",   "profile",         "--model", "{served_model}", "--url",
      aiperf ? "{url}" : "{host}:{port}", "--endpoint-type", "chat"};
  add_if(p.streaming, {"--streaming"});
  cmd.insert(cmd.end(),
             {"--synthetic-input-tokens-mean", "{isl}", "--synthetic-input-tokens-stddev", "0",
              "--output-tokens-mean", "{osl}", "--output-tokens-stddev", "0"});
  add_if(p.ignore_eos, {"--extra-inputs", "ignore_eos:true"});
  cmd.insert(cmd.end(), {"--extra-inputs", "max_tokens:{osl}", "--concurrency", "{concurrency}",
                         "--request-count", "{requests}"});
  add_if(p.warmup_requests > 0, {"--warmup-request-count", "{warmup_requests}"});
  cmd.insert(cmd.end(), {"--artifact-dir", "{artifact_dir}"});
  return cmd;
}

}  // namespace ys::slurm
