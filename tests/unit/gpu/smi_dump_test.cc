// The nvidia-smi -q reader (gpu/smi_dump.h) on literal dumps: both forms, old and new section
// names, what is absent or N/A, and malformed input.
#include "gpu/smi_dump.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "gpu/gpu_snapshot_json.h"

namespace ys::gpu {
namespace {

// An R470-era dump of one V100: "Clocks Throttle Reasons", single-/double-bit ECC totals,
// retired pages, absolute temperature thresholds, the old "Power Readings".
constexpr const char* kR470Text = R"(
==============NVSMI LOG==============

Timestamp                                 : Tue Jun 21 12:58:00 2022
Driver Version                            : 470.103.01
CUDA Version                              : 11.4

Attached GPUs                             : 1
GPU 00000000:D8:00.0
    Product Name                          : Tesla V100-PCIE-32GB
    Persistence Mode                      : Enabled
    MIG Mode
        Current                           : N/A
        Pending                           : N/A
    Serial Number                         : 0000000000001
    GPU UUID                              : GPU-00000000-1111-2222-3333-444444444444
    PCI
        Device Id                         : 0x1DB610DE
        Bus Id                            : 00000000:D8:00.0
        GPU Link Info
            PCIe Generation
                Max                       : 3
                Current                   : 3
            Link Width
                Max                       : 16x
                Current                   : 16x
        Replays Since Reset               : 2
    Performance State                     : P0
    Clocks Throttle Reasons
        Idle                              : Not Active
        Applications Clocks Setting       : Not Active
        SW Power Cap                      : Not Active
        HW Slowdown                       : Active
            HW Thermal Slowdown           : Active
            HW Power Brake Slowdown       : Not Active
        Sync Boost                        : Not Active
        SW Thermal Slowdown               : Not Active
        Display Clock Setting             : Not Active
    ECC Mode
        Current                           : Enabled
        Pending                           : Enabled
    ECC Errors
        Volatile
            Single Bit
                Device Memory             : 3
                Register File             : 1
                Total                     : 4
            Double Bit
                Device Memory             : 0
                Total                     : 0
        Aggregate
            Single Bit
                Total                     : 12
            Double Bit
                Total                     : 1
    Retired Pages
        Single Bit ECC                    : 2
        Double Bit ECC                    : 1
        Pending Page Blacklist            : No
    Temperature
        GPU Current Temp                  : 84 C
        GPU Shutdown Temp                 : 90 C
        GPU Slowdown Temp                 : 87 C
        GPU Max Operating Temp            : 83 C
    Power Readings
        Power Draw                        : 249.51 W
        Power Limit                       : 250.00 W
        Default Power Limit               : 250.00 W
        Enforced Power Limit              : 250.00 W
    Clocks
        Graphics                          : 1230 MHz
        SM                                : 1230 MHz
        Memory                            : 877 MHz
    Max Clocks
        Graphics                          : 1380 MHz
        SM                                : 1380 MHz
        Memory                            : 877 MHz
    Processes
        Process ID                        : 4242
            Type                          : C
            Name                          : python
            Used GPU Memory               : 1024 MiB
        Process ID                        : 4343
            Type                          : G
            Name                          : Xorg
            Used GPU Memory               : 4 MiB
)";

TEST(SmiDumpTest, ReadsAnR470TextDump) {
  auto s = ReadSmiDump(kR470Text, "v100.txt");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->source, "recorded: v100.txt");
  EXPECT_EQ(*s->driver_version, "470.103.01");
  EXPECT_EQ(*s->cuda_driver_version, 11040);
  EXPECT_FALSE(s->nvml_version.has());
  ASSERT_EQ(s->devices.size(), 1u);
  const GpuDevice& d = s->devices[0];
  EXPECT_EQ(d.name, "Tesla V100-PCIE-32GB");
  EXPECT_EQ(d.pci_bus_id, "00000000:D8:00.0");
  EXPECT_EQ(d.pci_device_id, 0x1DB610DEu);
  EXPECT_EQ(d.uuid, "GPU-00000000-1111-2222-3333-444444444444");
  EXPECT_EQ(*d.clocks_event_reasons, kClocksEventHwSlowdown | kClocksEventHwThermalSlowdown);
  EXPECT_EQ(*d.sm_clock_mhz, 1230u);
  EXPECT_EQ(*d.max_sm_clock_mhz, 1380u);
  EXPECT_EQ(*d.ecc_volatile_corrected, 4u);
  EXPECT_EQ(*d.ecc_volatile_uncorrected, 0u);
  EXPECT_EQ(*d.ecc_aggregate_corrected, 12u);
  EXPECT_EQ(*d.ecc_aggregate_uncorrected, 1u);
  EXPECT_EQ(*d.retired_pages_sbe, 2u);
  EXPECT_EQ(*d.retired_pages_dbe, 1u);
  EXPECT_FALSE(*d.retired_pages_pending);
  EXPECT_EQ(*d.slowdown_temperature_c, 87u);
  EXPECT_EQ(*d.shutdown_temperature_c, 90u);
  EXPECT_EQ(*d.max_operating_temperature_c, 83u);
  EXPECT_EQ(*d.power_usage_mw, 249510u);
  EXPECT_EQ(*d.enforced_power_limit_mw, 250000u);
  EXPECT_EQ(*d.pcie_width_max, 16u);
  EXPECT_EQ(*d.pcie_replay_counter, 2u);
  EXPECT_EQ(*d.performance_state, 0);
  // MIG Mode N/A: not supported on a V100, not "disabled".
  EXPECT_TRUE(d.mig_enabled.not_supported()) << d.mig_enabled.error;
  // The graphics process is not a compute process.
  ASSERT_EQ(d.compute_processes->size(), 1u);
  EXPECT_EQ((*d.compute_processes)[0].pid, 4242u);
  EXPECT_EQ((*d.compute_processes)[0].used_memory_bytes, 1024ull << 20);
}

