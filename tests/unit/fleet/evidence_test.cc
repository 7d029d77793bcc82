// The fleet census counts nodes, not documents: several documents of one node (runs on different
// days) count once in "on N of M nodes", in the fleet's size and in each code's and unit's count,
// also when the documents were read by different threads and their censuses merged.
#include "fleet/evidence.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ys::fleet {
namespace {

DocumentDigest DocOf(const std::string& node, const std::string& code) {
  DocumentDigest d;
  d.source = node + "-" + code + ".json";
  d.model = "NVIDIA H100 80GB HBM3";
  NodeFacts f;
  f.node = node;
  if (!code.empty()) f.codes[code] = {Severity::kWarn, "gpu0", "seen"};
  f.units["gpu.ecc"] = Outcome::kPass;
  f.versions["driver"] = "580.65.06";
  d.facts.push_back(f);
  return d;
}

TEST(FleetCensusTest, FourDocumentsOfOneNodeAreOneNode) {
  FleetCensus c;
  for (int i = 0; i < 4; ++i) c.Add(DocOf("gpu-node-07", "YS-GPU-006"));
  EXPECT_EQ(c.nodes(), 1U);
  bool said = false;
  for (const std::string& w : c.Warnings()) {
    if (w.find("YS-GPU-006") == std::string::npos) continue;
    said = true;
    EXPECT_NE(w.find("on 1 of 1 nodes"), std::string::npos) << w;
  }
  EXPECT_TRUE(said);
  // The node is still flagged for its several documents, each of them judged.
  std::vector<RankedFinding> rows;
  c.Judge(DocOf("gpu-node-07", "YS-GPU-006"), rows);
  bool duplicate = false;
  for (const RankedFinding& r : rows) duplicate |= r.kind == "duplicate";
  EXPECT_TRUE(duplicate);
}

TEST(FleetCensusTest, CensusesOfThreadsMergeByNode) {
  FleetCensus a, b;
  a.Add(DocOf("n1", "YS-GPU-006"));
  a.Add(DocOf("n2", ""));
  b.Add(DocOf("n1", "YS-GPU-006"));  // n1's second document, read by another thread
  b.Add(DocOf("n3", "YS-GPU-006"));
  a.Merge(b);
  EXPECT_EQ(a.nodes(), 3U);
  bool said = false;
  for (const std::string& w : a.Warnings()) {
    if (w.find("YS-GPU-006") == std::string::npos) continue;
    said = true;
    EXPECT_NE(w.find("on 2 of 3 nodes"), std::string::npos) << w;
  }
  EXPECT_TRUE(said);
}

}  // namespace
}  // namespace ys::fleet
