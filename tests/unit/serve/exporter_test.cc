#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "core/run_document_json.h"
#include "gpu/gpu_telemetry.h"
#include "host/host.h"
#include "serve/collectors.h"
#include "serve/exporter_server.h"
#include "testing/bench_test_util.h"

namespace ys::serve {
// A namespace of the file's own: its file-local names stay its own in a unity batch.
namespace exporter_test {
namespace {

const std::string kFixtures = YS_FIXTURES_DIR;

TEST(ListenAddressTest, ParsesAndJudgesLoopback) {
  auto a = ParseListenAddress("127.0.0.1:9400");
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->host, "127.0.0.1");
  EXPECT_EQ(a->port, 9400);
  EXPECT_TRUE(a->loopback);
  auto v6 = ParseListenAddress("[::1]:80");
  ASSERT_TRUE(v6.ok());
  EXPECT_TRUE(v6->loopback);
  EXPECT_TRUE(ParseListenAddress("localhost:1")->loopback);
  auto any = ParseListenAddress("0.0.0.0:9400");
  ASSERT_TRUE(any.ok());
  EXPECT_FALSE(any->loopback);
}

TEST(ListenAddressTest, RejectsMalformed) {
  for (const char* bad :
       {"", "9400", "127.0.0.1", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:65536", "127.0.0.1:94x",
        "host.example:9400", "::1:9400", "[::1]9400", "[::1:9400", "300.1.1.1:80"}) {
    auto a = ParseListenAddress(bad);
    EXPECT_FALSE(a.ok()) << bad;
    if (!a.ok()) {
      EXPECT_NE(a.status().message().find("--listen"), std::string::npos);
    }
  }
}

TEST(UtcTimestampTest, ParsesIso8601) {
  EXPECT_DOUBLE_EQ(*ParseUtcTimestamp("1970-01-01T00:00:10Z"), 10);
  EXPECT_DOUBLE_EQ(*ParseUtcTimestamp("2026-11-20T09:14:02.5Z"), 1795166042.5);
  EXPECT_FALSE(ParseUtcTimestamp("yesterday").ok());
  EXPECT_FALSE(ParseUtcTimestamp("2026-11-20T09:14:02+02:00").ok());
  EXPECT_FALSE(ParseUtcTimestamp("2026-13-20T09:14:02Z").ok());
}

TEST(GpuTelemetryTest, ReadsRecordedTelemetryAndRejectsMalformed) {
  auto t = gpu::LoadGpuTelemetry(kFixtures + "/nvml/exporter-h100x8.json");
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->devices.size(), 8u);
  EXPECT_EQ(*t->devices[3].gpu_utilization_pct, 93u);
  // A recording without telemetry: every field "not recorded", never a number.
  auto old = gpu::LoadGpuTelemetry(kFixtures + "/nvml/healthy-h100x8.json");
  ASSERT_TRUE(old.ok());
  EXPECT_FALSE(old->devices[0].gpu_utilization_pct.has());
  EXPECT_EQ(old->devices[0].gpu_utilization_pct.error, "not recorded");