TEST(SmiDumpTest, WhatTheDumpDoesNotShowIsNotReportedNeverZero) {
  auto s = ReadSmiDump(kR470Text, "v100.txt");
  ASSERT_TRUE(s.ok());
  const GpuDevice& d = s->devices[0];
  // No "Remapped Rows" and no "Fabric" section in this dump.
  EXPECT_FALSE(d.remapped_rows_pending.has());
  EXPECT_EQ(d.remapped_rows_pending.error.rfind("not reported", 0), 0u)
      << d.remapped_rows_pending.error;
  EXPECT_FALSE(d.fabric.has());
  EXPECT_NE(d.fabric.error.find("Fabric"), std::string::npos) << d.fabric.error;
  // -q never prints NVLink state: one link entry that says so, nothing invented.
  ASSERT_EQ(d.nvlinks.size(), 1u);
  EXPECT_FALSE(d.nvlinks[0].active.has());
  EXPECT_NE(d.nvlinks[0].active.error.find("nvidia-smi nvlink"), std::string::npos);
}

// `nvidia-smi -q -d CLOCK`: only one section of each GPU.
TEST(SmiDumpTest, ADumpOfOneSectionLeavesTheRestUnreported) {
  constexpr const char* kClockOnly = R"(==============NVSMI LOG==============
Timestamp                                 : Wed Aug 26 15:47:19 2026
Driver Version                            : 470.256.02
CUDA Version                              : 11.4

Attached GPUs                             : 2
GPU 00000000:06:00.0
    Max Clocks
        Graphics                          : 875 MHz
        SM                                : 875 MHz

GPU 00000000:07:00.0
    Max Clocks
        Graphics                          : 875 MHz
        SM                                : 875 MHz
)";
  auto s = ReadSmiDump(kClockOnly, "clock.txt");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_EQ(s->devices.size(), 2u);
  EXPECT_EQ(s->devices[1].index, 1);
  EXPECT_EQ(s->devices[1].pci_bus_id, "00000000:07:00.0");  // from the section header
  EXPECT_EQ(*s->devices[1].max_sm_clock_mhz, 875u);
  EXPECT_FALSE(s->devices[1].temperature_c.has());
  EXPECT_EQ(s->devices[1].temperature_c.error,
            "not reported: the nvidia-smi -q dump has no \"Temperature/GPU Current Temp\"");
  EXPECT_FALSE(s->devices[1].ecc_enabled.has());
}

