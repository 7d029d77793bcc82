// Device specs: the shipped files load strictly and match the CUDA names; malformed files are
// rejected with the file, the key and what was expected.
#include "bench/device_specs.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "testing/bad_numbers.h"
#include "testing/text_edit.h"
#include "validate/validation.h"

namespace ys::bench {
namespace {

const std::string kSpecs = std::string(YS_SOURCE_DIR) + "/specs";

constexpr const char* kGood = R"(
[device]
chip = "x100"
name = "Example X100"
cuda_names = ["NVIDIA X100"]

[peak_dense_tflops]
bf16 = 1000
tf32 = 500.5
source = "datasheet"

[memory]
hbm_tb_per_s = 4.8
source = "datasheet"

[nvlink]
bidirectional_gb_per_s = 900
per_direction_gb_per_s = 450
source = "datasheet"

[pcie]
generation = 5
lanes = 16
per_direction_gb_per_s = 64
source = "datasheet"
)";

using ::ys::testing::Replace;

TEST(DeviceSpecsTest, ParsesEveryFigureOfAGoodFile) {
  auto spec = ParseDeviceSpec(kGood, "x100.toml");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  EXPECT_EQ(spec->chip, "x100");
  EXPECT_EQ(spec->cuda_names, std::vector<std::string>{"NVIDIA X100"});
  EXPECT_DOUBLE_EQ(spec->peak_dense_tflops.at("tf32"), 500.5);
  auto hbm = PeakHbmGBps(*spec);
  ASSERT_TRUE(hbm);
  EXPECT_DOUBLE_EQ(hbm->value, 4800);
  EXPECT_NE(hbm->source.find("x100.toml [memory] hbm_tb_per_s"), std::string::npos);
  EXPECT_DOUBLE_EQ(PeakNvlinkPerDirectionGBps(*spec)->value, 450);
  EXPECT_DOUBLE_EQ(PeakPciePerDirectionGBps(*spec)->value, 64);
  EXPECT_EQ(*spec->pcie_generation, 5);
  auto bf16 = PeakTflops(*spec, "bf16");
  ASSERT_TRUE(bf16);
  EXPECT_EQ(bf16->source, "x100.toml [peak_dense_tflops] bf16");
  EXPECT_FALSE(PeakTflops(*spec, "fp8"));
}

TEST(DeviceSpecsTest, OptionalSectionsMayBeAbsent) {
  std::string text =
      "[device]\nchip = \"y\"\nname = \"Y\"\n[peak_dense_tflops]\nbf16 = 1\nsource = \"s\"\n";
  auto spec = ParseDeviceSpec(text, "y.toml");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  EXPECT_FALSE(PeakHbmGBps(*spec));
  EXPECT_FALSE(PeakPciePerDirectionGBps(*spec));
  EXPECT_TRUE(spec->cuda_names.empty());
}

struct Bad {
  const char* from;
  const char* to;
  const char* expect;  // in the message
};

TEST(DeviceSpecsTest, MalformedFilesNameTheFileKeyAndExpectation) {
  const Bad cases[] = {
      {"tf32 = 500.5", "tf32 = \"fast\"", "x.toml:9: [peak_dense_tflops] tf32: expected a number"},
      {"tf32 = 500.5", "tf32 = -1",
       "x.toml:9: [peak_dense_tflops] tf32: -1 is out of range (expected a number from 0.001 to "
       "1e+07)"},
      {"tf32 = 500.5", "int4 = 7", "x.toml:9: [peak_dense_tflops] int4: unknown key"},
      {"hbm_tb_per_s = 4.8", "hbm_tbps = 4.8", "x.toml:13: [memory] hbm_tbps: unknown key"},
      {"generation = 5", "generation = 5.5",
       "x.toml:22: [pcie] generation: expected a whole number from 1 to 9"},
      {"cuda_names = [\"NVIDIA X100\"]", "cuda_names = \"NVIDIA X100\"",
       "x.toml:5: [device] cuda_names: expected a non-empty array of strings"},
      {"cuda_names = [\"NVIDIA X100\"]", "cuda_names = [1]",
       "x.toml:5: [device] cuda_names: expected a non-empty array of strings; an element is not a "
       "string"},
      {"[pcie]", "[pci]", "x.toml:21: [pci]: unknown section"},
      {"chip = \"x100\"\n", "", "x.toml:2: [device] chip: missing"},
      {"source = \"datasheet\"\n\n[memory]", "\n[memory]",
       "x.toml:7: [peak_dense_tflops] source: missing"},
      {"per_direction_gb_per_s = 450", "per_direction_gb_per_s = 9000",
       "per_direction_gb_per_s: larger than bidirectional"},
      {"name = \"Example X100\"", "name = \"Example X100", "x.toml:4:"},
  };
  for (const Bad& c : cases) {
    auto spec = ParseDeviceSpec(Replace(kGood, c.from, c.to), "x.toml");
    ASSERT_FALSE(spec.ok()) << c.to;
    EXPECT_EQ(spec.status().code(), StatusCode::kInvalidInput) << c.to;
    EXPECT_NE(spec.status().message().find(c.expect), std::string::npos)
        << "got: " << spec.status().message() << "\nwanted: " << c.expect;
  }
}

// Mutated peaks (nan, inf, 1e-320 ...) once gave an MFU of "-", 0.0% or inf% with exit 0.
TEST(DeviceSpecsTest, PeaksOutsidePhysicalPlausibilityAreRefused) {
  struct Key {
    const char* line;
    const char* key;
    const char* where;
  };
  const Key keys[] = {
      {"bf16 = 1000", "bf16 = ", "x.toml:8: [peak_dense_tflops] bf16: "},
      {"hbm_tb_per_s = 4.8", "hbm_tb_per_s = ", "x.toml:13: [memory] hbm_tb_per_s: "},
      {"bidirectional_gb_per_s = 900",
       "bidirectional_gb_per_s = ", "x.toml:17: [nvlink] bidirectional_gb_per_s: "},
      {"per_direction_gb_per_s = 64",
       "per_direction_gb_per_s = ", "x.toml:24: [pcie] per_direction_gb_per_s: "},
  };
  for (const Key& k : keys) {
    for (const std::string& v : ys::testing::kBadPositiveNumbers) {
      auto spec = ParseDeviceSpec(Replace(kGood, k.line, k.key + v), "x.toml");
      ASSERT_FALSE(spec.ok()) << k.key << v;
      EXPECT_EQ(spec.status().code(), StatusCode::kInvalidInput);
      EXPECT_NE(spec.status().message().find(std::string(k.where)), std::string::npos)
          << spec.status().message();
      EXPECT_NE(spec.status().message().find("is out of range (expected a number from 0.001 to"),
                std::string::npos)
          << spec.status().message();
    }
  }
  auto huge = ParseDeviceSpec(
      Replace(kGood, "lanes = 16", std::string("lanes = ") + ys::testing::kPastInt64), "x.toml");
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(huge.status().message().find("x.toml:23:"), std::string::npos)
      << huge.status().message();
  auto wide = ParseDeviceSpec(Replace(kGood, "lanes = 16", "lanes = 4294967312"), "x.toml");
  ASSERT_FALSE(wide.ok());
  EXPECT_NE(wide.status().message().find("x.toml:23: [pcie] lanes: 4294967312 is out of range"),
            std::string::npos)
      << wide.status().message();
}

// validate/ reads [peak_dense_tflops] on its own: the same bounds hold there.
TEST(DeviceSpecsTest, ValidationPeaksHaveTheSameBounds) {
  char dir[] = "/tmp/ys-peaks-XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  for (const std::string& v : ys::testing::kBadPositiveNumbers) {
    std::string path = std::string(dir) + "/x.toml";
    std::ofstream(path) << Replace(kGood, "bf16 = 1000", "bf16 = " + v);
    auto peaks = validate::LoadPeakTflops(path);
    ASSERT_FALSE(peaks.ok()) << v;
    EXPECT_NE(peaks.status().message().find(path + ":8: [peak_dense_tflops] bf16: "),
              std::string::npos)
        << peaks.status().message();
    EXPECT_NE(peaks.status().message().find("is out of range"), std::string::npos)
        << peaks.status().message();
  }
  std::filesystem::remove_all(dir);
}

