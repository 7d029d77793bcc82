// The price model (strict TOML) and the cost arithmetic against hand-computed figures.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "cost/cost_model.h"
#include "cost/price_model.h"

namespace ys::cost {
namespace {

// on-demand 4.00, reserved 2.00, spot 1.00 at shares 0.25 / 0.5 / 0.25.
constexpr char kPrices[] = R"(
name = "test-cloud"
source = "test figures"
[gpu_hour]
on_demand = 4.00
reserved = 2.00
spot = 1.00
[shares]
on_demand = 0.25
reserved = 0.5
spot = 0.25
[billing]
increment_minutes = 1
[storage]
per_tb_month = 20.0
tb_held = 73
[network]
per_tb_egress = 50
tb_egress = 2
)";

PriceModel Prices() {
  auto p = ParsePriceModel(kPrices, "prices.toml");
  EXPECT_TRUE(p.ok()) << p.status().message();
  return *p;
}

TEST(PriceModelTest, ReadsEveryLine) {
  PriceModel p = Prices();
  EXPECT_EQ(p.name, "test-cloud");
  EXPECT_EQ(p.currency, "USD");
  EXPECT_DOUBLE_EQ(p.on_demand_per_gpu_hour, 4.0);
  EXPECT_DOUBLE_EQ(p.reserved_share, 0.5);
  EXPECT_EQ(p.billing_increment_minutes, 1);
  EXPECT_DOUBLE_EQ(p.storage_tb_held, 73);
  EXPECT_DOUBLE_EQ(p.network_per_tb_egress, 50);
}

TEST(PriceModelTest, ShippedExampleReads) {
  auto p = LoadPriceModel(std::string(YS_SOURCE_DIR) + "/examples/prices.toml");
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_GT(BlendedPricePerGpuHour(*p), 0);
}

std::string Error(const std::string& text) {
  auto p = ParsePriceModel(text, "bad.toml");
  EXPECT_FALSE(p.ok());
  return p.ok() ? "" : p.status().message();
}

constexpr char kMinimal[] =
    "[gpu_hour]\non_demand = 4.0\nreserved = 2.0\nspot = 1.0\n"
    "[shares]\non_demand = 0.25\nreserved = 0.5\nspot = 0.25\n";

TEST(PriceModelTest, MinimalReads) {
  auto p = ParsePriceModel(kMinimal, "min.toml");
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->storage_tb_held, 0);
  EXPECT_EQ(p->billing_increment_minutes, 1);
}

TEST(PriceModelTest, UnknownKeyNamesKeyAndLine) {
  std::string e =
      Error(std::string(kMinimal) + "[network]\nper_tb_egress = 1\ntb_egress = 1\nper_gb = 3\n");
  EXPECT_NE(e.find("bad.toml"), std::string::npos) << e;
  EXPECT_NE(e.find("[network]"), std::string::npos) << e;
  EXPECT_NE(e.find("bad.toml:12: [network] per_gb: unknown key"), std::string::npos) << e;
  std::string top = Error(std::string("discount = 0.1\n") + kMinimal);
  EXPECT_NE(top.find("bad.toml:1: discount: unknown key"), std::string::npos) << top;
}

TEST(PriceModelTest, NegativePriceNamesKeyAndLine) {
  std::string e = Error(
      "[gpu_hour]\non_demand = 4.0\nreserved = -2.0\nspot = 1.0\n"
      "[shares]\non_demand = 0.25\nreserved = 0.5\nspot = 0.25\n");
  EXPECT_NE(e.find("bad.toml:3: [gpu_hour] reserved: -2 is out of range (expected a number from 0 "
                   "to 1e+06)"),
            std::string::npos)
      << e;
}

TEST(PriceModelTest, SharesNotSummingToOne) {
  std::string e = Error(
      "[gpu_hour]\non_demand = 4.0\nreserved = 2.0\nspot = 1.0\n"
      "[shares]\non_demand = 0.25\nreserved = 0.5\nspot = 0.5\n");
  EXPECT_NE(e.find("bad.toml:5: [shares]: "), std::string::npos) << e;
  EXPECT_NE(e.find("= 1.25, expected them to sum to 1"), std::string::npos) << e;
}