constexpr const char* kXml = R"(<?xml version="1.0" ?>
<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">
<nvidia_smi_log>
	<timestamp>Fri Oct 11 18:24:09 2024</timestamp>
	<driver_version>535.129.03</driver_version>
	<cuda_version>12.2</cuda_version>
	<attached_gpus>1</attached_gpus>
	<gpu id="00000000:18:00.0">
		<product_name>NVIDIA H100 80GB HBM3 &amp; friends</product_name>
		<persistence_mode>Enabled</persistence_mode>
		<uuid>GPU-b42dd28e-ffdd-8720-1df0-98bd8cdc05b1</uuid>
		<pci>
			<pci_device_id>233010DE</pci_device_id>
			<pci_bus_id>00000000:18:00.0</pci_bus_id>
		</pci>
		<clocks_event_reasons>
			<clocks_event_reason_gpu_idle>Not Active</clocks_event_reason_gpu_idle>
			<clocks_event_reason_sw_power_cap>Active</clocks_event_reason_sw_power_cap>
		</clocks_event_reasons>
		<remapped_rows>
			<remapped_row_corr>0</remapped_row_corr>
			<remapped_row_unc>1</remapped_row_unc>
			<remapped_row_pending>Yes</remapped_row_pending>
			<remapped_row_failure>No</remapped_row_failure>
		</remapped_rows>
		<temperature>
			<gpu_temp>41 C</gpu_temp>
			<gpu_temp_tlimit>44 C</gpu_temp_tlimit>
		</temperature>
		<gpu_power_readings>
			<power_draw>690.10 W</power_draw>
			<current_power_limit>700.00 W</current_power_limit>
			<default_power_limit>700.00 W</default_power_limit>
		</gpu_power_readings>
		<fabric>
			<state>In Progress</state>
			<status>N/A</status>
		</fabric>
		<processes>
			<process_info>
				<pid>77</pid>
				<type>C</type>
				<used_memory>100 MiB</used_memory>
			</process_info>
		</processes>
		<empty/>
	</gpu>
</nvidia_smi_log>
)";

TEST(SmiDumpTest, ReadsXml) {
  auto s = ReadSmiDump(kXml, "h100.xml");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(*s->cuda_driver_version, 12020);
  ASSERT_EQ(s->devices.size(), 1u);
  const GpuDevice& d = s->devices[0];
  EXPECT_EQ(d.name, "NVIDIA H100 80GB HBM3 & friends");
  EXPECT_EQ(d.pci_device_id, 0x233010DEu);
  EXPECT_TRUE(*d.persistence_mode);
  EXPECT_EQ(*d.clocks_event_reasons, kClocksEventSwPowerCap);
  EXPECT_EQ(*d.remapped_rows_uncorrectable, 1u);
  EXPECT_TRUE(*d.remapped_rows_pending);
  EXPECT_EQ(*d.temperature_c, 41u);
  // Thresholds given only relative to T.Limit are not converted.
  EXPECT_FALSE(d.slowdown_temperature_c.has());
  EXPECT_NE(d.slowdown_temperature_c.error.find("T.Limit"), std::string::npos);
  EXPECT_EQ(*d.power_usage_mw, 690100u);
  EXPECT_EQ(*d.enforced_power_limit_mw, 700000u);
  EXPECT_EQ(d.fabric->state, "in progress");
  EXPECT_EQ(d.fabric->status, "");
  ASSERT_EQ(d.compute_processes->size(), 1u);
  EXPECT_EQ((*d.compute_processes)[0].pid, 77u);
}

TEST(SmiDumpTest, NotApplicableIsNotSupported) {
  std::string text = kR470Text;
  text.replace(text.find("GPU Current Temp                  : 84 C"), 40,
               "GPU Current Temp                  : N/A ");
  auto s = ReadSmiDump(text, "v100.txt");
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->devices[0].temperature_c.not_supported()) << s->devices[0].temperature_c.error;
}

TEST(SmiDumpTest, WindowsLineEndingsAndAPromptBeforeTheBanner) {
  std::string text = "$ nvidia-smi -q\r\n";
  for (char c : std::string(kR470Text)) {
    if (c == '\n') text += '\r';
    text += c;
  }
  auto s = ReadSmiDump(text, "crlf.txt");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(*s->devices[0].sm_clock_mhz, 1230u);
  EXPECT_EQ(s->devices[0].name, "Tesla V100-PCIE-32GB");
}

