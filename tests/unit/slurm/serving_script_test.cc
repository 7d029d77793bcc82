#include "slurm/serving_script.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "host/subprocess.h"

namespace ys::slurm {
namespace {

namespace fs = std::filesystem;

validate::Suite ServingSuite() {
  validate::Suite s;
  s.chip = "b200";
  s.recipe_release = "v26.05";
  return s;
}

validate::ServingPhase Aggregated(const std::string& stack, int gpus,
                                  const std::string& load = "aiperf") {
  validate::ServingPhase p;
  p.id = "dsr1_fp4_chat";
  p.phase = "chat";
  p.model = "deepseek-r1";
  p.precision = "fp4";
  p.stack = stack;
  p.stack_version = "unpinned";
  p.served_model = "deepseek-ai/DeepSeek-R1";
  p.gpus = gpus;
  p.tp = gpus;
  p.ep = gpus;
  p.isl = 128;
  p.osl = 128;
  p.concurrency = {64, 256};
  p.requests = 2048;
  p.warmup_requests = 256;
  p.load_generator = load;
  return p;
}

// NVIDIA's GB200 disaggregated layout: 6 prefill x TP4, 1 decode x TP8.
validate::ServingPhase Disaggregated(int prefill_tp = 4, int decode_tp = 8) {
  validate::ServingPhase p = Aggregated("dynamo-trtllm", 0, "genai-perf");
  p.id = "dsr1_fp4_disagg";
  p.phase = "disaggregated";
  p.tp = p.ep = 1;
  p.prefill_workers = 6;
  p.prefill_tp = prefill_tp;
  p.decode_workers = 1;
  p.decode_tp = decode_tp;
  p.gpus = 6 * prefill_tp + decode_tp;
  p.concurrency = {2048};
  p.requests = 16384;
  return p;
}

ClusterConfig ServingCluster(int gpus_per_node = 8) {
  ClusterConfig c;
  c.partition = "batch";
  c.time_limit = "02:00:00";
  c.gpus_per_node = gpus_per_node;
  c.image = "/img/nemo.sqsh";  // the training image: not the serving one
  c.mounts = {"/lustre/hf:/hf:ro"};
  c.serving.present = true;
  c.path = "cluster.toml";
  return c;
}

std::string Script(const ClusterConfig& c, const validate::ServingPhase& p) {
  auto job = MakeServingJob(c, ServingSuite(), p, "/lustre/runs/");
  EXPECT_TRUE(job.ok()) << job.status().message();
  return job.ok() ? job->script : "";
}

std::string ErrorOf(const ClusterConfig& c, const validate::ServingPhase& p,
                    const std::string& runs = "/lustre/runs") {
  auto job = MakeServingJob(c, ServingSuite(), p, runs);
  EXPECT_FALSE(job.ok());
  return job.ok() ? "" : job.status().message();
}

bool Has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(ServingScriptTest, JobShapeAndWhereItsFilesGo) {
  ClusterConfig c = ServingCluster();
  c.serving.image = "/img/trtllm.sqsh";
  auto job = MakeServingJob(c, ServingSuite(), Aggregated("trtllm", 4), "/lustre/runs/");
  ASSERT_TRUE(job.ok()) << job.status().message();
  EXPECT_EQ(job->workload, "dsr1_fp4_chat");
  EXPECT_EQ(job->nodes, 1);
  EXPECT_EQ(job->tasks_per_node, 4);
  EXPECT_EQ(job->log_dir, "/lustre/runs/dsr1_fp4_chat.job");
  EXPECT_EQ(job->script_path, "/lustre/runs/dsr1_fp4_chat.job/dsr1_fp4_chat.sbatch");
  const std::string& s = job->script;
  for (const char* line :
       {"#SBATCH --nodes=1", "#SBATCH --ntasks-per-node=4", "#SBATCH --gres=gpu:4",
        "#SBATCH --exclusive",
        "#SBATCH --output=/lustre/runs/dsr1_fp4_chat.job/slurm-dsr1_fp4_chat_%j.out",
        "export YARDSTICK_PHASE='dsr1_fp4_chat'", "ys_dir='/lustre/runs/dsr1_fp4_chat'",
        "trap ys_stop EXIT"}) {
    EXPECT_TRUE(Has(s, std::string("\n") + line + "\n")) << line << "\n" << s;
  }
  // The [serving] image wins over the training one and the phase's.
  EXPECT_TRUE(
      Has(s, "'--container-image=/img/trtllm.sqsh' '--container-mounts=/lustre/hf:/hf:ro'"));
  EXPECT_FALSE(Has(s, "nemo.sqsh"));
  // Telemetry on every node, host nvidia-smi, with the note where there is none.
  EXPECT_TRUE(Has(s, "srun --overlap --nodes=1 --ntasks=1 --ntasks-per-node=1 bash -c"));
  EXPECT_TRUE(Has(s, "-lms \"$2\" -f \"$f.csv\""));
  EXPECT_TRUE(Has(s, "clocks.max.sm,clocks.mem,clocks_event_reasons.active"));
  EXPECT_TRUE(Has(s, "dmesg -T"));
  EXPECT_TRUE(Has(s, "nvidia-smi not found"));
  EXPECT_TRUE(Has(s, "ys_dir\" 1000 &"));
  EXPECT_TRUE(Has(s, "ys_health_path='/v1/models'\nys_health_timeout=1800\n"));
}

TEST(ServingScriptTest, ServerCommandPerStack) {
  ClusterConfig c = ServingCluster();
  std::string trt = Script(c, Aggregated("trtllm", 4));
  EXPECT_TRUE(Has(trt, "srun --overlap --nodes=1 --ntasks=1 --ntasks-per-node=1 --"));
  EXPECT_TRUE(Has(trt,
                  "-- 'trtllm-serve' 'serve' 'deepseek-ai/DeepSeek-R1' '--host' '0.0.0.0' "
                  "'--port' '8000' '--backend' 'pytorch' '--tp_size' '4' '--ep_size' '4' "
                  "'--pp_size' '1' > \"$ys_dir\"/server.log 2>&1 &"))
      << trt;
  // Across nodes: one MPI rank per GPU through trtllm-llmapi-launch.
  std::string trt16 = Script(c, Aggregated("trtllm", 16));
  EXPECT_TRUE(Has(trt16, "#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=8\n"));
  EXPECT_TRUE(Has(trt16, "srun --overlap --nodes=2 --ntasks=16 --ntasks-per-node=8 --mpi=pmix"));
  EXPECT_TRUE(Has(trt16, "-- 'trtllm-llmapi-launch' 'trtllm-serve' 'serve'"));
  validate::ServingPhase v = Aggregated("vllm", 8);
  v.ep = 1;
  v.dp = 1;
  EXPECT_TRUE(Has(Script(c, v),
                  "-- 'vllm' 'serve' 'deepseek-ai/DeepSeek-R1' '--host' '0.0.0.0' "
                  "'--port' '8000' '--tensor-parallel-size' '8' > "));
  v.tp = 4;
  v.dp = 2;
  v.ep = 8;
  EXPECT_TRUE(Has(Script(c, v),
                  "'--tensor-parallel-size' '4' '--data-parallel-size' '2' "
                  "'--enable-expert-parallel' > "));
  EXPECT_TRUE(Has(Script(c, Aggregated("sglang", 8)),
                  "-- 'python3' '-m' 'sglang.launch_server' '--model-path' "
                  "'deepseek-ai/DeepSeek-R1' '--host' '0.0.0.0' '--port' '8000' '--tp-size' '8' "
                  "'--ep-size' '8' > "));
  // What yardstick cannot launch by itself names the key that fixes it.
  EXPECT_TRUE(Has(ErrorOf(c, Aggregated("vllm", 16)), "set [serving] server_command"));
  EXPECT_TRUE(Has(ErrorOf(c, Aggregated("mystack", 8)), "no launch line for stack 'mystack'"));
  // The site's own line, placeholders filled in, {host} left to the job.
  c.serving.server_command = {"/opt/site/serve.sh", "{served_model}", "--tp={tp}", "{host}"};
  c.serving.port = 9000;
  std::string site = Script(c, Aggregated("mystack", 8));
  EXPECT_TRUE(Has(site,
                  "-- '/opt/site/serve.sh' 'deepseek-ai/DeepSeek-R1' '--tp=8' \"$ys_head\" > "
                  "\"$ys_dir\"/server.log"))
      << site;
  EXPECT_TRUE(Has(site, "\nys_port=9000\n"));
}

TEST(ServingScriptTest, LoadGeneratorPerConcurrency) {
  ClusterConfig c = ServingCluster();
  std::string a = Script(c, Aggregated("trtllm", 4, "aiperf"));
  EXPECT_TRUE(Has(a,
                  "\nmkdir -p '/lustre/runs/dsr1_fp4_chat/c64'\nys_rc=0\n'aiperf' 'profile' "
                  "'--model' 'deepseek-ai/DeepSeek-R1' '--url' \"$ys_url\" '--endpoint-type' "
                  "'chat' '--streaming' '--synthetic-input-tokens-mean' '128' "
                  "'--synthetic-input-tokens-stddev' '0' '--output-tokens-mean' '128' "
                  "'--output-tokens-stddev' '0' '--extra-inputs' 'ignore_eos:true' "
                  "'--extra-inputs' 'max_tokens:128' '--concurrency' '64' '--request-count' "
                  "'2048' '--warmup-request-count' '256' '--artifact-dir' "
                  "'/lustre/runs/dsr1_fp4_chat/c64' || ys_rc=$?\n"))
      << a;
  EXPECT_TRUE(Has(a, "'--concurrency' '256'"));
  EXPECT_TRUE(Has(a, "exit \"$ys_rc\""));
  validate::ServingPhase g = Aggregated("trtllm", 4, "genai-perf");
  g.streaming = false;
  g.ignore_eos = false;
  g.warmup_requests = 0;
  std::string gs = Script(c, g);
  EXPECT_TRUE(Has(gs,
                  "'genai-perf' 'profile' '--model' 'deepseek-ai/DeepSeek-R1' '--url' "
                  "\"$ys_head\"':8000' '--endpoint-type' 'chat' '--synthetic-input"))
      << gs;
  EXPECT_FALSE(Has(gs, "--streaming"));
  EXPECT_FALSE(Has(gs, "ignore_eos"));
  EXPECT_FALSE(Has(gs, "--warmup-request-count"));  // AIPerf refuses 0
  std::string vs = Script(c, Aggregated("trtllm", 4, "vllm"));
  EXPECT_TRUE(Has(vs,
                  "'vllm' 'bench' 'serve' '--backend' 'openai-chat' '--base-url' \"$ys_url\" "
                  "'--endpoint' '/v1/chat/completions' '--model' 'deepseek-ai/DeepSeek-R1' "
                  "'--dataset-name' 'random' '--random-input-len' '128' "
                  "'--random-output-len' '128' '--num-prompts' '2048' '--max-concurrency' "
                  "'256' '--request-rate' 'inf' '--num-warmups' '256' '--ignore-eos' "
                  "'--percentile-metrics' 'ttft,tpot,itl,e2el' '--save-result' "
                  "'--result-dir' '/lustre/runs/dsr1_fp4_chat/c256' '--result-filename' "
                  "'vllm_bench_c256.json' '--metadata' 'input_len=128' 'output_len=128' "
                  "'tensor_parallel_size=4' || ys_rc=$?"))
      << vs;
  // The site's load command: load-only placeholders per point, {url} inside a word.
  c.serving.load_command = {"bench", "--target={url}/v1",       "-c",  "{concurrency}",
                            "-o",    "{artifact_dir}/out.json", "it's"};
  std::string site = Script(c, Aggregated("trtllm", 4));
  EXPECT_TRUE(Has(site,
                  "\n'bench' '--target='\"$ys_url\"'/v1' '-c' '64' '-o' "
                  "'/lustre/runs/dsr1_fp4_chat/c64/out.json' 'it'\\''s' || ys_rc=$?\n"))
      << site;
}

TEST(ServingScriptTest, DisaggregatedLayout) {
  int nodes = 0;
  // 4 GPUs per node (GB200): each TP4 prefill worker has a node, the TP8 decode worker two.
  auto gb = DisaggregatedLayout(Disaggregated(), 4, &nodes);
  ASSERT_TRUE(gb.ok()) << gb.status().message();
  ASSERT_EQ(gb->size(), 7u);
  EXPECT_EQ(nodes, 8);
  EXPECT_EQ((*gb)[5].first_node, 5);
  EXPECT_EQ((*gb)[5].devices, "");
  EXPECT_EQ((*gb)[6].role, "decode");
  EXPECT_EQ((*gb)[6].first_node, 6);
  EXPECT_EQ((*gb)[6].nodes, 2);
  // 8 GPUs per node: two prefill workers share a node, on GPUs 0-3 and 4-7.
  auto b = DisaggregatedLayout(Disaggregated(), 8, &nodes);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(nodes, 4);
  EXPECT_EQ((*b)[0].devices, "0,1,2,3");
  EXPECT_EQ((*b)[1].devices, "4,5,6,7");
  EXPECT_EQ((*b)[1].first_node, 0);
  EXPECT_EQ((*b)[2].first_node, 1);
  EXPECT_EQ((*b)[6].first_node, 3);
  EXPECT_EQ((*b)[6].nodes, 1);
  // A worker of 2 GPUs after 3 TP2s (8-GPU nodes) fills the node before a new one starts; a
  // TP 3 worker does not fit in the 2 GPUs left and starts the next node.
  validate::ServingPhase odd = Disaggregated(2, 3);
  auto o = DisaggregatedLayout(odd, 8, &nodes);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ((*o)[3].devices, "6,7");
  EXPECT_EQ((*o)[4].first_node, 1);
  EXPECT_EQ((*o)[6].role, "decode");
  EXPECT_EQ((*o)[6].devices, "4,5,6");
  EXPECT_EQ(nodes, 2);
  EXPECT_TRUE(Has(DisaggregatedLayout(Disaggregated(4, 12), 8, &nodes).status().message(),
                  "decode TP 12 spans nodes of 8 GPUs"));
}

TEST(ServingScriptTest, DisaggregatedScript) {
  ClusterConfig c = ServingCluster(8);
  validate::ServingPhase p = Disaggregated(4, 16);
  std::string s = Script(c, p);
  EXPECT_TRUE(Has(s, "#SBATCH --nodes=5\n#SBATCH --ntasks-per-node=8\n"));
  // NATS, etcd and the frontend on the first node; the workers point at them.
  EXPECT_TRUE(Has(s, "--nodelist=\"$ys_head\" -- bash -c 'nats-server -js & etcd "));
  EXPECT_TRUE(Has(s,
                  "export ETCD_ENDPOINTS=\"http://${ys_head}:2379\" "
                  "NATS_SERVER=\"nats://${ys_head}:4222\"\n"));
  EXPECT_TRUE(Has(s,
                  "-- 'python3' '-m' 'dynamo.frontend' '--http-port' '8000' > "
                  "\"$ys_dir\"/frontend.log"));
  EXPECT_TRUE(
      Has(s,
          "srun --overlap --nodes=1 --ntasks=4 --ntasks-per-node=4 --nodelist=\"${ys_nodes[2]}\" "
          "--mpi=pmix -- 'env' 'CUDA_VISIBLE_DEVICES=4,5,6,7' 'trtllm-llmapi-launch' "
          "'python3' '-m' 'dynamo.trtllm' '--model-path' 'deepseek-ai/DeepSeek-R1' "
          "'--served-model-name' 'deepseek-ai/DeepSeek-R1' '--disaggregation-mode' "
          "'prefill' '--tensor-parallel-size' '4' > \"$ys_dir\"/prefill_5.log"))
      << s;
  EXPECT_TRUE(Has(s,
                  "srun --overlap --nodes=2 --ntasks=16 --ntasks-per-node=8 "
                  "--nodelist=\"${ys_nodes[3]},${ys_nodes[4]}\" --mpi=pmix -- "
                  "'trtllm-llmapi-launch' 'python3' '-m' 'dynamo.trtllm'"));
  EXPECT_TRUE(Has(s,
                  "'--disaggregation-mode' 'decode' '--tensor-parallel-size' '16' > "
                  "\"$ys_dir\"/decode_0.log"));
  // Other disaggregated stacks need the site's worker commands; with them, {tp} is the worker's.
  p.stack = "dynamo-vllm";
  EXPECT_TRUE(Has(ErrorOf(c, p), "set [serving] prefill_command and decode_command"));
  c.serving.prefill_command = {"python3", "-m", "dynamo.vllm", "--is-prefill-worker", "tp={tp}"};
  c.serving.decode_command = {"python3", "-m", "dynamo.vllm", "tp={tp}"};
  c.serving.frontend_command = {"site-frontend", "{port}"};
  std::string site = Script(c, p);
  EXPECT_TRUE(Has(site, "'--is-prefill-worker' 'tp=4' > \"$ys_dir\"/prefill_0.log"));
  EXPECT_TRUE(Has(site, "'dynamo.vllm' 'tp=16' > \"$ys_dir\"/decode_0.log"));
  EXPECT_FALSE(Has(site, "nats-server"));  // a site frontend brings its own infrastructure
}

TEST(ServingScriptTest, RefusesWhatDoesNotFit) {
  ClusterConfig c = ServingCluster();
  EXPECT_TRUE(Has(ErrorOf(c, Aggregated("trtllm", 4), "runs"), "must be absolute"));
  EXPECT_TRUE(Has(ErrorOf(c, Aggregated("trtllm", 12)), "not a whole number of nodes"));
  c.nodes = 2;
  EXPECT_TRUE(Has(ErrorOf(c, Disaggregated()), "needs 4 nodes"));
  validate::ServingPhase bad = Aggregated("trtllm", 4);
  bad.id = "..";
  EXPECT_FALSE(MakeServingJob(ServingCluster(), ServingSuite(), bad, "/r").ok());
}

std::string WriteScript(const std::string& dir, const std::string& name, const std::string& s) {
  std::string path = dir + "/" + name;
  std::ofstream(path) << s;
  return path;
}

// Every generated script parses (bash -n), and shellcheck (where installed) finds no warning.
TEST(ServingScriptTest, ScriptsParseAndPassShellcheck) {
  std::string dir = ::testing::TempDir() + "/ys-serving-lint";
  fs::remove_all(dir);
  fs::create_directories(dir);
  ClusterConfig c = ServingCluster();
  std::vector<std::string> paths = {
      WriteScript(dir, "trtllm.sh", Script(c, Aggregated("trtllm", 16, "vllm"))),
      WriteScript(dir, "vllm.sh", Script(c, Aggregated("vllm", 8, "aiperf"))),
      WriteScript(dir, "disagg.sh", Script(c, Disaggregated()))};
  auto probe = host::RunSubprocess({.argv = {"bash", "-c", "command -v shellcheck"}});
  const bool shellcheck = probe.ok() && probe->exit_code == 0;
  for (const auto& path : paths) {
    auto syntax = host::RunSubprocess({.argv = {"bash", "-n", path}});
    ASSERT_TRUE(syntax.ok());
    EXPECT_EQ(syntax->exit_code, 0) << path << ": " << syntax->err;
    if (!shellcheck) continue;
    auto lint = host::RunSubprocess({.argv = {"shellcheck", "-s", "bash", "-S", "warning", path}});
    ASSERT_TRUE(lint.ok());
    EXPECT_EQ(lint->exit_code, 0) << path << ":\n" << lint->out;
  }
  if (!shellcheck) GTEST_LOG_(INFO) << "shellcheck not installed: only bash -n ran";
}

// The job's orchestration run by bash with stand-ins for scontrol, srun, curl and the load
// generator on PATH: hostile values arrive unchanged and nothing in them runs; the load
// generator's exit code is the job's; every background step is stopped at the end.
TEST(ServingScriptTest, RunsWithStandInsAndStopsItsSteps) {
  std::string dir = ::testing::TempDir() + "/ys-serving-run";
  fs::remove_all(dir);
  fs::create_directories(dir + "/bin");
  auto tool = [&](const std::string& name, const std::string& body) {
    std::ofstream(dir + "/bin/" + name) << "#!/bin/bash\n" << body;
    fs::permissions(dir + "/bin/" + name, fs::perms::owner_all);
  };
  tool("scontrol", "echo node1\n");
  // The stand-in server answers once its step has started and recorded its arguments (as a real
  // one answers once it runs): without the wait, a loaded machine could stop the step before it
  // ran. The marker is the server step's own (its arguments hold the word "serve").
  tool("curl", "for _ in $(seq 1 200); do [ -e " + dir +
                   "/server.started ] && break; sleep 0.05; done\n"
                   "echo '{\"data\": [{\"id\": \"m\"}]}'\n");
  // The kernel log is collected at the end, after the stack is stopped.
  tool("srun", "case \" $* \" in *ys_dmesg*) echo dmesg >> " + dir +
                   "/dmesg.calls; exit 0;; esac\necho $$ >> " + dir +
                   "/srun.pids\nprintf '%s\\0' \"$@\" > " + dir +
                   "/srun.args.$$\ncase \" $* \" in *\" serve \"*) touch " + dir +
                   "/server.started;; esac\nexec sleep 60\n");
  tool("loadgen", "printf '%s\\0' \"$@\" > " + dir + "/load.args\nexit 7\n");
  const std::string pwned = dir + "/pwned";
  const std::string hostile =
      "'; touch " + pwned + "; echo '$(touch " + pwned + ")`touch " + pwned + "`\n;\"";
  ClusterConfig c = ServingCluster();
  c.serving.load_command = {"loadgen", "{url}", "{served_model}"};
  validate::ServingPhase p = Aggregated("vllm", 8);
  p.ep = 1;
  p.served_model = hostile;
  p.stack_version = "v1\n touch " + pwned;  // in the comment line
  p.concurrency = {4};
  auto job = MakeServingJob(c, ServingSuite(), p, dir + "/runs");
  ASSERT_TRUE(job.ok()) << job.status().message();
  const std::string script = WriteScript(dir, "job.sbatch", job->script);
  host::SubprocessOptions o;
  o.argv = {"bash", script};
  o.env = {{"PATH", dir + "/bin:/usr/bin:/bin"}, {"SLURM_JOB_NODELIST", "node1"}};
  auto r = host::RunSubprocess(o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->exit_code, 7) << r->out << r->err;
  EXPECT_TRUE(Has(r->err, "the load generator exited 7 at concurrency 4")) << r->err;
  EXPECT_TRUE(Has(r->out, "stopping 2 background step(s)")) << r->out;
  std::ifstream in(dir + "/load.args");
  std::string args((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(args, std::string("http://node1:8000\0", 18) + hostile + std::string("\0", 1));
  // Each step's arguments in a file of its own: two steps appending to one file interleave.
  std::string sa;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().rfind("srun.args.", 0) != 0) continue;
    std::ifstream srun_args(e.path());
    sa.append(std::istreambuf_iterator<char>(srun_args), std::istreambuf_iterator<char>());
  }
  std::string shown = sa;
  std::replace(shown.begin(), shown.end(), '\0', '|');
  EXPECT_TRUE(Has(sa, std::string("serve\0", 6) + hostile)) << shown;
  EXPECT_TRUE(fs::is_directory(dir + "/runs/dsr1_fp4_chat/c4"));
  EXPECT_FALSE(fs::exists(pwned)) << "a value in the script was executed";
  std::ifstream pids(dir + "/srun.pids");
  int n = 0;
  for (int pid; pids >> pid; ++n) {
    EXPECT_NE(::kill(pid, 0), 0) << "step " << pid << " still runs";
  }
  EXPECT_EQ(n, 2);  // telemetry and the server
  EXPECT_TRUE(fs::exists(dir + "/dmesg.calls"));
}

}  // namespace
}  // namespace ys::slurm