  auto bad = gpu::GpuTelemetryFromJson(nlohmann::json::parse(
      R"({"devices": [{"index": 0, "telemetry": {"gpu_utilization_pct": {"value": "high"}}}]})"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("devices[0].telemetry.gpu_utilization_pct.value"),
            std::string::npos)
      << bad.status().message();
  auto unknown = gpu::GpuTelemetryFromJson(
      nlohmann::json::parse(R"({"devices": [{"telemetry": {"fan": {"value": 1}}}]})"));
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("unknown key"), std::string::npos);
  EXPECT_FALSE(gpu::GpuTelemetryFromJson(nlohmann::json::parse("[]")).ok());
  EXPECT_FALSE(gpu::LoadGpuTelemetry(kFixtures + "/nvml/absent.json").ok());
}

TEST(GpuCollectorTest, DcgmNamesFromRecordedState) {
  auto host = host::Host::AtRoot(kFixtures + "/hosts/healthy-8gpu");
  ASSERT_TRUE(host.ok());
  auto c = MakeGpuCollector(*host, kFixtures + "/nvml/exporter-h100x8.json");
  auto first = c->Collect();
  ASSERT_TRUE(first.ok()) << first.status().message();
  std::string text = first->Text();
  EXPECT_NE(text.find("DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",UUID=\"GPU-2aee30b4-6947-68c8-12ce-"
                      "df6aac84d638\",pci_bus_id=\"00000000:11:00.0\",device=\"nvidia0\","
                      "modelName=\"NVIDIA H100 80GB HBM3\""),
            std::string::npos)
      << text.substr(0, 2000);
  EXPECT_NE(text.find("DCGM_FI_DEV_FB_USED{gpu=\"1\""), std::string::npos);
  EXPECT_EQ(text.find("yardstick_nvlink_throughput_bytes_per_second"), std::string::npos)
      << "no rate from a single reading";
  auto second = c->Collect();
  ASSERT_TRUE(second.ok());
  const MetricFamily* rate = second->Find("yardstick_nvlink_throughput_bytes_per_second");
  ASSERT_NE(rate, nullptr);
  EXPECT_EQ(rate->samples[0].value, 0) << "a recording does not move";
  const MetricFamily* power = second->Find("DCGM_FI_DEV_POWER_USAGE");
  ASSERT_NE(power, nullptr);
  EXPECT_DOUBLE_EQ(power->samples[0].value, 68);  // 68000 mW recorded
}

TEST(RunCollectorTest, ResultsOfARunDocument) {
  testing::TempDir dir;
  RunDocument doc;
  doc.command = "run";
  doc.started_at = "2026-11-20T09:14:02Z";
  doc.host.hostname = "node1";
  CheckResult ok;
  ok.unit_id = "cpu.governor";
  ok.outcome = Outcome::kPass;
  CheckResult bad = ok;
  bad.unit_id = "gpu.ecc";
  bad.outcome = Outcome::kFail;
  doc.checks = {ok, bad};
  BenchmarkResult b;
  b.unit_id = "coll.all_reduce";
  Measurement busbw;
  busbw.name = "coll.all_reduce.busbw";
  busbw.value = 12.5;
  busbw.unit = "GB/s";
  busbw.params = {{"size", "1048576"}, {"backend", "mpi"}, {"peak", "100"}};
  Measurement triad;
  triad.name = "mem.stream.triad";
  triad.value = 80;
  triad.unit = "GB/s";
  triad.params = {{"pct_of_peak", "61.5"}};
  b.measurements = {busbw, triad};
  doc.benchmarks = {b};
  Diagnosis g;
  g.rule = "host.core_sharing";
  g.entity = "node";
  g.recovery = {0.05, 0.1, "published case"};
  doc.diagnosis = {g};
  doc.diagnosis_ran = true;  // else run.json carries no diagnosis
  std::ofstream(dir.path() + "/run.json") << DumpJson(ToJson(doc));
  std::ofstream(dir.path() + "/validation.json")
      << R"({"suite": {"chip": "h100", "recipe_release": "25.04", "threshold": 0.95},
             "workloads": [{"id": "llama3-8b", "score": 0.97, "outcome": "pass"},
                           {"id": "gpt3-175b", "score": null, "outcome": "fail"}]})";

  auto c = MakeRunCollector(dir.path() + "/run.json", "");
  auto e = c->Collect();
  ASSERT_TRUE(e.ok()) << e.status().message();
  std::string text = e->Text();
  EXPECT_NE(text.find("yardstick_check_status{id=\"gpu.ecc\",Hostname=\"node1\"} 2\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("yardstick_check_status{id=\"cpu.governor\",Hostname=\"node1\"} 0\n"),
            std::string::npos);
  EXPECT_NE(
      text.find("yardstick_busbw_bytes_per_second{collective=\"all_reduce\",Hostname=\"node1\","
                "backend=\"mpi\",size=\"1048576\"} 12500000000\n"),
      std::string::npos);
  EXPECT_NE(
      text.find("yardstick_measurement{name=\"mem.stream.triad\",unit=\"GB/s\",Hostname=\"node1\""
                "} 80\n"),
      std::string::npos);
  EXPECT_NE(text.find("yardstick_measurement_peak_ratio{"), std::string::npos);
  EXPECT_NE(
      text.find("yardstick_run_timestamp_seconds{command=\"run\",Hostname=\"node1\"} 1795166042\n"),
      std::string::npos);
  EXPECT_NE(text.find("yardstick_diagnosis_recovery_ratio{rule=\"host.core_sharing\",entity="
                      "\"node\",bound=\"high\",Hostname=\"node1\"} 0.1\n"),
            std::string::npos);
  EXPECT_NE(text.find("yardstick_score_ratio{suite=\"h100/25.04\",workload=\"llama3-8b\"} 0.97\n"),
            std::string::npos);
  EXPECT_EQ(text.find("workload=\"gpt3-175b\"} 0."), std::string::npos) << "a null score is absent";

  std::ofstream(dir.path() + "/validation.json") << R"({"suite": {}, "workloads": [{"id": 3}]})";
  auto broken = c->Collect();
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.status().message().find("workloads[0].id"), std::string::npos);
  std::ofstream(dir.path() + "/run.json") << "{ not json";
  EXPECT_FALSE(c->Collect().ok());
}

