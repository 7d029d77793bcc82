// IngestLog / IngestText over the fixture logs (tests/fixtures/logs, written by make_logs.py):
// every status, the window mapping, derived metrics against hand-computed numbers, retries,
// llmb-config, and unreadable input.
#include "validate/ingest.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "validate/line_reader.h"
#include "validate/retry_logs.h"

namespace ys::validate {
namespace {

std::string Logs(std::string_view name) {
  return std::string(YS_FIXTURES_DIR) + "/logs/" + std::string(name);
}

const std::string kRetry0 = "megatron_bridge/log-pretrain_llama3.1_70b_bf16_gpus512_4242_0.out";
const std::string kRetry1 = "megatron_bridge/log-pretrain_llama3.1_70b_bf16_gpus512_4242_1.out";

WorkloadRun MustIngest(const std::string& path, const IngestOptions& o = {}) {
  Result<WorkloadRun> r = IngestLog(path, o);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : WorkloadRun{};
}

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "ys-ingest-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) ADD_FAILURE() << "mkdtemp";
    path_ = tmpl;
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string Write(const std::string& name, std::string_view bytes) const {
    std::string p = path_ + "/" + name;
    std::ofstream(p, std::ios::binary)
        .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return p;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(IngestLogTest, MegatronBridgeSuccessWithConfigAndHandComputedMetrics) {
  IngestOptions o;
  o.seq_len = 8192;
  o.peak_tflops = 989;  // H100 BF16 dense
  WorkloadRun r = MustIngest(Logs(kRetry1), o);
  EXPECT_EQ(r.status, RunStatus::kSuccess) << r.reason;
  EXPECT_EQ(r.format, LogFormat::kMegatron);
  EXPECT_EQ(r.iterations_seen, 50);
  EXPECT_EQ(r.total_steps, 50);
  EXPECT_TRUE(r.final_marker_seen);
  EXPECT_NE(r.reason.find("steps 35-44 all timed (10 samples)"), std::string::npos) << r.reason;
  // Window: 14651, 14653, ... 14669 ms -> mean 14.660 s, sample stdev sqrt(330/9) ms.
  ASSERT_TRUE(r.step_time_s.has_value());
  EXPECT_EQ(r.step_time_s->n, 10);
  EXPECT_NEAR(r.step_time_s->mean, 14.66, 1e-12);
  EXPECT_NEAR(r.step_time_s->stdev, 0.0060553007, 1e-9);
  // TFLOPS 537.3, 537.3, 537.2, 537.1, 537.0, 537.0, 536.9, 536.8, 536.7, 536.7.
  EXPECT_NEAR(r.tflops_per_gpu->mean, 537.0, 1e-9);
  EXPECT_NEAR(r.tflops_per_gpu->stdev, 0.2260776661, 1e-9);
  // llmb-config_4242.yaml beside the log: 512 GPUs; GBS 1024 printed by the log.
  ASSERT_TRUE(r.config.has_value());
  EXPECT_EQ(r.config->model_name, "llama3.1");
  EXPECT_EQ(r.shape.gpus, 512);
  EXPECT_EQ(r.shape.gpus_source, "llmb-config");
  EXPECT_EQ(r.shape.global_batch_size, 1024);
  EXPECT_EQ(r.shape.global_batch_size_source, "log");
  // 8192 x 1024 / 14.66 = 572,210.641 tokens/s; / 512 = 1,117.599 tokens/s/GPU;
  // MFU 537.0 / 989 = 54.297%.
  EXPECT_NEAR(*r.derived.tokens_per_s, 572210.6412, 1e-3);
  EXPECT_NEAR(*r.derived.tokens_per_s_per_gpu, 1117.5989086, 1e-6);
  EXPECT_NEAR(*r.derived.mfu, 0.5429726997, 1e-9);
  EXPECT_TRUE(r.notes.empty()) << r.notes.front();
}

TEST(IngestLogTest, OlderRetryIsIncompleteAndSuperseded) {
  RetrySelection sel = SelectNewestRetries({Logs(kRetry0), Logs(kRetry1)});
  EXPECT_EQ(sel.current, std::vector<std::string>{Logs(kRetry1)});
  ASSERT_EQ(sel.superseded.size(), 1u);
  EXPECT_EQ(sel.superseded[0].path, Logs(kRetry0));
  // Read on its own, the crashed retry stops at iteration 20.
  WorkloadRun r0 = MustIngest(Logs(kRetry0));
  EXPECT_EQ(r0.status, RunStatus::kIncomplete);
  EXPECT_EQ(r0.reason,
            "no timing sample for step 35-44 of window 35-44; final marker 'iteration 50/50' not "
            "seen (last iteration printed: 20/50)");
}

TEST(IngestLogTest, Nemo2WindowIsStepsNotPrintedIterations) {
  IngestOptions o;
  o.seq_len = 8192;
  o.gpus = 8;
  o.peak_tflops = 989;
  WorkloadRun r = MustIngest(Logs("nemo2.log"), o);
  EXPECT_EQ(r.status, RunStatus::kSuccess) << r.reason;
  EXPECT_EQ(r.format, LogFormat::kNemo2);
  EXPECT_EQ(r.iteration_base, 0);
  EXPECT_NE(r.reason.find("steps 35-44 (printed as iteration 34-43)"), std::string::npos)
      << r.reason;
  // Printed iterations 34..43 hold 12.23 .. 12.31 s: mean 12.27. Printed 33 and 44 (steps 34 and
  // 45) are outliers (13.50, 14.80): a window over printed 35..44 would give 12.527.
  EXPECT_NEAR(r.step_time_s->mean, 12.27, 1e-12);
  EXPECT_NEAR(r.step_time_s->stdev, 0.0258198890, 1e-9);
  EXPECT_NEAR(r.tflops_per_gpu->mean, 617.8, 1e-9);
  EXPECT_EQ(r.shape.global_batch_size, 128);
  // 8192 x 128 / 12.27 / 8 = 10,682.31 tokens/s/GPU (the v25.04.02 table: 10,682).
  EXPECT_NEAR(*r.derived.tokens_per_s_per_gpu, 10682.3145884, 1e-6);
  EXPECT_NEAR(*r.derived.mfu, 617.8 / 989, 1e-12);

  // The default window maps to printed 34..43; asking for steps 36:45 shifts onto the outlier.
  o.window = {36, 45};
  EXPECT_NEAR(MustIngest(Logs("nemo2.log"), o).step_time_s->mean, 12.527, 1e-9);
}

TEST(IngestLogTest, Nemo2MissingWindowIterationNamesBothNumberings) {
  std::ifstream in(Logs("nemo2.log"));
  std::string text, line;
  while (std::getline(in, line)) {
    if (line.find("iteration 40/49") == std::string::npos) text += line + "\n";
  }
  Result<WorkloadRun> r = IngestText(text, {}, "nemo2-missing.log");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, RunStatus::kIncomplete);
  EXPECT_EQ(r->missing_window_steps, std::vector<int64_t>{41});
  EXPECT_EQ(r->reason, "no timing sample for step 41 (printed as iteration 40) of window 35-44");
}

TEST(IngestLogTest, MegatronLmAndTorchtitan) {
  WorkloadRun lm = MustIngest(Logs("megatron_lm.log"));
  EXPECT_EQ(lm.status, RunStatus::kSuccess) << lm.reason;
  EXPECT_NEAR(lm.step_time_s->mean, 2.11, 1e-12);
  EXPECT_NEAR(lm.tflops_per_gpu->mean, 401.22, 1e-9);

  IngestOptions o;
  o.gpus = 512;
  WorkloadRun tt = MustIngest(Logs("torchtitan.log"), o);
  EXPECT_EQ(tt.status, RunStatus::kSuccess) << tt.reason;
  EXPECT_EQ(tt.format, LogFormat::kTorchtitan);
  EXPECT_EQ(tt.shape.seq_len, 4096);  // from "sequence length 4096"
  EXPECT_EQ(tt.shape.global_batch_size, 512);
  EXPECT_NEAR(tt.tokens_per_s_per_gpu->mean, 1234.0, 1e-9);
  EXPECT_NEAR(tt.tflops_per_gpu->mean, 169.502, 1e-9);
  // Step time derived per step: 4096 x 512 / (tps x 512 GPUs) = 4096 / tps seconds.
  ASSERT_TRUE(tt.step_time_s.has_value());
  EXPECT_TRUE(tt.samples[40].step_time_derived);
  EXPECT_NEAR(tt.samples[40].step_time_s.value(), 4096.0 / 1237, 1e-12);  // step 41: tps 1,237
  // tokens/s/GPU from the mean step time is the harmonic mean of tps (time-weighted).
  EXPECT_NEAR(*tt.derived.tokens_per_s_per_gpu, 1233.97, 0.01);
}

TEST(IngestLogTest, NanGradNormMakesTheRunInvalid) {
  WorkloadRun r = MustIngest(Logs("nan_grad_norm.log"));
  EXPECT_EQ(r.status, RunStatus::kInvalidGradNorm);
  EXPECT_NE(r.reason.find("grad norm is nan at step 40, line"), std::string::npos) << r.reason;
  ASSERT_EQ(r.nonfinite_grad_norms.size(), 1u);
  EXPECT_EQ(r.nonfinite_grad_norms[0].step, 40);
}

TEST(IngestLogTest, TruncatedFileIsIncomplete) {
  WorkloadRun r = MustIngest(Logs("truncated.log"));
  EXPECT_EQ(r.status, RunStatus::kIncomplete);
  EXPECT_EQ(r.last_step_seen, 41);
  EXPECT_EQ(r.missing_window_steps, (std::vector<int64_t>{41, 42, 43, 44}));
  EXPECT_EQ(r.reason,
            "no timing sample for step 41-44 of window 35-44; final marker 'iteration 50/50' not "
            "seen (last iteration printed: 41/50)");
}

TEST(IngestLogTest, MissingTflopsAndMissingTimingLinesInAFullLog) {
  WorkloadRun t = MustIngest(Logs("missing_tflops.log"));
  EXPECT_EQ(t.status, RunStatus::kSuccess) << t.reason;    // step time complete
  EXPECT_FALSE(t.samples[37].tflops_per_gpu.has_value());  // step 38
  // Window TFLOPS by step: 35-44 = 537.3 537.3 537.2 537.1 537.0 537.0 536.9 536.8 536.7 536.7.
  // Every later step keeps its own value (pairing by position would shift each one back).
  EXPECT_EQ(t.samples[38].step, 39);
  EXPECT_DOUBLE_EQ(*t.samples[38].tflops_per_gpu, 537.0);
  EXPECT_DOUBLE_EQ(*t.samples[40].tflops_per_gpu, 536.9);  // step 41
  EXPECT_DOUBLE_EQ(*t.samples[41].tflops_per_gpu, 536.8);  // step 42
  EXPECT_EQ(t.tflops_per_gpu->n, 9);
  ASSERT_EQ(t.notes.size(), 1u);
  EXPECT_NE(t.notes[0].find("1 timed window step(s) have no TFLOPS"), std::string::npos);

  WorkloadRun m = MustIngest(Logs("missing_timing.log"));
  EXPECT_EQ(m.status, RunStatus::kIncomplete);
  EXPECT_EQ(m.missing_window_steps, std::vector<int64_t>{38});
  EXPECT_EQ(m.reason, "no timing sample for step 38 of window 35-44");
  // Step 38's TFLOPS line (537.1) is left over; step 39 keeps its own 537.0, step 41 its 536.9.
  EXPECT_EQ(m.samples[37].step, 39);  // index 37: step 38 is absent
  EXPECT_DOUBLE_EQ(*m.samples[37].tflops_per_gpu, 537.0);
  EXPECT_DOUBLE_EQ(*m.samples[39].tflops_per_gpu, 536.9);  // step 41
  ASSERT_FALSE(m.notes.empty());
  EXPECT_NE(m.notes[0].find("no iteration line of their own"), std::string::npos);
}

TEST(IngestLogTest, HybridModelTflopsZeroIsNotReported) {
  IngestOptions o;
  o.seq_len = 8192;
  o.peak_tflops = 1979;
  WorkloadRun r = MustIngest(Logs("nemotronh_hybrid.log"), o);
  EXPECT_EQ(r.status, RunStatus::kSuccess) << r.reason;
  EXPECT_TRUE(r.tflops_not_reported);
  EXPECT_FALSE(r.tflops_per_gpu.has_value());
  EXPECT_FALSE(r.derived.tflops_per_gpu.has_value());
  EXPECT_FALSE(r.derived.mfu.has_value());
  EXPECT_EQ(r.shape.global_batch_size, 1536);
  EXPECT_TRUE(r.derived.tokens_per_s.has_value());  // step time is still good
  ASSERT_FALSE(r.notes.empty());
  EXPECT_NE(r.notes[0].find("printed as 0 on 10 window step(s)"), std::string::npos);
}

TEST(IngestLogTest, NothingParseableIsNoData) {
  WorkloadRun r = MustIngest(Logs("prestart_only.log"));
  EXPECT_EQ(r.status, RunStatus::kNoData);
  EXPECT_NE(r.reason.find("no training iterations in 13 line(s)"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("expected Megatron"), std::string::npos);
  Result<WorkloadRun> empty = IngestText("", {}, "empty.log");
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->status, RunStatus::kNoData);
  // Forcing a format that does not match: no data, and the reason says what was expected.
  IngestOptions forced;
  forced.format = LogFormat::kNemo2;
  WorkloadRun n = MustIngest(Logs("megatron_lm.log"), forced);
  EXPECT_EQ(n.status, RunStatus::kNoData);
  EXPECT_NE(n.reason.find("expected NeMo 2 lines"), std::string::npos) << n.reason;
}

TEST(IngestLogTest, UnsupportedFrameworkFromLlmbConfig) {
  WorkloadRun r = MustIngest(Logs("unsupported/log-rl_grpo_deepseek_777_0.out"));
  EXPECT_EQ(r.status, RunStatus::kUnsupportedFramework);
  EXPECT_NE(r.reason.find("framework 'nemo_rl'"), std::string::npos) << r.reason;
}

TEST(IngestLogTest, ServingResultFiles) {
  IngestOptions o;
  o.gpus = 32;
  WorkloadRun v = MustIngest(Logs("vllm_result.json"), o);
  EXPECT_EQ(v.status, RunStatus::kSuccess);
  ASSERT_TRUE(v.inference.has_value());
  EXPECT_DOUBLE_EQ(*v.inference->points[0].output_tokens_per_s_per_gpu, 3337.24 / 32);
  WorkloadRun s = MustIngest(Logs("sglang_results.jsonl"), o);
  EXPECT_EQ(s.status, RunStatus::kSuccess);
  EXPECT_EQ(s.inference->points.size(), 2u);
}

TEST(IngestLogTest, UnreadableInputIsAnErrorNamingTheFile) {
  TempDir dir;
  Result<WorkloadRun> missing = IngestLog(dir.path() + "/none.log", {});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("none.log: no such file"), std::string::npos);