TEST(PriceModelTest, WrongTypeNamesKeyAndLine) {
  std::string e = Error(
      "[gpu_hour]\non_demand = \"4 dollars\"\nreserved = 2.0\nspot = 1.0\n"
      "[shares]\non_demand = 0.25\nreserved = 0.5\nspot = 0.25\n");
  EXPECT_NE(e.find("bad.toml:2: [gpu_hour] on_demand: expected a number"), std::string::npos) << e;
  std::string inc = Error(std::string(kMinimal) + "[billing]\nincrement_minutes = 0.5\n");
  EXPECT_NE(inc.find("bad.toml:10: [billing] increment_minutes: expected a whole number"),
            std::string::npos)
      << inc;
  std::string table = Error("gpu_hour = 3\n");
  EXPECT_NE(table.find("bad.toml:1: gpu_hour: expected a table"), std::string::npos) << table;
}

TEST(PriceModelTest, MissingTableAndKey) {
  EXPECT_NE(Error("name = \"x\"\n").find("missing [gpu_hour]"), std::string::npos);
  std::string e = Error(
      "[gpu_hour]\non_demand = 4.0\nreserved = 2.0\n"
      "[shares]\non_demand = 0.25\nreserved = 0.5\nspot = 0.25\n");
  EXPECT_NE(e.find("bad.toml:1: [gpu_hour] spot: missing; expected a number"), std::string::npos)
      << e;
}

TEST(PriceModelTest, SyntaxErrorNamesLine) {
  EXPECT_NE(Error("[gpu_hour\n").find("bad.toml:1:"), std::string::npos);
}

TEST(CostModelTest, BlendedPrice) {
  // 0.25 × 4 + 0.5 × 2 + 0.25 × 1 = 1 + 1 + 0.25 = 2.25 $/GPU-h.
  EXPECT_DOUBLE_EQ(BlendedPricePerGpuHour(Prices()), 2.25);
}

TEST(CostModelTest, CostPerMillionTokens) {
  // 2.25 $/GPU-h ÷ (1000 tokens/s × 3600 s/h) × 1e6 = 2.25 ÷ 3.6e6 × 1e6 = 0.625 $.
  auto c = CostPerMillionTokens(2.25, 1000);
  ASSERT_TRUE(c.ok());
  EXPECT_NEAR(*c, 0.625, 1e-12);
  EXPECT_FALSE(CostPerMillionTokens(2.25, 0).ok());
}

TEST(CostModelTest, CostAndDaysToTrain) {
  // 15T tokens at 1000 tokens/s/GPU on 1024 GPUs: 1.5e13 ÷ 1.024e6 = 14,648,437.5 s
  // = 169.5421 days; 244,140.625 minutes -> 244,141 billed minutes = 4069.01667 h.
  // GPU-hours = 4069.01667 × 1024 = 4,166,673.07; compute = × 2.25 = 9,375,014.4 $.
  // Storage = 20 $/TB-month × 73 TB × 4069.01667 h ÷ 730 h = 1460 × 5.57399543 = 8138.03 $.
  // Network = 50 × 2 = 100 $.
  auto c = CostToTrain(Prices(), 1000, 1024, 15e12);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_NEAR(c->wall_days, 14648437.5 / 86400, 1e-9);
  EXPECT_NEAR(c->wall_days, 169.5421, 1e-4);
  EXPECT_EQ(c->billed_minutes, 244141);
  EXPECT_NEAR(c->gpu_hours_billed, 244141.0 / 60 * 1024, 1e-6);
  EXPECT_NEAR(c->compute_cost, 9375014.4, 0.01);
  EXPECT_NEAR(c->storage_cost, 8138.03, 0.01);
  EXPECT_DOUBLE_EQ(c->network_cost, 100);
  EXPECT_NEAR(c->total_cost, 9375014.4 + 8138.03 + 100, 0.02);
}

