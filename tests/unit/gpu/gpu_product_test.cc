#include "gpu/gpu_product.h"

#include <gtest/gtest.h>

namespace ys::gpu {
namespace {

TEST(GpuProductTest, FormFactorAndLinksFromTheName) {
  struct Case {
    const char* name;
    FormFactor form;
    std::optional<int> links;
  } cases[] = {
      {"NVIDIA H100 80GB HBM3", FormFactor::kSxm, 18},
      {"NVIDIA H100 PCIe", FormFactor::kPcie, 12},
      {"NVIDIA H100 NVL", FormFactor::kPcie, 12},
      {"NVIDIA A100-SXM4-80GB", FormFactor::kSxm, 12},
      {"NVIDIA A100 80GB PCIe", FormFactor::kPcie, 12},
      {"Tesla V100-SXM2-32GB", FormFactor::kSxm, 6},
      {"Tesla V100-PCIE-16GB", FormFactor::kPcie, 0},
      {"NVIDIA H200", FormFactor::kSxm, 18},
      {"NVIDIA H200 NVL", FormFactor::kPcie, 18},
      {"NVIDIA GH200 480GB", FormFactor::kSxm, 18},
      {"NVIDIA B200", FormFactor::kSxm, 18},
      {"NVIDIA GB200", FormFactor::kSxm, 18},
      {"NVIDIA GeForce RTX 4090", FormFactor::kPcie, std::nullopt},
      {"NVIDIA L40S", FormFactor::kUnknown, std::nullopt},
  };
  for (const auto& c : cases) {
    GpuProduct p = IdentifyGpuProduct(c.name);
    EXPECT_EQ(p.form, c.form) << c.name;
    EXPECT_EQ(p.nvlinks, c.links) << c.name;
  }
}

TEST(GpuProductTest, DefaultPowerTellsABareH100) {
  EXPECT_EQ(IdentifyGpuProduct("NVIDIA H100", 700).form, FormFactor::kSxm);
  EXPECT_EQ(IdentifyGpuProduct("NVIDIA H100", 350).form, FormFactor::kPcie);
  EXPECT_EQ(IdentifyGpuProduct("NVIDIA H100").form, FormFactor::kUnknown);
  EXPECT_NE(IdentifyGpuProduct("NVIDIA H100", 700).basis.find("default power limit 700 W"),
            std::string::npos);
}

TEST(GpuProductTest, ProductClass) {
  EXPECT_EQ(IdentifyGpuProduct("NVIDIA GeForce RTX 3090").product_class, ProductClass::kGeForce);
  EXPECT_EQ(IdentifyGpuProduct("NVIDIA RTX A6000").product_class, ProductClass::kWorkstation);
  EXPECT_EQ(IdentifyGpuProduct("NVIDIA RTX 6000 Ada Generation").product_class,
            ProductClass::kWorkstation);
  EXPECT_EQ(IdentifyGpuProduct("Quadro RTX 8000").product_class, ProductClass::kWorkstation);
  EXPECT_EQ(IdentifyGpuProduct("NVIDIA RTX PRO 6000 Blackwell Server Edition").product_class,
            ProductClass::kDataCentre);
  EXPECT_EQ(IdentifyGpuProduct("NVIDIA A40").product_class, ProductClass::kDataCentre);
}

TEST(GpuProductTest, Shortfalls) {
  using Kind = NvlinkExpectation::Kind;
  NvlinkExpectation bridge = ExpectNvlinks(IdentifyGpuProduct("NVIDIA H100 PCIe"), std::nullopt);
  EXPECT_EQ(bridge.kind, Kind::kBridge);
  EXPECT_FALSE(NvlinkShortfall(bridge, 18, 12, 0));  // bridged pair
  EXPECT_FALSE(NvlinkShortfall(bridge, 18, 0, 0));   // no bridge
  EXPECT_TRUE(NvlinkShortfall(bridge, 18, 8, 0));    // a bridge missing or loose
  NvlinkExpectation sxm = ExpectNvlinks(IdentifyGpuProduct("NVIDIA B200"), std::nullopt);
  EXPECT_EQ(sxm.kind, Kind::kCount);
  EXPECT_TRUE(NvlinkShortfall(sxm, 18, 17, 0));
  EXPECT_FALSE(NvlinkShortfall(sxm, 2, 2, 16));  // an abridged copy: 16 links not read
  NvlinkExpectation site = ExpectNvlinks(IdentifyGpuProduct("NVIDIA H100 80GB HBM3"), 12);
  EXPECT_FALSE(NvlinkShortfall(site, 18, 12, 0));
  EXPECT_EQ(*NvlinkShortfall(site, 12, 10, 0), "10 NVLinks active, the site expects 12");
  NvlinkExpectation unknown = ExpectNvlinks(IdentifyGpuProduct("NVIDIA L40S"), std::nullopt);
  EXPECT_EQ(unknown.kind, Kind::kEveryListed);
  EXPECT_TRUE(NvlinkShortfall(unknown, 4, 3, 0));
  EXPECT_EQ(ExpectNvlinks(IdentifyGpuProduct("Tesla V100-PCIE-16GB"), std::nullopt).kind,
            Kind::kAny);
}

}  // namespace
}  // namespace ys::gpu