TEST(SmiDumpTest, DetectsTheFormFromTheContent) {
  EXPECT_EQ(DetectSmiDump(kR470Text), SmiDumpFormat::kText);
  EXPECT_EQ(DetectSmiDump(kXml), SmiDumpFormat::kXml);
  EXPECT_EQ(DetectSmiDump("  <nvidia_smi_log></nvidia_smi_log>"), SmiDumpFormat::kXml);
  EXPECT_EQ(DetectSmiDump(R"({"devices": []})"), std::nullopt);
  EXPECT_EQ(DetectSmiDump(""), std::nullopt);
}

TEST(SmiDumpTest, MalformedDumpsAreClearErrors) {
  struct Case {
    std::string text;
    std::string says;
  } cases[] = {
      {"<nvidia_smi_log><gpu id=\"1\"><uuid>x</pci></gpu></nvidia_smi_log>",
       "line 1: </pci> closes <uuid>"},
      {"<nvidia_smi_log>\n<gpu>\n<uuid>&bogus;</uuid></gpu></nvidia_smi_log>",
       "line 3: unknown entity &bogus;"},
      {"<nvidia_smi_log><gpu>", "<gpu> is never closed"},
      {"<?xml version=\"1.0\"?><other/>", "the root element is <other>"},
      {"<nvidia_smi_log><![CDATA[x]]></nvidia_smi_log>", "CDATA"},
      {"<nvidia_smi_log><gpu id=1></gpu></nvidia_smi_log>", "no quoted value"},
      {"==============NVSMI LOG==============\nTimestamp : now\n", "without a GPU section"},
  };
  for (const auto& c : cases) {
    auto s = ReadSmiDump(c.text, "bad.dump");
    ASSERT_FALSE(s.ok()) << c.text;
    EXPECT_EQ(s.status().code(), StatusCode::kInvalidInput);
    EXPECT_NE(s.status().message().find("bad.dump"), std::string::npos) << s.status().message();
    EXPECT_NE(s.status().message().find(c.says), std::string::npos) << s.status().message();
  }
}

TEST(SmiDumpTest, NestingBeyondTheLimitIsRefused) {
  std::string deep = "<nvidia_smi_log>";
  for (int i = 0; i < 100; ++i) deep += "<a>";
  auto s = ReadSmiDump(deep, "deep.xml");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("nested deeper"), std::string::npos);
}

TEST(SmiDumpTest, APartialDumpSaysHowManyGpusItShows) {
  std::string text = kR470Text;
  text.replace(text.find("Attached GPUs                             : 1"), 45,
               "Attached GPUs                             : 8");
  auto s = ReadSmiDump(text, "one.txt");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->source, "recorded: one.txt (shows 1 of 8 attached GPUs)");
}

class SmiDumpFileTest : public ::testing::Test {
 protected:
  std::string Write(const std::string& name, const std::string& text) {
    std::string path = (std::filesystem::path(::testing::TempDir()) / name).string();
    std::ofstream(path, std::ios::binary) << text;
    written_.push_back(path);
    return path;
  }
  void TearDown() override {
    for (const auto& p : written_) std::filesystem::remove(p);
  }
  std::vector<std::string> written_;
};

TEST_F(SmiDumpFileTest, TheStateFileIsJsonOrADump) {
  auto dump = LoadGpuStateFile(Write("smi_dump_test.txt", kR470Text));
  ASSERT_TRUE(dump.ok()) << dump.status().ToString();
  EXPECT_EQ(dump->devices.size(), 1u);
  auto json = LoadGpuStateFile(Write("smi_dump_test.json", GpuSnapshotToJsonText(*dump)));
  ASSERT_TRUE(json.ok()) << json.status().ToString();
  EXPECT_EQ(*json->devices[0].sm_clock_mhz, 1230u);
  auto neither = LoadGpuStateFile(Write("smi_dump_test.bin", "GPU 0: NVIDIA H100"));
  ASSERT_FALSE(neither.ok());
  EXPECT_EQ(neither.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(neither.status().message().find("nvidia-smi -q"), std::string::npos)
      << neither.status().message();
  EXPECT_EQ(LoadGpuStateFile(::testing::TempDir() + "/smi_dump_test.absent").status().code(),
            StatusCode::kNotFound);
}

}  // namespace
}  // namespace ys::gpu