TEST(CostModelTest, BillingRoundsUpToTheIncrement) {
  // 1e6 tokens at 1000 tokens/s on 10 GPUs = 100 s = 1.67 min -> 2 minutes per-minute billing;
  // compute = 2/60 h × 10 GPUs × 2.25 = 0.75 $.
  PriceModel p = Prices();
  p.storage_tb_held = 0;
  p.network_tb_egress = 0;
  auto c = CostToTrain(p, 1000, 10, 1e6);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->billed_minutes, 2);
  EXPECT_NEAR(c->compute_cost, 0.75, 1e-12);
  // Exactly 120 s is 2 minutes, not 3.
  auto exact = CostToTrain(p, 1000, 10, 1.2e6);
  EXPECT_EQ(exact->billed_minutes, 2);
  // Hourly billing (increment 60): 100 s -> 60 minutes; 10 GPU-h × 2.25 = 22.5 $.
  p.billing_increment_minutes = 60;
  auto hourly = CostToTrain(p, 1000, 10, 1e6);
  EXPECT_EQ(hourly->billed_minutes, 60);
  EXPECT_NEAR(hourly->compute_cost, 22.5, 1e-12);
  EXPECT_FALSE(CostToTrain(p, 1000, 0, 1e6).ok());
  EXPECT_FALSE(CostToTrain(p, 1000, 10, 0).ok());
}

TEST(CostModelTest, GapToReference) {
  // At 90% of reference: 1/0.9 − 1 = 0.1111 ("costs 11.1% more").
  auto f = GapExtraFraction(0.9);
  ASSERT_TRUE(f.ok());
  EXPECT_NEAR(*f, 0.111111, 1e-6);
  EXPECT_NEAR(*GapExtraFraction(0.5), 1.0, 1e-12);
  EXPECT_FALSE(GapExtraFraction(0).ok());
  // 900 vs 1000 tokens/s/GPU, 3.6e9 tokens on 10 GPUs, no storage or network:
  // measured 3.6e9 ÷ 9000 = 400,000 s = 6666.67 min -> 6667 min; × 10 GPUs ÷ 60 × 2.25 = 2500.125
  // $. reference 3.6e9 ÷ 10000 = 360,000 s = 6000 min; 1000 GPU-h × 2.25 = 2250 $. Extra 250.125 $.
  PriceModel p = Prices();
  p.storage_tb_held = 0;
  p.network_tb_egress = 0;
  auto g = CostOfGap(p, 900, 1000, 10, 3.6e9);
  ASSERT_TRUE(g.ok());
  EXPECT_NEAR(g->score, 0.9, 1e-12);
  EXPECT_NEAR(g->at_measured.total_cost, 2500.125, 1e-9);
  EXPECT_NEAR(g->at_reference.total_cost, 2250, 1e-9);
  EXPECT_NEAR(g->extra_cost, 250.125, 1e-9);
}

TEST(CostModelTest, CompareProfiles) {
  // A: 2.25 $/GPU-h at 1000 tokens/s/GPU; B: 3.00 $/GPU-h (on-demand only) at 1500 tokens/s/GPU.
  // 3.6e9 tokens on 10 GPUs. A: 360,000 s = 6000 min = 1000 GPU-h -> 2250 $.
  // B: 240,000 s = 4000 min = 666.667 GPU-h -> 2000 $. B is cheaper by 250 $; A costs 12.5% more.
  PriceModel a = Prices();
  a.storage_tb_held = 0;
  a.network_tb_egress = 0;
  PriceModel b = a;
  b.on_demand_per_gpu_hour = 3.0;
  b.on_demand_share = 1;
  b.reserved_share = 0;
  b.spot_share = 0;
  auto c = CompareProfiles({"a", a, 1000}, {"b", b, 1500}, 10, 3.6e9);
  ASSERT_TRUE(c.ok());
  EXPECT_NEAR(c->a.total_cost, 2250, 1e-9);
  EXPECT_NEAR(c->b.total_cost, 2000, 1e-9);
  EXPECT_EQ(c->cheaper, "b");
  EXPECT_NEAR(c->saving, 250, 1e-9);
  EXPECT_NEAR(c->dearer_extra, 0.125, 1e-12);
  // With storage and network lines on B: + 1460 $/month × (4000/60 h ÷ 730) + 100 = 133.33 + 100.
  b.storage_per_tb_month = 20;
  b.storage_tb_held = 73;
  b.network_per_tb_egress = 50;
  b.network_tb_egress = 2;
  auto d = CompareProfiles({"a", a, 1000}, {"b", b, 1500}, 10, 3.6e9);
  EXPECT_NEAR(d->b.total_cost, 2000 + 1460 * (4000.0 / 60 / 730) + 100, 1e-9);
  EXPECT_EQ(d->cheaper, "b");
}

