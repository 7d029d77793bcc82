#include "host/guest.h"

#include <gtest/gtest.h>

#include "testing/check_test_util.h"

namespace ys::host {
namespace {

TEST(GuestTest, DmiNames) {
  EXPECT_TRUE(IsHypervisorDmiName("QEMU", "KVM Virtual Machine"));
  EXPECT_TRUE(IsHypervisorDmiName("QEMU", "Standard PC (Q35 + ICH9, 2009)"));
  EXPECT_TRUE(IsHypervisorDmiName("VMware, Inc.", "VMware Virtual Platform"));
  EXPECT_TRUE(IsHypervisorDmiName("Microsoft Corporation", "Virtual Machine"));
  EXPECT_TRUE(IsHypervisorDmiName("Amazon EC2", "p5.48xlarge"));
  EXPECT_FALSE(IsHypervisorDmiName("Amazon EC2", "c6i.metal"));
  EXPECT_FALSE(IsHypervisorDmiName("Supermicro", "SYS-821GE-TNHR"));
  EXPECT_FALSE(IsHypervisorDmiName("NVIDIA", "DGX H100"));
  EXPECT_FALSE(IsHypervisorDmiName("", ""));
}

TEST(GuestTest, SignsOnTheFixtures) {
  auto vm = Host::AtRoot(testing::FixturePath("grace-vm-smmu"));
  ASSERT_TRUE(vm.ok());
  auto sign = GuestSign(*vm);
  ASSERT_TRUE(sign.has_value());
  EXPECT_NE(sign->find("QEMU"), std::string::npos) << *sign;
  auto metal = Host::AtRoot(testing::FixturePath("healthy-8gpu"));
  ASSERT_TRUE(metal.ok());
  EXPECT_EQ(GuestSign(*metal), std::nullopt);
  testing::TempHost t;
  t.Write("/proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu tsc hypervisor avx\n\n");
  auto flagged = GuestSign(t.Host());
  ASSERT_TRUE(flagged.has_value());
  EXPECT_NE(flagged->find("hypervisor"), std::string::npos);
}

}  // namespace
}  // namespace ys::host
