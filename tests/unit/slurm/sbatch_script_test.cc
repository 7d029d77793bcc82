#include "slurm/sbatch_script.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "host/subprocess.h"

namespace ys::slurm {
namespace {

validate::Suite TestSuite() {
  validate::Suite s;
  s.chip = "h100";
  s.recipe_release = "v26.06.01";
  return s;
}

validate::SuiteWorkload Workload(int gpus) {
  return {"llama3.1_70b_fp8", "llama3.1", "70b", "fp8", gpus, 8192, 2048, "megatron_bridge"};
}

ClusterConfig Cluster() {
  ClusterConfig c;
  c.partition = "batch";
  c.account = "acct";
  c.qos = "high";
  c.time_limit = "01:00:00";
  c.gpus_per_node = 8;
  c.image = "nvcr.io#nvidia/nemo:26.04.01";
  c.mounts = {"/lustre/data:/data"};
  c.nccl_topo_file = "/etc/nccl/topo.xml";
  c.command = {"python", "train.py", "--model={model}", "--gpus", "{gpus}"};
  c.environment = {{"NCCL_IB_HCA", "mlx5_0"}};
  c.path = "cluster.toml";
  return c;
}

bool HasLine(const std::string& script, const std::string& line) {
  return script.find("\n" + line + "\n") != std::string::npos;
}

TEST(SbatchScriptTest, RecipeFlags) {
  auto job = MakeSbatchJob(Cluster(), TestSuite(), Workload(512), "/lustre/runs");
  ASSERT_TRUE(job.ok()) << job.status().message();
  const std::string& s = job->script;
  EXPECT_EQ(s.rfind("#!/bin/bash\n", 0), 0u);
  for (const char* line :
       {"#SBATCH --job-name=ys_llama3.1_70b_fp8", "#SBATCH --partition=batch",
        "#SBATCH --account=acct", "#SBATCH --qos=high", "#SBATCH --time=01:00:00",
        "#SBATCH --nodes=64", "#SBATCH --ntasks-per-node=8", "#SBATCH --gres=gpu:8",
        "#SBATCH --exclusive", "#SBATCH --mem=0",
        "#SBATCH --output=/lustre/runs/llama3.1_70b_fp8/log-llama3.1_70b_fp8_%j_0.out",
        "export NCCL_TOPO_FILE='/opt/yardstick/nccl-topo.xml'", "export NCCL_IB_HCA='mlx5_0'"}) {
    EXPECT_TRUE(HasLine(s, line)) << line << "\n" << s;
  }
  EXPECT_NE(s.find("exec srun --mpi=pmix '--container-image=nvcr.io#nvidia/nemo:26.04.01' "
                   "'--container-mounts=/lustre/data:/data,/etc/nccl/topo.xml:/opt/yardstick/"
                   "nccl-topo.xml:ro' "
                   "--container-writable --no-container-mount-home -- 'python' 'train.py' "
                   "'--model=llama3.1' "
                   "'--gpus' '512'\n"),
            std::string::npos)
      << s;
  EXPECT_EQ(job->nodes, 64);
  EXPECT_EQ(job->tasks_per_node, 8);
  EXPECT_EQ(job->log_dir, "/lustre/runs/llama3.1_70b_fp8");
  EXPECT_EQ(job->script_path, "/lustre/runs/llama3.1_70b_fp8/llama3.1_70b_fp8.sbatch");
}

TEST(SbatchScriptTest, ShapesAndOptionalParts) {
  ClusterConfig c = Cluster();
  c.gres = false;
  c.account.clear();
  c.image.clear();
  c.nccl_topo_file.clear();
  auto job = MakeSbatchJob(c, TestSuite(), Workload(4), "/runs/");
  ASSERT_TRUE(job.ok()) << job.status().message();
  EXPECT_EQ(job->nodes, 1);
  EXPECT_EQ(job->tasks_per_node, 4);
  EXPECT_EQ(job->script.find("--gres"), std::string::npos);
  EXPECT_EQ(job->script.find("--account"), std::string::npos);
  EXPECT_EQ(job->script.find("--container"), std::string::npos);
  EXPECT_EQ(job->script.find("NCCL_TOPO_FILE"), std::string::npos);
  EXPECT_EQ(job->log_dir, "/runs/llama3.1_70b_fp8");
}

TEST(SbatchScriptTest, RefusesWhatDoesNotFitOrIsUnsafe) {
  auto err = [](const ClusterConfig& c, int gpus, const std::string& runs) {
    auto j = MakeSbatchJob(c, TestSuite(), Workload(gpus), runs);
    return j.ok() ? std::string() : j.status().message();
  };
  EXPECT_NE(err(Cluster(), 12, "/r").find("12 GPUs is not a whole number of nodes of 8"),
            std::string::npos);
  ClusterConfig small = Cluster();
  small.nodes = 2;
  EXPECT_NE(err(small, 512, "/r").find("needs 64 nodes"), std::string::npos);
  EXPECT_NE(err(Cluster(), 8, "relative/runs").find("must be absolute"), std::string::npos);
  EXPECT_NE(err(Cluster(), 8, "/runs with space").find("not safe in an #SBATCH line"),
            std::string::npos);
  EXPECT_NE(err(Cluster(), 8, "/runs/%x").find("not safe"), std::string::npos);
  EXPECT_NE(err(Cluster(), 8, "/runs\n#SBATCH --nodes=1").find("not safe"), std::string::npos);
  validate::SuiteWorkload w = Workload(8);
  w.id = "bad id;rm";
  auto j = MakeSbatchJob(Cluster(), TestSuite(), w, "/r");
  ASSERT_FALSE(j.ok());
  EXPECT_NE(j.status().message().find("workload id"), std::string::npos);
  for (const char* outside :
       {"..", ".", "a/b"}) {  // would place the script and logs outside the runs
    w.id = outside;
    auto o = MakeSbatchJob(Cluster(), TestSuite(), w, "/r");
    ASSERT_FALSE(o.ok()) << outside << " -> " << o->script_path;
    EXPECT_NE(o.status().message().find("workload id"), std::string::npos);
  }
  ClusterConfig nul = Cluster();
  nul.environment["X"] = std::string("a\0b", 3);
  EXPECT_NE(err(nul, 8, "/r").find("environment X"), std::string::npos);
}

// The proof that nothing in the body is interpreted: bash runs the generated script with a
// stand-in srun on PATH that prints the arguments it received, one per NUL; each hostile value
// arrives unchanged and nothing it contains runs.
TEST(SbatchScriptTest, BashPassesHostileValuesThroughUnchanged) {
  namespace fs = std::filesystem;
  std::string dir = ::testing::TempDir() + "/ys-sbatch-test";
  fs::remove_all(dir);
  fs::create_directories(dir + "/bin");
  {
    std::ofstream srun(dir + "/bin/srun");
    srun << "#!/bin/bash\nprintf '%s\\0' \"$@\"\nprintf 'ENV=%s\\0' \"$HOSTILE\"\n";
  }
  fs::permissions(dir + "/bin/srun", fs::perms::owner_all);
  const std::string pwned = dir + "/pwned";
  const std::string hostile =
      "'; touch " + pwned + "; echo '$(touch " + pwned + ")`touch " + pwned + "`\n;\"";
  ClusterConfig c = Cluster();
  c.image = "img'$(touch " + pwned + ")";
  c.command = {"run", hostile, "--size={size}"};
  c.environment = {{"HOSTILE", hostile}};
  c.srun_options = {"--comment=" + hostile};
  validate::SuiteWorkload w = Workload(8);
  w.size = "70b'`touch " + pwned + "`";
  auto job = MakeSbatchJob(c, TestSuite(), w, dir);
  ASSERT_TRUE(job.ok()) << job.status().message();
  std::ofstream(dir + "/job.sbatch") << job->script;

  host::SubprocessOptions o;
  o.argv = {"bash", dir + "/job.sbatch"};
  o.env = {{"PATH", dir + "/bin:/usr/bin:/bin"}};
  auto r = host::RunSubprocess(o);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->exit_code, 0) << r->err;
  std::vector<std::string> args;
  for (size_t b = 0, e; (e = r->out.find('\0', b)) != std::string::npos; b = e + 1)
    args.push_back(r->out.substr(b, e - b));
  std::vector<std::string> want = {
      "--mpi=pmix",
      "--container-image=" + c.image,
      "--container-mounts=/lustre/data:/data,/etc/nccl/topo.xml:/opt/yardstick/nccl-topo.xml:ro",
      "--container-writable",
      "--no-container-mount-home",
      "--comment=" + hostile,
      "--",
      "run",
      hostile,
      "--size=" + w.size,
      "ENV=" + hostile};
  EXPECT_EQ(args, want);
  EXPECT_FALSE(fs::exists(pwned)) << "a value in the script was executed";
}

}  // namespace
}  // namespace ys::slurm