TEST(CostModelTest, TokenCounts) {
  EXPECT_DOUBLE_EQ(*ParseTokenCount("15T"), 15e12);
  EXPECT_DOUBLE_EQ(*ParseTokenCount("300B"), 300e9);
  EXPECT_DOUBLE_EQ(*ParseTokenCount("2.5e12"), 2.5e12);
  EXPECT_DOUBLE_EQ(*ParseTokenCount("4K"), 4e3);
  EXPECT_FALSE(ParseTokenCount("").ok());
  EXPECT_FALSE(ParseTokenCount("15X").ok());
  EXPECT_FALSE(ParseTokenCount("-1T").ok());
}

// 1e300 tokens once printed negative billed minutes and costs with exit 0.
TEST(CostModelTest, TokenBudgetsPastTheBoundAreRefused) {
  EXPECT_DOUBLE_EQ(*ParseTokenCount("1e18"), 1e18);
  for (const char* text : {"1e300", "2000000T", "inf", "nan", "1e-320", "0", "0.5"}) {
    auto t = ParseTokenCount(text, "--tokens");
    ASSERT_FALSE(t.ok()) << text;
    EXPECT_NE(t.status().message().find("--tokens: "), std::string::npos) << t.status().message();
  }
  EXPECT_EQ(ParseTokenCount("1e300", "--tokens").status().message(),
            "--tokens: 1e+300 is out of range (expected a number from 1 to 1e+18)");
}

TEST(CostModelTest, BilledMinutesAreNeverNegative) {
  // The largest budget at the smallest throughput is refused, not cast to a negative count.
  auto slow = CostToTrain(Prices(), kMinTokensPerSPerGpu, 1, kMaxTokens);
  ASSERT_FALSE(slow.ok());
  EXPECT_NE(slow.status().message().find("more than 2^53 billed minutes"), std::string::npos)
      << slow.status().message();
  auto big = CostToTrain(Prices(), 1000, 1024, kMaxTokens);
  ASSERT_TRUE(big.ok()) << big.status().message();
  EXPECT_GT(big->billed_minutes, 0);
  EXPECT_TRUE(std::isfinite(big->total_cost));
  EXPECT_GT(big->total_cost, 0);
  EXPECT_FALSE(CostToTrain(Prices(), 1000, 8, 1e300).ok());
  EXPECT_FALSE(CostToTrain(Prices(), std::nan(""), 8, 1e12).ok());
}

// Every figure of a price file is finite and within its stated range, or refused naming the file,
// the table and key, the value and the range.
TEST(PriceModelTest, OutOfRangeFiguresAreRefused) {
  struct Key {
    const char* line;
    const char* where;
  };
  const Key keys[] = {
      {"on_demand = 4.00", "prices.toml:5: [gpu_hour] on_demand: "},
      {"reserved = 0.5", "prices.toml:10: [shares] reserved: "},
      {"per_tb_month = 20.0", "prices.toml:15: [storage] per_tb_month: "},
      {"tb_egress = 2", "prices.toml:19: [network] tb_egress: "},
  };
  for (const Key& k : keys) {
    std::string key(k.line, std::string_view(k.line).find(" = "));
    for (const char* v : {"nan", "+inf", "-inf", "-1", "1e300"}) {
      std::string text = kPrices;
      text.replace(text.find(k.line), std::string_view(k.line).size(), key + " = " + v);
      auto p = ParsePriceModel(text, "prices.toml");
      ASSERT_FALSE(p.ok()) << key << " = " << v;
      EXPECT_NE(p.status().message().find(std::string(k.where) + ""), std::string::npos)
          << p.status().message();
      EXPECT_NE(p.status().message().find("is out of range (expected a number from 0 to "),
                std::string::npos)
          << p.status().message();
    }
  }
  std::string text = kPrices;
  text.replace(text.find("increment_minutes = 1"), 21, "increment_minutes = 9223372036854775808");
  auto past = ParsePriceModel(text, "prices.toml");
  ASSERT_FALSE(past.ok());
  EXPECT_NE(past.status().message().find("prices.toml:"), std::string::npos);
}

}  // namespace
}  // namespace ys::cost
