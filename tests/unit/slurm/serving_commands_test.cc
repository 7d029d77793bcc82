// The serving phase's default commands (slurm/serving_commands.h), as word lists with their
// placeholders: each stack's launch line and its parallelism flags, the stacks that need a site
// launch line, and each load generator's flags. How the script fills and quotes them is
// serving_script_test.cc.
#include "slurm/serving_commands.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace ys::slurm {
namespace {

validate::ServingPhase CommandsPhase(const std::string& stack, const std::string& load) {
  validate::ServingPhase p;
  p.id = "chat";
  p.stack = stack;
  p.load_generator = load;
  return p;
}

bool HasWord(const std::vector<std::string>& words, const std::string& w) {
  return std::find(words.begin(), words.end(), w) != words.end();
}

TEST(ServingCommands, ServerLinePerStackWithItsParallelism) {
  validate::ServingPhase p = CommandsPhase("vllm", "aiperf");
  auto plain = DefaultServerCommand(p, /*multinode=*/false);
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  EXPECT_EQ(*plain,
            (std::vector<std::string>{"vllm", "serve", "{served_model}", "--host", "0.0.0.0",
                                      "--port", "{port}", "--tensor-parallel-size", "{tp}"}));
  p.pp = 2;
  p.dp = 2;
  p.ep = 4;
  auto wide = DefaultServerCommand(p, false);
  ASSERT_TRUE(wide.ok());
  EXPECT_TRUE(HasWord(*wide, "--pipeline-parallel-size"));
  EXPECT_TRUE(HasWord(*wide, "--data-parallel-size"));
  EXPECT_TRUE(HasWord(*wide, "--enable-expert-parallel"));
  p.stack = "sglang";
  auto sglang = DefaultServerCommand(p, false);
  ASSERT_TRUE(sglang.ok());
  EXPECT_EQ((*sglang)[2], "sglang.launch_server");
  EXPECT_TRUE(HasWord(*sglang, "--ep-size"));
  p.stack = "trtllm";
  auto trt = DefaultServerCommand(p, /*multinode=*/true);
  ASSERT_TRUE(trt.ok());
  EXPECT_EQ(trt->front(), "trtllm-llmapi-launch");  // one MPI rank per GPU across nodes
  EXPECT_EQ(DefaultServerCommand(p, false)->front(), "trtllm-serve");
}

TEST(ServingCommands, StacksWithoutALaunchLineNameTheKeyThatFixesIt) {
  auto across = DefaultServerCommand(CommandsPhase("vllm", "aiperf"), /*multinode=*/true);
  ASSERT_FALSE(across.ok());
  EXPECT_EQ(across.status().message(),
            "phase chat: stack vllm across nodes needs a site launch line: set [serving] "
            "server_command");
  auto unknown = DefaultServerCommand(CommandsPhase("mystack", "aiperf"), false);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("no launch line for stack 'mystack'"),
            std::string::npos);
}

TEST(ServingCommands, LoadGeneratorFlags) {
  validate::ServingPhase p = CommandsPhase("trtllm", "aiperf");
  p.warmup_requests = 16;
  std::vector<std::string> aiperf = DefaultLoadCommand(p);
  EXPECT_EQ(aiperf[0], "aiperf");
  EXPECT_EQ(aiperf[5], "{url}");
  EXPECT_TRUE(HasWord(aiperf, "--streaming"));
  EXPECT_TRUE(HasWord(aiperf, "ignore_eos:true"));
  EXPECT_TRUE(HasWord(aiperf, "--warmup-request-count"));
  p.load_generator = "genai-perf";
  p.streaming = false;
  p.ignore_eos = false;
  p.warmup_requests = 0;
  std::vector<std::string> genai = DefaultLoadCommand(p);
  EXPECT_EQ(genai[0], "genai-perf");
  EXPECT_EQ(genai[5], "{host}:{port}");  // GenAI-Perf takes host:port
  EXPECT_FALSE(HasWord(genai, "--streaming"));
  EXPECT_FALSE(HasWord(genai, "ignore_eos:true"));
  EXPECT_FALSE(HasWord(genai, "--warmup-request-count"));
  p.load_generator = "vllm";
  std::vector<std::string> vllm = DefaultLoadCommand(p);
  EXPECT_EQ(std::vector<std::string>(vllm.begin(), vllm.begin() + 3),
            (std::vector<std::string>{"vllm", "bench", "serve"}));
  EXPECT_FALSE(HasWord(vllm, "--num-warmups"));
  EXPECT_FALSE(HasWord(vllm, "--ignore-eos"));
  EXPECT_EQ(vllm.back(), "tensor_parallel_size={tp}");
}

}  // namespace
}  // namespace ys::slurm