TEST(DeviceSpecsTest, MissingTablesAndFiles) {
  auto no_device = ParseDeviceSpec("[peak_dense_tflops]\nbf16 = 1\nsource = \"s\"\n", "z.toml");
  ASSERT_FALSE(no_device.ok());
  EXPECT_NE(no_device.status().message().find("z.toml: missing [device]"), std::string::npos);
  auto no_figure = ParseDeviceSpec(
      "[device]\nchip = \"z\"\nname = \"Z\"\n[peak_dense_tflops]\nsource = \"s\"\n", "z.toml");
  ASSERT_FALSE(no_figure.ok());
  EXPECT_NE(no_figure.status().message().find("no figure"), std::string::npos);
  auto missing = LoadDeviceSpec("/nonexistent/h200.toml");
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
}

TEST(DeviceSpecsTest, ShippedSpecsLoadAndMatchTheCudaNames) {
  auto specs = LoadDeviceSpecs(kSpecs);
  ASSERT_TRUE(specs.ok()) << specs.status().message();
  EXPECT_EQ(specs->size(), 6u);
  const std::pair<const char*, const char*> names[] = {
      {"NVIDIA H100 80GB HBM3", "h100"}, {"NVIDIA H200", "h200"},   {"  NVIDIA H200 ", "h200"},
      {"NVIDIA B200", "b200"},           {"NVIDIA GB200", "gb200"}, {"NVIDIA GB300", "gb300"},
      {"NVIDIA B300 SXM6 AC", "b300"},
  };
  for (auto [name, chip] : names) {
    auto m = MatchDeviceSpec(*specs, name);
    ASSERT_TRUE(m.ok()) << name << ": " << m.status().message();
    EXPECT_EQ(m->chip, chip) << name;
  }
  for (const char* other :
       {"NVIDIA H100 PCIe", "NVIDIA H200 NVL", "NVIDIA H100", "NVIDIA A100-SXM4-80GB"}) {
    auto m = MatchDeviceSpec(*specs, other);
    ASSERT_FALSE(m.ok()) << other;
    EXPECT_EQ(m.status().code(), StatusCode::kNotFound);
    EXPECT_NE(m.status().message().find("\"NVIDIA H200\""), std::string::npos)
        << m.status().message();
  }
  auto h200 = MatchDeviceSpec(*specs, "NVIDIA H200");
  ASSERT_TRUE(h200.ok());
  EXPECT_DOUBLE_EQ(PeakHbmGBps(*h200)->value, 4800);
  EXPECT_DOUBLE_EQ(PeakTflops(*h200, "bf16")->value, 989);
  EXPECT_DOUBLE_EQ(PeakTflops(*h200, "tf32")->value, 494.5);
  EXPECT_DOUBLE_EQ(PeakPciePerDirectionGBps(*h200)->value, 64);
  EXPECT_DOUBLE_EQ(PeakNvlinkPerDirectionGBps(*h200)->value, 450);
  auto gb200 = MatchDeviceSpec(*specs, "NVIDIA GB200");
  ASSERT_TRUE(gb200.ok());
  EXPECT_FALSE(PeakPciePerDirectionGBps(*gb200))
      << "GB200 reaches its host over NVLink-C2C, not PCIe";
}