// Two runs of one machine: the same figures with different measured values and different
// measured or derived params. The exporter gives both the same series (names and label sets).
std::set<std::string> SeriesOfRun(const testing::TempDir& dir, const std::string& name,
                                  double scale) {
  RunDocument doc;
  doc.command = "run";
  doc.started_at = "2026-11-20T09:14:02Z";
  doc.host.hostname = "node1";
  BenchmarkResult stream;
  stream.unit_id = "mem.stream";
  Measurement triad;
  triad.name = "mem.stream.triad";
  triad.unit = "GB/s";
  triad.value = 80 * scale;
  triad.params = {{"backend", "cpu"}, {"numa_node", "0"},
                  {"threads", "2"},   {"best", std::to_string(91.25 * scale)},
                  {"peak", "120.5"},  {"pct_of_peak", std::to_string(66.4 * scale)},
                  {"device", "cpu"},  {"bytes_per_pass", "24"}};
  stream.measurements = {triad};
  BenchmarkResult proxy;
  proxy.unit_id = "proxy.llama3.1_8b";
  Measurement step;
  step.name = "proxy.llama3.1_8b.predicted_step_time";
  step.unit = "s";
  step.value = 0.5 * scale;
  step.params = {{"recipe", "llama3.1-8b"},
                 {"scale", "1/16"},
                 {"compute_s", std::to_string(0.226963 * scale)},
                 {"comm_s", std::to_string(0.1 * scale)}};
  Measurement share = step;
  share.name = "proxy.llama3.1_8b.foreign_cpu_share";
  share.unit = "fraction";
  share.params = {{"recipe", "llama3.1-8b"},
                  {"method", "busy CPU time (2 cpus x " + std::to_string(2.058 * scale) + " s)"}};
  proxy.measurements = {step, share};
  doc.benchmarks = {stream, proxy};
  // A figure no benchmark declares: its name, unit and node only.
  Measurement foreign;
  foreign.name = "acme.widget.rate";
  foreign.unit = "Hz";
  foreign.value = scale;
  foreign.params = {{"measured_at", std::to_string(scale)}};
  doc.measurements = {foreign};
  std::ofstream(dir.path() + "/" + name) << DumpJson(ToJson(doc));
  auto e = MakeRunCollector(dir.path() + "/" + name, "")->Collect();
  EXPECT_TRUE(e.ok()) << e.status().message();
  std::set<std::string> series;
  if (!e.ok()) return series;
  std::istringstream text(e->Text());
  for (std::string line; std::getline(text, line);) {
    if (line.empty() || line[0] == '#' || !line.starts_with("yardstick_measurement")) continue;
    series.insert(line.substr(0, line.rfind(' ')));
  }
  return series;
}

