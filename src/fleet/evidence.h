// Non-numeric evidence of fleet analysis: what a node's document says besides its figures, held
// against the fleet. Pass 1 (FleetCensus::Add) counts, per finding code, unit, version value and
// GPU model, how many nodes have it; pass 2 (FleetCensus::Judge) turns each node's rare facts
// into rows of the ranked list:
//   check          a warn or fail finding whose code is on at most rare_share of the nodes (a
//                  code on 1% of nodes is an outlier; one on most nodes is a fleet-wide setting,
//                  reported as a warning);
//   missing_units  units that ran (pass, warn or fail) on at least common_share of the nodes and
//                  not on this one (absent, skipped or in error);
//   incomplete     the document says it is incomplete (its lost ranks' nodes, else every node);
//   version        a version (GPU driver, kernel, yardstick, and every param or check evidence
//                  naming a library, driver, firmware or version) whose value is on at most
//                  rare_share of the nodes while another is on most;
//   hardware       a node whose GPU model is not the fleet's most common one: the fleet is split
//                  by model (fleet.h FleetKeyOf) and this node judged only against its own model;
//   duplicate      a host name in more than one document (the same file twice is counted once,
//                  by fleet/merge.cc, and reported the same way).
// Memory: the distinct codes, units, values and models, and one count per host name.
#ifndef YARDSTICK_FLEET_EVIDENCE_H_
#define YARDSTICK_FLEET_EVIDENCE_H_

#include <map>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "core/run_document.h"
#include "fleet/digest.h"
#include "fleet/fleet.h"

namespace ys::fleet {

class FleetCensus {
 public:
  static constexpr double kRareShare = 0.25;   // at most this share of nodes: an outlier
  static constexpr double kCommonShare = 0.9;  // units on this share of nodes are expected

  void Add(const DocumentDigest& doc);
  // Adds what another census (of another thread) counted.
  void Merge(const FleetCensus& other);
  // Thread-safe (const).
  void Judge(const DocumentDigest& doc, std::vector<RankedFinding>& out) const;
  // Fleet-level observations: mixed GPU models, fleet-wide findings, versions with no majority.
  std::vector<std::string> Warnings() const;
  uint64_t nodes() const { return nodes_; }

 private:
  struct NodeRows;  // where Judge's steps append one node's rows
  // The node's findings whose codes are rare in the fleet (check rows).
  void JudgeRareCodes(const NodeFacts& f, const NodeRows& rows) const;
  // The units common in the fleet that did not run on the node (one missing_units row).
  void JudgeMissingUnits(const NodeFacts& f, const NodeRows& rows) const;
  // The node's versions that are rare while another value is on most nodes (version rows).
  void JudgeVersions(const NodeFacts& f, const NodeRows& rows) const;
  // A GPU model other than the fleet's most common one (a hardware row).
  void JudgeModel(const std::string& model, const NodeRows& rows) const;

  // What was counted, once per node: (kind, key, node); kinds "node", "code", "unit", "model",
  // "version:FIELD". A node's several documents count once in every figure "on N of M nodes".
  using Seen = std::tuple<std::string, std::string, std::string>;
  void Count(const Seen& s);
  std::set<Seen> seen_;
  uint64_t nodes_ = 0;                               // distinct host names
  std::unordered_map<std::string, uint64_t> codes_;  // finding code -> nodes
  std::unordered_map<std::string, uint64_t> units_;  // unit id -> nodes where it ran
  std::map<std::string, std::map<std::string, uint64_t>> versions_;  // field -> value -> nodes
  std::map<std::string, uint64_t> models_;
  std::unordered_map<std::string, uint64_t> hosts_;  // host name -> documents (all counted)
};

}  // namespace ys::fleet

#endif  // YARDSTICK_FLEET_EVIDENCE_H_