TEST(DeviceSpecsTest, ShippedSpecsStillSatisfyTheValidationReader) {
  for (const auto& entry : std::filesystem::directory_iterator(kSpecs)) {
    auto peaks = validate::LoadPeakTflops(entry.path().string());
    ASSERT_TRUE(peaks.ok()) << entry.path() << ": " << peaks.status().message();
    EXPECT_TRUE(peaks->count("bf16")) << entry.path();
  }
}

TEST(DeviceSpecsTest, TwoFilesClaimingOneNameAreRejected) {
  char dir_template[] = "/tmp/ys-specs-XXXXXX";
  ASSERT_NE(::mkdtemp(dir_template), nullptr);
  std::string dir = dir_template;
  for (const char* f : {"a.toml", "b.toml"}) std::ofstream(dir + "/" + f) << kGood;
  auto specs = LoadDeviceSpecs(dir);
  ASSERT_FALSE(specs.ok());
  EXPECT_NE(specs.status().message().find(
                "b.toml: [device] cuda_names: \"NVIDIA X100\" is also claimed by"),
            std::string::npos)
      << specs.status().message();
  std::filesystem::remove_all(dir);
  EXPECT_EQ(LoadDeviceSpecs("/nonexistent-dir").status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace ys::bench

namespace ys::bench {
namespace {

// [memory] capacity_gb: what serving predictions fit weights and KV cache in.
TEST(DeviceSpecsTest, HbmCapacityIsReadRangeCheckedAndShippedForEveryChip) {
  auto spec = ParseDeviceSpec(
      Replace(kGood, "hbm_tb_per_s = 4.8", "hbm_tb_per_s = 4.8\ncapacity_gb = 141"), "x.toml");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  EXPECT_DOUBLE_EQ(*spec->hbm_capacity_gb, 141);
  EXPECT_FALSE(ParseDeviceSpec(kGood, "x.toml")->hbm_capacity_gb.has_value());
  // Capacity alone is a [memory] table; neither figure is an error.
  EXPECT_TRUE(
      ParseDeviceSpec(Replace(kGood, "hbm_tb_per_s = 4.8", "capacity_gb = 80"), "x.toml").ok());
  auto empty = ParseDeviceSpec(Replace(kGood, "hbm_tb_per_s = 4.8\n", ""), "x.toml");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("[memory]: no figure"), std::string::npos);
  for (const char* bad : {"0.5", "200000", "\"80\"", "nan"}) {
    auto s = ParseDeviceSpec(
        Replace(kGood, "hbm_tb_per_s = 4.8", std::string("capacity_gb = ") + bad), "x.toml");
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_NE(s.status().message().find("x.toml:13: [memory] capacity_gb"), std::string::npos)
        << s.status().message();
  }
  const std::pair<const char*, double> shipped[] = {{"h100", 80},  {"h200", 141},  {"b200", 180},
                                                    {"b300", 288}, {"gb200", 186}, {"gb300", 288}};
  for (auto [chip, gb] : shipped) {
    auto s = LoadDeviceSpec(kSpecs + "/" + chip + ".toml");
    ASSERT_TRUE(s.ok()) << s.status().message();
    ASSERT_TRUE(s->hbm_capacity_gb.has_value()) << chip;
    EXPECT_DOUBLE_EQ(*s->hbm_capacity_gb, gb) << chip;
  }
}

// The bytes serving fits in: the driver's total where the file gives it, else the datasheet
// figure read as binary GB less the driver's 0.5% — within 0.1% of the driver's total on every
// chip that gives both.
TEST(DeviceSpecsTest, DeviceMemoryIsTheDriversTotal) {
  auto with = ParseDeviceSpec(
      Replace(kGood, "hbm_tb_per_s = 4.8", "capacity_gb = 141\ndevice_mib = 143771"), "x.toml");
  ASSERT_TRUE(with.ok()) << with.status().message();
  EXPECT_DOUBLE_EQ(DeviceMemoryBytes(*with), 143771.0 * 1024 * 1024);
  auto without =
      ParseDeviceSpec(Replace(kGood, "hbm_tb_per_s = 4.8", "capacity_gb = 141"), "x.toml");
  ASSERT_TRUE(without.ok());
  EXPECT_NEAR(DeviceMemoryBytes(*without) / (143771.0 * 1024 * 1024), 1, 1e-3);
  EXPECT_EQ(DeviceMemoryBytes(*ParseDeviceSpec(kGood, "x.toml")), 0);
  auto bad = ParseDeviceSpec(Replace(kGood, "hbm_tb_per_s = 4.8", "device_mib = 12"), "x.toml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("[memory] device_mib"), std::string::npos);
  for (const char* chip : {"h100", "h200", "b200"}) {
    auto s = LoadDeviceSpec(kSpecs + "/" + std::string(chip) + ".toml");
    ASSERT_TRUE(s.ok() && s->device_mib.has_value()) << chip;
    DeviceSpec datasheet = *s;
    datasheet.device_mib.reset();
    EXPECT_NEAR(DeviceMemoryBytes(datasheet) / DeviceMemoryBytes(*s), 1, 1e-3) << chip;
  }
}

}  // namespace
}  // namespace ys::bench