// The value of the sample of family `name` whose labels are exactly `labels`; nullopt when none.
std::optional<double> ServingSample(const Exposition& e, const std::string& name,
                                    const Labels& labels) {
  const MetricFamily* f = e.Find(name);
  if (f == nullptr) return std::nullopt;
  for (const Sample& s : f->samples) {
    if (s.labels == labels) return s.value;
  }
  return std::nullopt;
}

// A serving suite's validation.json (tests/fixtures/runs/serving-phases, written by `yardstick
// validate`): one score per phase metric, the measured and reference figures in base units, and
// one state series per state.
TEST(RunCollectorTest, ServingPhasesOfAValidationDocument) {
  testing::TempDir dir;
  RunDocument doc;
  doc.command = "run";
  doc.started_at = "2026-11-20T09:14:02Z";
  doc.host.hostname = "node1";
  std::ofstream(dir.path() + "/run.json") << DumpJson(ToJson(doc));
  auto c = MakeRunCollector(dir.path() + "/run.json",
                            kFixtures + "/runs/serving-phases/validation.json");
  auto e = c->Collect();
  ASSERT_TRUE(e.ok()) << e.status().message();
  const std::string suite = "h100/v26.05";
  auto phase = [&](const char* id) { return Labels{{"suite", suite}, {"phase", id}}; };
  auto with = [](Labels l, const char* k, const char* v) {
    l.emplace_back(k, v);
    return l;
  };
  const Labels pass = phase("qwen_chat_pass"), fail = phase("qwen_chat_fail");
  auto score = ServingSample(*e, "yardstick_serving_phase_score_ratio",
                             with(pass, "metric", "output_tokens_per_s_per_gpu"));
  ASSERT_TRUE(score);
  EXPECT_NEAR(*score, 385.66785 / 380, 1e-6);
  EXPECT_NEAR(
      *ServingSample(*e, "yardstick_serving_phase_score_ratio", with(fail, "metric", "ttft_ms")),
      50 / 71.17634, 1e-6);
  EXPECT_TRUE(
      ServingSample(*e, "yardstick_serving_phase_score_ratio", with(fail, "metric", "tpot_ms")));
  // Three metrics in each of the two scored phases; none for the inconclusive and missing ones.
  EXPECT_EQ(e->Find("yardstick_serving_phase_score_ratio")->samples.size(), 6u);
  EXPECT_NEAR(
      *ServingSample(*e, "yardstick_serving_phase_measured_output_tokens_per_second_per_gpu", pass),
      385.66785, 1e-4);
  EXPECT_EQ(
      ServingSample(*e, "yardstick_serving_phase_reference_output_tokens_per_second_per_gpu", fail),
      450);
  // Latencies in seconds, at the reference's statistic.
  EXPECT_NEAR(*ServingSample(*e, "yardstick_serving_phase_measured_ttft_seconds",
                             with(pass, "stat", "mean")),
              0.0693828, 1e-6);
  EXPECT_NEAR(*ServingSample(*e, "yardstick_serving_phase_reference_ttft_seconds",
                             with(fail, "stat", "p50")),
              0.05, 1e-12);
  EXPECT_NEAR(*ServingSample(*e, "yardstick_serving_phase_reference_tpot_seconds",
                             with(pass, "stat", "mean")),
              0.0186, 1e-12);
  // One series per state, 1 for the phase's own.
  const MetricFamily* state = e->Find("yardstick_serving_phase_state");
  ASSERT_NE(state, nullptr);
  EXPECT_EQ(state->samples.size(), 12u);
  for (const auto& [id, own] : {std::pair{"qwen_chat_pass", "pass"},
                                {"qwen_chat_fail", "fail"},
                                {"qwen_reasoning_other_lengths", "inconclusive"},
                                {"qwen_chat_missing", "fail"}}) {
    for (const char* s : {"pass", "fail", "inconclusive"}) {
      EXPECT_EQ(ServingSample(*e, "yardstick_serving_phase_state", with(phase(id), "state", s)),
                std::string(s) == own ? 1 : 0)
          << id << " " << s;
    }
  }
  const std::string text = e->Text();
  EXPECT_NE(text.find("yardstick_serving_phase_state{suite=\"h100/v26.05\",phase=\"qwen_chat_"
                      "missing\",state=\"fail\"} 1\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("# HELP yardstick_serving_phase_measured_ttft_seconds The measured time to "
                      "first token, seconds"),
            std::string::npos);
}