  std::string garbage;
  for (int i = 0; i < 4096; ++i) garbage.push_back(static_cast<char>((i * 7919 + 13) % 256));
  Result<WorkloadRun> bin = IngestLog(dir.Write("garbage.log", garbage), {});
  ASSERT_FALSE(bin.ok());
  EXPECT_NE(bin.status().message().find("garbage.log: binary data (NUL byte at offset"),
            std::string::npos)
      << bin.status().message();
  EXPECT_NE(bin.status().message().find("expected a text training log"), std::string::npos);

  Result<WorkloadRun> dir_err = IngestLog(dir.path(), {});
  ASSERT_FALSE(dir_err.ok());
  EXPECT_NE(dir_err.status().message().find("is a directory"), std::string::npos);

  IngestOptions small;
  small.max_bytes = 1000;
  Result<WorkloadRun> big = IngestLog(Logs("nemo2.log"), small);
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.status().message().find("over the 1000-byte limit"), std::string::npos);

  Result<WorkloadRun> json = IngestLog(dir.Write("cut.json", "{\"output_throughput\": 33"), {});
  ASSERT_FALSE(json.ok());
  EXPECT_NE(json.status().message().find("cut.json: not valid JSON"), std::string::npos);

  // A malformed llmb-config beside a log is an error too: it names the config's line.
  dir.Write("llmb-config_5.yaml", "model_info:\n  scale: many\n");
  Result<WorkloadRun> cfg = IngestLog(dir.Write("log-e_5_0.out", "hello\n"), {});
  ASSERT_FALSE(cfg.ok());
  EXPECT_NE(cfg.status().message().find("llmb-config_5.yaml:2: model_info.scale is 'many'"),
            std::string::npos)
      << cfg.status().message();
}

