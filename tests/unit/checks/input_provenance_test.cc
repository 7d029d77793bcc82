#include "checks/input_provenance.h"

#include <gtest/gtest.h>

namespace ys::checks {
namespace {

TEST(InputProvenanceTest, TheLiveHostAloneIsLive) {
  PreflightOptions o;  // root "/", no recording
  std::vector<RunInput> in = InputsOf(o);
  ASSERT_EQ(in.size(), 1u);
  EXPECT_EQ(in[0].flag, "--root");
  EXPECT_EQ(in[0].provenance, Provenance::kLive);
  EXPECT_EQ(DescribeRecorded(in), "");
}

TEST(InputProvenanceTest, EveryRecordingIsNamedAsTheOperatorGaveIt) {
  PreflightOptions o;
  o.nvml_state = "node7.json";
  EXPECT_EQ(DescribeRecorded(InputsOf(o)), "--nvml-state node7.json");
  o.root = "tests/fixtures/hosts/healthy-8gpu";
  o.kernel_log = "kmsg.txt";
  EXPECT_EQ(DescribeRecorded(InputsOf(o)),
            "--root tests/fixtures/hosts/healthy-8gpu, --nvml-state node7.json, --kernel-log "
            "kmsg.txt");
  PreflightOptions report;
  report.bug_report = "nvidia-bug-report.log.gz";
  EXPECT_EQ(DescribeRecorded(InputsOf(report)), "--bug-report nvidia-bug-report.log.gz");
  // A saved kernel log of this very machine is still a recording, not /dev/kmsg now.
  PreflightOptions log_only;
  log_only.kernel_log = "/var/log/kern.log";
  EXPECT_EQ(DescribeRecorded(InputsOf(log_only)), "--kernel-log /var/log/kern.log");
}

TEST(InputProvenanceTest, ARunDocumentShowsItsRecordedTreeAndGpuState) {
  RunDocument doc;
  doc.host.root = "/";
  doc.host.gpu_source = "nvml";
  EXPECT_TRUE(RecordedInputsOf(doc).empty());
  doc.host.gpu_source = "none: NVML not found";
  EXPECT_TRUE(RecordedInputsOf(doc).empty());
  doc.host.root = "/srv/captures/node7";
  doc.host.gpu_source = "recorded: /srv/captures/node7.json";
  EXPECT_EQ(DescribeRecorded(RecordedInputsOf(doc)),
            "--root /srv/captures/node7, GPU state /srv/captures/node7.json");
}

}  // namespace
}  // namespace ys::checks