TEST(RunCollectorTest, LabelsCarryIdentityOnly) {
  testing::TempDir dir;
  std::set<std::string> a = SeriesOfRun(dir, "a.json", 1.0);
  std::set<std::string> b = SeriesOfRun(dir, "b.json", 1.37);
  EXPECT_EQ(a, b);
  ASSERT_EQ(a.size(), 5u);  // 4 figures, and the peak ratio as its own metric
  for (const std::string& s : a) {
    for (const char* measured :
         {"best=", "compute_s=", "comm_s=", "method=", "peak=", "pct_of_peak=", "measured_at="}) {
      EXPECT_EQ(s.find(measured), std::string::npos) << s;
    }
  }
  EXPECT_TRUE(
      a.count("yardstick_measurement{name=\"mem.stream.triad\",unit=\"GB/s\",Hostname=\"node1\","
              "backend=\"cpu\",device=\"cpu\",numa_node=\"0\",threads=\"2\"}"))
      << *a.begin();
  EXPECT_TRUE(
      a.count("yardstick_measurement{name=\"acme.widget.rate\",unit=\"Hz\",Hostname=\"node1\"}"));
}

// A second server on an address another one listens on is refused (no SO_REUSEPORT sharing).
TEST(ExporterServerTest, RefusesAPortInUse) {
  std::vector<std::unique_ptr<Collector>> none;
  CollectorSet set(std::move(none), {0.05, 1});
  ExporterServer first(set, ExporterPage("", 1));
  auto port = first.BindAnyPort("127.0.0.1");
  ASSERT_TRUE(port.ok());
  std::thread serving([&] { (void)first.ServeBound(); });
  // Stop() before the server loop runs would be lost (the loop then never ends): wait until it
  // answers (at most 5 s).
  httplib::Client probe("127.0.0.1", *port);
  probe.set_connection_timeout(0, 100000);
  for (int i = 0; i < 50 && !probe.Get("/"); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ExporterServer second(set, ExporterPage("", 1));
  Status st = second.Bind({.host = "127.0.0.1", .port = *port, .loopback = true});
  first.Stop();
  serving.join();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("127.0.0.1:" + std::to_string(*port) + ": the port is in use"),
            std::string::npos)
      << st.message();
}

