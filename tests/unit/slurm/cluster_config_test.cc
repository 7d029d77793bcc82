#include "slurm/cluster_config.h"

#include <gtest/gtest.h>

namespace ys::slurm {
namespace {

constexpr const char* kMinimal = R"(
[slurm]
partition = "batch"
time_limit = "30"
gpus_per_node = 8

[launch]
command = ["run", "{workload}"]
)";

std::string Error(const std::string& text) {
  auto c = ParseClusterConfig(text, "cluster.toml");
  EXPECT_FALSE(c.ok()) << text;
  return c.ok() ? "" : c.status().message();
}

TEST(ClusterConfigTest, Example) {
  auto c = LoadClusterConfig(std::string(YS_SOURCE_DIR) + "/examples/cluster.toml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->partition, "batch");
  EXPECT_EQ(c->account, "perf-validation");
  EXPECT_EQ(c->qos, "normal");
  EXPECT_EQ(c->time_limit, "01:00:00");
  EXPECT_EQ(c->gpus_per_node, 8);
  EXPECT_EQ(c->nodes, 64);
  EXPECT_TRUE(c->gres);
  EXPECT_EQ(c->sbatch_options, std::vector<std::string>{"--reservation=validation"});
  EXPECT_EQ(c->mounts.size(), 2u);
  EXPECT_EQ(c->nccl_topo_file, "/etc/nccl/topo.xml");
  EXPECT_EQ(c->nccl_topo_mount, "/opt/yardstick/nccl-topo.xml");
  EXPECT_EQ(c->command[0], "python");
  EXPECT_EQ(c->environment.at("NCCL_NVLS_ENABLE"), "0");
}

TEST(ClusterConfigTest, MinimalDefaults) {
  auto c = ParseClusterConfig(kMinimal, "cluster.toml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_TRUE(c->account.empty());
  EXPECT_TRUE(c->image.empty());
  EXPECT_TRUE(c->gres);
  EXPECT_EQ(c->nodes, 0);
}

TEST(ClusterConfigTest, ErrorsNameFileLineAndKey) {
  EXPECT_EQ(Error(std::string(kMinimal) + "\n[slurm2]\nx = 1\n"),
            "cluster.toml:10: unknown table or key 'slurm2'; expected [slurm], [container], "
            "[launch], [serving], [environment]");
  std::string unknown = R"([slurm]
partition = "batch"
partiton = "typo"
time_limit = "30"
gpus_per_node = 8
[launch]
command = ["x"]
)";
  EXPECT_EQ(Error(unknown), "cluster.toml:3: [slurm] partiton: unknown key");
  // A misspelt required key is reported as unknown, not as the correct one missing.
  EXPECT_EQ(Error("[slurm]\npartition = \"b\"\ntimelimit = \"5\"\n"),
            "cluster.toml:3: [slurm] timelimit: unknown key");
  EXPECT_EQ(Error(std::string(kMinimal) + "shell = true\n"),
            "cluster.toml:9: [launch] shell: unknown key");
  std::string wrong_type = R"([slurm]
partition = "batch"
time_limit = "30"
gpus_per_node = "8"
[launch]
command = ["x"]
)";
  EXPECT_EQ(Error(wrong_type),
            "cluster.toml:4: [slurm] gpus_per_node: expected a whole number from 1 to 64");
  for (const char* v : {"0", "-1", "65", "9223372036854775807"}) {
    std::string text = wrong_type;
    text.replace(text.find("\"8\""), 3, v);
    EXPECT_EQ(Error(text), std::string("cluster.toml:4: [slurm] gpus_per_node: ") + v +
                               " is out of range (expected a whole number from 1 to 64)");
  }
  std::string missing =
      "[slurm]\npartition = \"b\"\ngpus_per_node = 8\n[launch]\ncommand = [\"x\"]\n";
  EXPECT_NE(Error(missing).find("[slurm] time_limit: missing"), std::string::npos);
  EXPECT_EQ(Error("[slurm]\n"),
            "cluster.toml:1: [slurm] partition: missing; expected a non-empty string");
  EXPECT_EQ(Error(""), "cluster.toml: missing table [slurm]");
  EXPECT_NE(Error("[slurm\npartition="), "");  // TOML syntax: path:line:column
  EXPECT_NE(Error("[slurm\n").find("cluster.toml:1:"), std::string::npos);
}

TEST(ClusterConfigTest, RejectsUnsafeOrWrongValues) {
  auto with = [](const std::string& slurm_extra, const std::string& rest = "") {
    return "[slurm]\npartition = \"batch\"\ntime_limit = \"30\"\ngpus_per_node = 8\n" +
           slurm_extra + "\n[launch]\ncommand = [\"x\"]\n" + rest;
  };
  EXPECT_NE(Error(with("account = \"a b\""))
                .find("[slurm] account: account 'a b': not safe in an #SBATCH line"),
            std::string::npos);
  EXPECT_NE(Error(with("qos = \"$(id)\"")).find("qos"), std::string::npos);
  EXPECT_NE(Error("[slurm]\npartition = \"x\\n#SBATCH "
                  "--nodes=9\"\ntime_limit=\"3\"\ngpus_per_node=8\n[launch]\ncommand=[\"x\"]\n")
                .find("\\x0a"),
            std::string::npos);
  EXPECT_NE(Error(with("sbatch_options = [\"--nodes=2\"]")).find("yardstick sets --nodes itself"),
            std::string::npos);
  EXPECT_NE(Error(with("sbatch_options = [\"--gres=gpu:4\"]")).find("--gres"), std::string::npos);
  EXPECT_NE(Error(with("sbatch_options = [\"reservation\"]")).find("expected an option"),
            std::string::npos);
  EXPECT_NE(Error(with("sbatch_options = [\"--comment=a b\"]")).find("not safe"),
            std::string::npos);
  EXPECT_NE(Error(with("sbatch_options = \"--x\"")).find("expected an array of strings"),
            std::string::npos);
  EXPECT_NE(Error(with("sbatch_options = [1]")).find("an element is not a string"),
            std::string::npos);
  EXPECT_NE(Error(with("time_limit2 = 1")).find("unknown key"), std::string::npos);
  EXPECT_NE(Error(with("gres = \"yes\"")).find("expected true or false"), std::string::npos);
  EXPECT_NE(Error(with("nodes = 0")).find("[slurm] nodes"), std::string::npos);
  EXPECT_NE(Error("[slurm]\npartition=\"b\"\ntime_limit=\"1:00:00 ; "
                  "x\"\ngpus_per_node=8\n[launch]\ncommand=[\"x\"]\n")
                .find("time limit"),
            std::string::npos);
  EXPECT_NE(Error(with("", "[container]\nimage = \"i\"\nmounts = [\"/a:/b,/c:/d\"]\n"))
                .find("cannot contain ','"),
            std::string::npos);
  EXPECT_NE(Error(with("", "[container]\nimage = \"i\"\nmounts = [\"relative:/b\"]\n"))
                .find("expected /host/path"),
            std::string::npos);
  EXPECT_NE(Error(with("", "[container]\nmounts = []\n")).find("[container] image: missing"),
            std::string::npos);
  EXPECT_NE(Error(with("", "[container]\nimage = \"i\"\nnccl_topo_file = \"topo.xml\"\n"))
                .find("absolute path"),
            std::string::npos);
  EXPECT_NE(Error(with("", "[environment]\n\"A-B\" = \"1\"\n")).find("[environment] A-B"),
            std::string::npos);
  EXPECT_NE(Error(with("", "[environment]\nA = 1\n")).find("expected a string value"),
            std::string::npos);
  EXPECT_NE(Error(with("",
                       "[container]\nimage = \"i\"\nnccl_topo_file = "
                       "\"/t.xml\"\n[environment]\nNCCL_TOPO_FILE = \"/x\"\n"))
                .find("set by [container] nccl_topo_file"),
            std::string::npos);
  EXPECT_NE(Error("[slurm]\npartition=\"b\"\ntime_limit=\"3\"\ngpus_per_node=8\n[launch]\ncommand=["
                  "\"{nope}\"]\n")
                .find("unknown placeholder"),
            std::string::npos);
  EXPECT_NE(
      Error("[slurm]\npartition=\"b\"\ntime_limit=\"3\"\ngpus_per_node=8\n[launch]\ncommand=[]\n")
          .find("non-empty array of strings"),
      std::string::npos);
  EXPECT_NE(Error("[slurm]\npartition=\"b\"\ntime_limit=\"3\"\ngpus_per_node=8\n")
                .find("missing table [launch]"),
            std::string::npos);
  EXPECT_NE(Error("slurm = 3\n").find("expected a table [slurm]"), std::string::npos);
}

TEST(ClusterConfigTest, ServingTable) {
  const std::string slurm = "[slurm]\npartition=\"b\"\ntime_limit=\"3\"\ngpus_per_node=4\n";
  // [serving] without [launch]: a cluster for serving phases only.
  auto c = ParseClusterConfig(slurm +
                                  "[serving]\nport = 9001\nhealth_path = \"/health\"\n"
                                  "server_command = [\"serve\", \"{served_model}\", \"{port}\"]\n"
                                  "load_command = [\"load\", \"{url}\", \"c={concurrency}\"]\n",
                              "cluster.toml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_TRUE(c->serving.present);
  EXPECT_TRUE(c->command.empty());
  EXPECT_EQ(c->serving.port, 9001);
  EXPECT_EQ(c->serving.health_path, "/health");
  EXPECT_EQ(c->serving.health_timeout_s, 1800);
  EXPECT_EQ(c->serving.server_command,
            (std::vector<std::string>{"serve", "{served_model}", "{port}"}));
  EXPECT_EQ(c->serving.load_command.size(), 3u);
  // Without [serving], [launch] stays required; the defaults when absent.
  auto plain = ParseClusterConfig(kMinimal, "cluster.toml");
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->serving.present);
  EXPECT_EQ(plain->serving.health_path, "/v1/models");
  // Strict: unknown keys, load-only placeholders in a server command, bad values.
  EXPECT_NE(Error(slurm + "[serving]\nprot = 1\n").find("[serving] prot: unknown key"),
            std::string::npos);
  EXPECT_NE(Error(slurm + "[serving]\nserver_command = [\"x\", \"{concurrency}\"]\n")
                .find("unknown placeholder"),
            std::string::npos);
  EXPECT_NE(Error(slurm + "[serving]\nload_command = [\"{nope}\"]\n").find("unknown placeholder"),
            std::string::npos);
  EXPECT_NE(Error(slurm + "[serving]\nhealth_path = \"health\"\n").find("a URL path"),
            std::string::npos);
  EXPECT_NE(Error(slurm + "[serving]\nport = 70000\n").find("[serving] port"), std::string::npos);
  EXPECT_NE(Error(slurm + "[serving]\nload_command = []\n").find("non-empty"), std::string::npos);
}

TEST(ClusterConfigTest, UnreadableFile) {
  auto c = LoadClusterConfig("/nonexistent/cluster.toml");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("/nonexistent/cluster.toml"), std::string::npos);
}

}  // namespace
}  // namespace ys::slurm
