#include "host/smt.h"

#include <gtest/gtest.h>

#include "testing/check_test_util.h"

namespace ys::host {
namespace {

TEST(SmtParseTest, ControlValues) {
  EXPECT_EQ(*ParseSmtControl("on\n"), SmtControl::kOn);
  EXPECT_EQ(*ParseSmtControl("off"), SmtControl::kOff);
  EXPECT_EQ(*ParseSmtControl("forceoff"), SmtControl::kForceOff);
  EXPECT_EQ(*ParseSmtControl("notsupported"), SmtControl::kNotSupported);
  EXPECT_EQ(*ParseSmtControl("notimplemented"), SmtControl::kNotImplemented);
  EXPECT_EQ(*ParseSmtControl("2"), SmtControl::kOn);  // partial SMT: a thread count
  EXPECT_EQ(*ParseSmtControl("1"), SmtControl::kOff);
  for (const char* bad : {"", "On", "enabled", "0", "999", "on off"}) {
    EXPECT_FALSE(ParseSmtControl(bad).ok()) << "\"" << bad << "\"";
  }
}

}  // namespace
}  // namespace ys::host