TEST(ExporterServerTest, ConcurrentScrapesOverHttp) {
  auto host = host::Host::AtRoot(kFixtures + "/hosts/healthy-8gpu");
  ASSERT_TRUE(host.ok());
  std::vector<std::unique_ptr<Collector>> cs;
  cs.push_back(MakeGpuCollector(*host, kFixtures + "/nvml/exporter-h100x8.json"));
  cs.push_back(MakeInfinibandCollector(*host));
  CollectorSet set(std::move(cs), {0.05, 1});
  set.Start();
  ExporterServer server(set, ExporterPage("", 1));
  auto port = server.BindAnyPort("127.0.0.1");
  ASSERT_TRUE(port.ok());
  std::thread serving([&] { (void)server.ServeBound(); });
  std::atomic<int> good = 0;
  std::vector<std::thread> clients;
  for (int t = 0; t < 6; ++t) {
    clients.emplace_back([&] {
      httplib::Client cli("127.0.0.1", *port);
      for (int i = 0; i < 30; ++i) {
        auto r = cli.Get("/metrics");
        if (r && r->status == 200 &&
            r->body.find("# TYPE yardstick_collector_up gauge") != std::string::npos) {
          ++good;
        }
      }
    });
  }
  for (auto& t : clients) t.join();
  httplib::Client cli("127.0.0.1", *port);
  auto page = cli.Get("/");
  auto tel = cli.Get("/api/telemetry");
  server.Stop();
  serving.join();
  EXPECT_EQ(good.load(), 6 * 30);
  ASSERT_TRUE(page);
  EXPECT_NE(page->body.find("/api/telemetry"), std::string::npos);
  ASSERT_TRUE(tel);
  auto j = nlohmann::json::parse(tel->body);
  EXPECT_TRUE(j["gpus"].is_array());
}

// An InfiniBand port's logical and physical state, one series per state: a DOWN, Polling port
// and an ACTIVE, LinkUp one each have exactly one 1, on their own state; a number the kernel has
// no state for gives the numeric gauge alone.
TEST(InfinibandCollectorTest, PortStatesOneSeriesPerState) {
  const std::filesystem::path root =
      std::filesystem::path(::testing::TempDir()) / "ib_port_states_root";
  std::filesystem::remove_all(root);
  auto port = [&](const std::string& dev, const std::string& state, const std::string& phys) {
    auto dir = root / "sys/class/infiniband" / dev / "ports/1";
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "state") << state << "\n";
    std::ofstream(dir / "phys_state") << phys << "\n";
  };
  port("mlx5_0", "4: ACTIVE", "5: LinkUp");
  port("mlx5_1", "1: DOWN", "2: Polling");
  port("mlx5_2", "9: FUTURE", "3: Disabled");
  auto host = host::Host::AtRoot(root.string());
  ASSERT_TRUE(host.ok());
  auto e = MakeInfinibandCollector(*host)->Collect();
  ASSERT_TRUE(e.ok()) << e.status().message();
  // device -> the states whose series is 1, and how many series the device has.
  auto ones = [&](const char* family) {
    std::map<std::string, std::pair<std::vector<std::string>, int>> out;
    const MetricFamily* f = e->Find(family);
    if (f == nullptr) return out;
    for (const Sample& s : f->samples) {
      std::string dev, state;
      for (const auto& [k, v] : s.labels) {
        if (k == "device") dev = v;
        if (k == "state") state = v;
      }
      auto& [names, n] = out[dev];
      ++n;
      if (s.value == 1) names.push_back(state);
    }
    return out;
  };
  auto logical = ones("yardstick_ib_port_logical_state");
  EXPECT_EQ(logical["mlx5_0"].first, std::vector<std::string>{"active"});
  EXPECT_EQ(logical["mlx5_0"].second, 5);
  EXPECT_EQ(logical["mlx5_1"].first, std::vector<std::string>{"down"});
  EXPECT_EQ(logical.count("mlx5_2"), 0u);  // no state for 9: the numeric gauge alone
  auto physical = ones("yardstick_ib_port_physical_state");
  EXPECT_EQ(physical["mlx5_0"].first, std::vector<std::string>{"link_up"});
  EXPECT_EQ(physical["mlx5_1"].first, std::vector<std::string>{"polling"});
  EXPECT_EQ(physical["mlx5_2"].first, std::vector<std::string>{"disabled"});
  EXPECT_EQ(physical["mlx5_2"].second, 7);
  ASSERT_NE(e->Find("yardstick_ib_port_state"), nullptr);
  EXPECT_EQ(e->Find("yardstick_ib_port_state")->samples.size(), 3u);
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace exporter_test
}  // namespace ys::serve
