// The lean path of `merge` (fleet/reader.h: figures interned by shape, digested without building
// measurements) gives the same digest as the full reader's document: the same GPU model, labels,
// figures (key, node, entity, peer, value, spread, pct_of_peak) and node facts.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "core/document_file.h"
#include "core/run_document_json.h"
#include "fleet/digest.h"
#include "fleet/fixture.h"
#include "fleet/merge.h"
#include "fleet/reader.h"

namespace ys::fleet {
namespace {

// `shapes` and `a` live together (a cache remembers its accumulator's ids), as in a merge thread.
void ExpectSameDigest(const std::string& text, const RunDocument& full, ShapeCache& shapes,
                      FleetAccumulator& a, const std::string& what) {
  FleetDocument lean;
  ASSERT_TRUE(ReadFleetDocument(text, shapes, &lean)) << what;
  FleetAccumulator b{FleetOptions{}};
  uint64_t before = a.figures();
  DocumentDigest x = Digest(lean, "src", a, shapes);
  DocumentDigest y = Digest(full, "src", b);
  EXPECT_EQ(x.model, y.model) << what;
  EXPECT_EQ(x.labels, y.labels) << what;
  ASSERT_EQ(x.figures.size(), y.figures.size()) << what;
  for (size_t i = 0; i < x.figures.size(); ++i) {
    const auto &f = x.figures[i], &g = y.figures[i];
    EXPECT_EQ(a.KeyName(f.key), b.KeyName(g.key)) << what << " figure " << i;
    EXPECT_EQ(std::tie(f.node, f.entity, f.peer, f.entity_kind, f.peer_kind),
              std::tie(g.node, g.entity, g.peer, g.entity_kind, g.peer_kind))
        << what << " figure " << i;
    EXPECT_EQ(f.value, g.value);
    EXPECT_EQ(f.spread, g.spread);
    EXPECT_EQ(f.pct_of_peak, g.pct_of_peak);
  }
  EXPECT_EQ(a.figures() - before, b.figures());
  EXPECT_EQ(x.incomplete, y.incomplete);
  EXPECT_EQ(x.lost, y.lost);
  ASSERT_EQ(x.facts.size(), y.facts.size()) << what;
  for (size_t i = 0; i < x.facts.size(); ++i) {
    EXPECT_EQ(x.facts[i].node, y.facts[i].node);
    EXPECT_EQ(x.facts[i].units, y.facts[i].units);
    EXPECT_EQ(x.facts[i].versions, y.facts[i].versions) << what;
    ASSERT_EQ(x.facts[i].codes.size(), y.facts[i].codes.size());
    for (auto p = x.facts[i].codes.begin(), q = y.facts[i].codes.begin();
         p != x.facts[i].codes.end(); ++p, ++q) {
      EXPECT_EQ(p->first, q->first);
      EXPECT_EQ(p->second.severity, q->second.severity);
      EXPECT_EQ(p->second.entity, q->second.entity);
    }
  }
}

TEST(FleetLeanDigestTest, TheLeanDigestIsTheFullReadersOnTheFixtures) {
  ShapeCache shapes;  // shared, as a reading thread shares it across documents
  FleetAccumulator a{FleetOptions{}};
  for (const char* rel :
       {"/tests/fixtures/runs/report-3node/run.json", "/tests/fixtures/runs/burnin/run.json",
        "/tests/fixtures/exporter/run.json"}) {
    std::string path = std::string(YS_SOURCE_DIR) + rel;
    auto text = ReadDocumentFile(path, DocumentKind::kJson);
    ASSERT_TRUE(text.ok()) << path;
    auto full = ReadRunDocument(path);
    ASSERT_TRUE(full.ok()) << full.status().ToString();
    ExpectSameDigest(*text, *full, shapes, a, path);
    ExpectSameDigest(*text, *full, shapes, a, path + " (again, its shapes known)");
  }
}

TEST(FleetLeanDigestTest, TheLeanDigestIsTheFullReadersOnAFleet) {
  testing::FleetPlan p;
  p.nodes = 6;
  p.gpu_name = "NVIDIA H100 80GB HBM3";
  ShapeCache shapes;
  FleetAccumulator a{FleetOptions{}};
  for (const RunDocument& d : testing::MakeFleetDocuments(p)) {
    std::string text = DumpJson(ToJson(d));
    auto j = nlohmann::json::parse(text);
    auto full = RunDocumentFromJson(j);
    ASSERT_TRUE(full.ok());
    ExpectSameDigest(text, *full, shapes, a, d.host.hostname);
  }
}

// A figure whose params are the bytes last read into its shape is not scanned again
// (FigureShape::raw_head): another pct_of_peak (plain or escaped), a changed param, and a params
// object broken after the pct_of_peak value each read as the full reader reads them.
TEST(FleetLeanDigestTest, ParamsReadAgainAreTheFullReaders) {
  testing::FleetPlan p;
  p.nodes = 1;
  std::string text = DumpJson(ToJson(testing::MakeFleetDocuments(p).front()));
  size_t pct = text.find("\"pct_of_peak\"");
  ASSERT_NE(pct, std::string::npos);
  size_t open = text.find('"', text.find(':', pct)), close = text.find('"', open + 1);
  auto with_pct = [&](const std::string& value) {
    return std::string(text).replace(open, close + 1 - open, value);
  };
  std::string other_gpu = text;
  size_t gpu = other_gpu.find("\"gpu0\"");
  ASSERT_NE(gpu, std::string::npos);
  other_gpu.replace(gpu, 6, "\"gpu7\"");
  ShapeCache shapes;
  FleetAccumulator a{FleetOptions{}};
  for (const std::string& t :
       {text, with_pct("\"12.5\""), with_pct("\"1\\u0032.5\""), other_gpu, text}) {
    auto full = RunDocumentFromJson(nlohmann::json::parse(t));
    ASSERT_TRUE(full.ok());
    ExpectSameDigest(t, *full, shapes, a, t.substr(open, 12));
  }
  FleetDocument lean;
  for (const std::string& bad : {with_pct("\"12.5\" x"), with_pct("12.5"), with_pct("\"12.5")}) {
    auto j = nlohmann::json::parse(bad, nullptr, /*allow_exceptions=*/false);
    EXPECT_TRUE(j.is_discarded() || !RunDocumentFromJson(j).ok()) << bad.substr(open, 12);
    EXPECT_FALSE(ReadFleetDocument(bad, shapes, &lean)) << bad.substr(open, 12);
  }
}

// A list-valued key given twice (a benchmark's "measurements", the top-level "checks") would be
// appended by the lean reader and replaced by the full one: the lean reader refuses the document
// rather than disagree (a fuzz finding: tests/fuzz/crashes/fleet_document/).
TEST(FleetLeanDigestTest, AListKeyGivenTwiceIsRefused) {
  testing::FleetPlan plan;
  plan.nodes = 1;
  const std::string text = DumpJson(ToJson(testing::MakeFleetDocuments(plan).front()));
  ShapeCache shapes;
  FleetDocument lean;
  ASSERT_TRUE(ReadFleetDocument(text, shapes, &lean));
  for (const char* key : {"\"measurements\": ", "\"checks\": "}) {
    size_t at = text.find(key);
    ASSERT_NE(at, std::string::npos) << key;
    std::string twice = text;
    twice.insert(at, std::string(key) + "[], ");
    EXPECT_FALSE(ReadFleetDocument(twice, shapes, &lean)) << key;
  }
}

// An accumulator id remembered by a shape belongs to the document's GPU model: a document of
// another model gets the key of its own model.
TEST(FleetLeanDigestTest, AShapeGetsTheKeyOfEachDocumentsGpuModel) {
  testing::FleetPlan h100, h200;
  h100.nodes = h200.nodes = 1;
  h200.gpu_name = "NVIDIA H200";
  ShapeCache shapes;
  FleetAccumulator a{FleetOptions{}};
  std::set<std::string> keys;
  for (const auto& plan : {h100, h200}) {
    for (RunDocument d : testing::MakeFleetDocuments(plan)) {
      FleetDocument lean;
      ASSERT_TRUE(ReadFleetDocument(DumpJson(ToJson(d)), shapes, &lean));
      DocumentDigest x = Digest(lean, "src", a, shapes);
      for (const auto& f : x.figures) {
        const std::string& key = a.KeyName(f.key);
        if (key.starts_with("net.")) keys.insert(key);  // names no GPU: keyed by the model
      }
    }
  }
  size_t h100_keys = 0, h200_keys = 0;
  for (const std::string& k : keys) {
    h100_keys += k.find("gpu_model=NVIDIA H100") != std::string::npos;
    h200_keys += k.find("gpu_model=NVIDIA H200") != std::string::npos;
  }
  EXPECT_GT(h100_keys, 0u);
  EXPECT_EQ(h100_keys, h200_keys);
  EXPECT_EQ(h100_keys + h200_keys, keys.size());
}

// Intern's guess (the shape that followed the last one) never changes which shape an identity
// gets: documents in another order, a figure missing, a new one and a new document each still
// find the one shape of each identity, made once.
TEST(FleetLeanDigestTest, TheGuessedShapeIsTheShapeOfTheIdentity) {
  ShapeCache shapes;
  std::map<std::string, uint32_t> first;
  int made = 0;
  auto intern = [&](const std::string& identity) {
    uint32_t id = shapes.Intern(identity, [&] {
      ++made;
      FigureShape s;
      s.key = identity;
      return s;
    });
    EXPECT_EQ(shapes.Get(id).key, identity);
    auto [it, fresh] = first.try_emplace(identity, id);
    EXPECT_EQ(it->second, id) << identity;
  };
  for (const std::vector<std::string>& doc :
       std::vector<std::vector<std::string>>{{"a", "b", "c", "d"},
                                             {"a", "b", "c", "d"},
                                             {"d", "c", "b", "a"},
                                             {"a", "c", "d"},
                                             {"a", "b", "e", "c"},
                                             {"b", "b", "a", "d"}}) {
    shapes.StartDocument();
    for (const std::string& identity : doc) intern(identity);
  }
  EXPECT_EQ(made, 5);
  EXPECT_EQ(shapes.size(), 5u);
}

}  // namespace
}  // namespace ys::fleet
