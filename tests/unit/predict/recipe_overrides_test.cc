// LayOver: a field the overrides set replaces the entry's; one left empty keeps it; "none" clears
// the module precision.
#include "predict/recipe_overrides.h"

#include <gtest/gtest.h>

namespace ys::predict {
namespace {

TEST(RecipeOverridesTest, SetFieldsReplaceAndEmptyOnesKeep) {
  predict::Parallelism p;
  p.tp = 4;
  p.pp = 2;
  p.recompute = "selective";
  p.moe_dispatcher = "deepep";
  RecipeOverrides o;
  o.tp = 8;
  o.fsdp = true;
  o.recompute = "full";
  o.recompute_layers = 3;
  LayOver(o, p);
  EXPECT_EQ(p.tp, 8);
  EXPECT_EQ(p.pp, 2);  // not set: the entry's
  EXPECT_TRUE(p.fsdp);
  EXPECT_EQ(p.recompute, "full");
  EXPECT_EQ(p.recompute_layers, 3);
  EXPECT_EQ(p.moe_dispatcher, "deepep");
}

TEST(RecipeOverridesTest, NoneClearsTheModulePrecision) {
  predict::Parallelism p;
  p.module_precision = "attention=bf16";
  RecipeOverrides keep;
  LayOver(keep, p);
  EXPECT_EQ(p.module_precision, "attention=bf16");
  RecipeOverrides clear;
  clear.module_precision = "none";
  LayOver(clear, p);
  EXPECT_EQ(p.module_precision, "");
}

}  // namespace
}  // namespace ys::predict