TEST(IngestLogTest, NulPaddedTailIsSkippedNotFatal) {
  std::ifstream in(Logs("truncated.log"), std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  TempDir dir;
  std::string padded = text + std::string(4096, '\0') + "\n";
  Result<WorkloadRun> r = IngestLog(dir.Write("padded.log", padded), {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->status, RunStatus::kIncomplete);
  ASSERT_FALSE(r->notes.empty());
  EXPECT_NE(r->notes.back().find("NUL bytes"), std::string::npos);
}

TEST(IngestLogTest, CliShapeWinsOverTheLogAndSaysSo) {
  IngestOptions o;
  o.global_batch_size = 2048;
  o.gpus = 256;
  WorkloadRun r = MustIngest(Logs(kRetry1), o);
  EXPECT_EQ(r.shape.global_batch_size, 2048);
  EXPECT_EQ(r.shape.gpus, 256);
  ASSERT_EQ(r.notes.size(), 2u);
  EXPECT_EQ(r.notes[0], "global batch size: 2048 given, but the log says 1024; using 2048");
  EXPECT_EQ(r.notes[1], "GPU count: 256 given, but the llmb-config says 512; using 256");
}

TEST(IngestLineReaderTest, TerminatorsAcrossChunksAndLongLines) {
  TempDir dir;
  std::string text = "a\r\nb\rc\n" + std::string(70000, 'x') + "\r\nlast";
  std::string path = dir.Write("lines.txt", text);
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  LineReader reader(std::move(f), "", path, /*max_line_bytes=*/1000);
  std::vector<std::pair<std::string, int64_t>> got;
  std::string_view line;
  int64_t no = 0;
  while (reader.Next(&line, &no)) got.emplace_back(std::string(line), no);
  ASSERT_TRUE(reader.status().ok());
  ASSERT_EQ(got.size(), 5u);
  EXPECT_EQ(got[0], (std::pair<std::string, int64_t>{"a", 1}));
  EXPECT_EQ(got[1], (std::pair<std::string, int64_t>{"b", 2}));  // lone '\r': same line
  EXPECT_EQ(got[2], (std::pair<std::string, int64_t>{"c", 2}));
  EXPECT_EQ(got[3].first.size(), 1000u);
  EXPECT_EQ(got[3].second, 3);
  EXPECT_EQ(got[4], (std::pair<std::string, int64_t>{"last", 4}));
  EXPECT_EQ(reader.cut_lines(), 1);
}

TEST(IngestLogTest, BinaryReason) {
  EXPECT_EQ(BinaryReason("plain text\n\x1b[31mcolour\x1b[39m\n"), "");
  EXPECT_EQ(BinaryReason(std::string("ab\0c", 4)), "NUL byte at offset 2");
  EXPECT_NE(BinaryReason(std::string(50, '\x01') + std::string(100, 'a')), "");
}

}  // namespace
}  // namespace ys::validate
