// Fleet analysis: every figure (one measurement on one node or device) compared with its peers —
// every figure of the same comparison key (fleet/key.h) across the fleet — by the peer median and
// the median absolute deviation (MAD), in two streaming passes and bounded memory:
//   pass 1  FleetAccumulator::Add: per key, a sparse logarithmic histogram of the values and one
//           of the samples' relative spread (sparse_histogram.h); Finalize() gives each key's
//           median, MAD, spread median and, for a two-mode key, the better mode (below).
//   pass 2  FleetJudge::AddDocument: scores each figure, pools the evidence of each node and each
//           device on it by kind of figure, keeps only what it reports.
// Memory: keys x occupied bins (the spread of the values, not their number) plus what is reported.
//
// A figure's score: robust z = (x - median) / scale with scale = max(1.4826 MAD, noise_floor *
// |median|); badness = z turned so that positive = worse (the measurement's `better`); deficit =
// how much worse than the median, relative. Keys with fewer than min_peers figures, a median of
// 0, or a fleet of fewer than min_fleet documents are not judged against peers (see the spec
// check in fleet/judge.cc).
//
// Pooling (the summary by entity, `slow` and the flagged figures; the ranked list's performance
// rows are judged by "Peers" below). The figures of one kind (gemm, memory, nvlink, ...,
// fleet/key.h) on one entity form a group: on a GPU or NIC its own figures (a GPU-to-GPU copy
// counts for both GPUs of the pair), on the node every figure of that kind on the node. Statistic:
// the median badness of the group's k figures divided by the standard deviation of a median of k
// standard normals (sqrt(pi / 2k)), and the median deficit. Threshold: a group is slow when that
// scaled median reaches z_threshold AND its median deficit reaches min_deficit (isolated_deficit
// when k = 1: a lone figure has no corroboration and single measurements have long tails). The
// median keeps one transient dip among a group's figures from deciding anything. For k = 2 (a
// median of two is their mean, which one dip carries) each figure must be low on its own: both
// min_deficit worse and both at least z_threshold / sqrt(2), i.e. their combined z (z1 + z2) /
// sqrt(2) reaches z_threshold with neither below an even share; the group's z is then sqrt(2)
// times the smaller. (A NIC's two figures, bandwidth and latency, with the latency's 1.6% noise:
// a 10% slow NIC shows latency near z = 5, which a rule of z >= 5 for each misses half the time.)
// Placement: a slow node-wide group is reported on the node (every or most GPUs, NICs slow: the
// median of the node's figures is low); otherwise each slow GPU or NIC on its own. A GPU with slow
// NVLinks is the one whose pairs are slow (its healthy peers each have only one slow pair of
// seven, their median is not). A device on a slow node is reported as well only when its median
// deficit exceeds the node's by min_deficit.
// Deficit interval: median deficit +- 1.96 x 1.2533 s / sqrt(k), s the larger of the group's
// robust spread of deficits (1.4826 MAD) and its figures' median relative scale (the standard
// error of a median of k normal values); for k = 1, the figure's relative scale.
//
// Fleets the median cannot describe. A key whose values fall into two modes (Otsu's split of its
// histogram with each side at least bimodal_min_share of the figures, the modes at least
// min_deficit apart and separated by Ashman's D >= 3) is judged against the better mode's median
// and MAD: a healthy fleet is as fast as its hardware, a slow mode is a group of slow nodes (30%
// or 50% of the fleet 12% slow is found, and reported as a group as well as node by node).
//
// Fleets too small for peers (fewer than min_fleet = 5 documents, or a key with fewer than
// min_peers figures): a figure whose unit gave its share of the spec peak (pct_of_peak, from
// specs/*.toml) is judged against a floor instead: GPU GEMM below 60% of its dense peak
// (spec_gemm_share), HBM, NVLink, PCIe and collectives below 50% of theirs (spec_share). The
// floors are the healthy shares the single-node rules already use: workload.low_mfu
// (diagnose/rules/workload/low_mfu.cc: healthy GEMM reaches 60%+ of the dense peak, collectives
// 50%+) and fabric.collective_bandwidth (diagnose/rules/fabric/collective_bandwidth.cc: below half
// the peak is far below; nccl-tests on healthy NVLink reach 80%+). HBM, NVLink and host copies of
// healthy H100s reach 80-88% of their peaks (tests/fleet/node_model.py), so half the peak is far
// outside health too. Kinds without such a share (CPU GEMM, STREAM, proxies, storage) are not
// judged by the spec: far below peak is normal for them. The deficit reported is the shortfall from
// the floor, (floor - pct) / floor.
//
// Peers: the ranked list's performance rows are judged at the level where a fault lives, against
// the spread between peers' aggregates, never by pooling a node's correlated figures as if they
// were independent (its 24 launch latencies move together with the node). An aggregate is the
// median of a group's figure deficits (the smaller of two, so that one dip cannot carry it; a
// lone figure's own, which must also reach isolated_deficit):
//   node    the node's figures of one kind, against the other nodes' aggregates of that kind;
//   device  a GPU's or NIC's figures of one kind (a GPU-to-GPU copy counts for both ends), less
//           the median aggregate of the other devices of its node of that kind (the node's offset
//           taken out); for figures between two devices (copies), less the median of the node's
//           figures of that kind that do not involve the device (the other devices' aggregates
//           share its pairs, which squeezes their spread and lengthens its tails); against the
//           same contrast on every device of the fleet.
// Between-peer spread, per level and kind (PeerSpread): center the median of the aggregates (0,
// the better mode, for a kind with a two-mode key), scale the larger of 1.4826 x the median
// distance of the aggregates on the better side of the center (healthy by construction, however
// many peers are slow) and, with 250 such aggregates or more, their 98th percentile / 2.326 (a
// tail longer than normal widens it), at least peer_noise_floor, raised by its 95% upper bound
// at small fleets (x (1 + 1.645 x 1.167 / sqrt(n)): the standard error of a MAD of n normal
// values). Threshold: a healthy entity is flagged with probability false_alarms / 10,000, split
// over the kinds judged at its level in proportion to their effect on throughput, at least 0.1
// (weighted Bonferroni, fleet/impact.h FalseAlarmWeight: a miss costs most where the impact is
// largest): z = the normal
// quantile of 1 - that kind's share. The report states the rate, the entities judged and the
// expected count of healthy entities flagged at this fleet size. Action (fleet/impact.h): a
// row's expected throughput loss is its deficit times its kind's effect on training throughput;
// drain when it reaches drain_loss AND its z reaches the family-wise bar (drain_threshold: the
// normal quantile of drain_false_alarms / the entity-kinds judged, so that fewer than
// drain_false_alarms healthy entities are expected drained in the whole fleet), else watch.
//
// Error bound of the histogram (w = bin_relative_width): |median - exact| <= w |median|;
// |MAD - exact| <= w (3 |median| + MAD) (1 + 3w). See MedianErrorBound, MadErrorBound.
#ifndef YARDSTICK_FLEET_FLEET_H_
#define YARDSTICK_FLEET_FLEET_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/run_document.h"
#include "core/status.h"
#include "fleet/key.h"
#include "fleet/sparse_histogram.h"

namespace ys::fleet {

struct FleetOptions {
  double z_threshold = 5.0;        // robust z a figure (or a group's scaled median z) must reach
  double min_deficit = 0.05;       // relative shortfall from the median it must reach as well
  double isolated_deficit = 0.10;  // the shortfall a lone figure must reach (see above)
  double noise_floor = 0.005;      // the scale is at least this fraction of |median|
  int64_t min_peers = 3;           // keys with fewer figures are reported, not judged
  int64_t min_fleet = 5;           // fewer documents: too small to judge peer-wise (spec only)
  double bin_relative_width = 5e-4;
  double bimodal_min_share = 0.05;  // a mode holds at least this share of a key's figures
  double spread_ratio = 4;          // a group's samples spread this many times its peers' median...
  double spread_floor = 0.01;       // ...and at least this (relative stdev) is a spread fault
  double spec_gemm_share = 0.6;     // too few peers: GPU GEMM below 60% of its spec peak is slow
  double spec_share = 0.5;          // ...HBM, NVLink, PCIe, collectives below 50% of theirs
  // Peers (see "Peers" above): healthy entities expected to be flagged per 10,000 judged, the
  // smallest between-peer spread assumed (relative), and the expected throughput loss (relative,
  // fleet/impact.h) from which a performance row is drained rather than watched.
  double false_alarms = 5;
  double peer_noise_floor = 0.002;
  double drain_loss = 0.02;
  // Healthy entities expected to be drained in the whole fleet: a row drains only when its z also
  // reaches the family-wise bar this sets over every entity and kind judged (see "Peers").
  double drain_false_alarms = 0.05;
};

double MedianErrorBound(const FleetOptions& o, double median);
double MadErrorBound(const FleetOptions& o, double median, double mad);
// Standard deviation of the median of k standard normal values (approximation, see above).
double MedianStdev(size_t k);

struct KeyStats {
  std::string key;  // ComparisonKey (with the GPU model of a mixed fleet)
  std::string name, unit;
  Better better = Better::kHigher;
  FigureKind kind = FigureKind::kOther;
  std::map<std::string, std::string> params;  // KeyParams
  uint64_t n = 0;
  double median = 0, mad = 0;  // of the better mode when bimodal
  double scale = 0;            // max(1.4826 MAD, noise_floor |median|)
  double median_error_bound = 0, mad_error_bound = 0;
  size_t bins = 0;  // occupied histogram bins (memory)
  bool judged = false;
  uint64_t outliers = 0;     // figures reported (FleetJudge)
  double spread_median = 0;  // median relative stdev of the samples (0: none recorded)
  // Two modes: the share of figures in the worse mode and how far its median is from the better.
  bool bimodal = false;
  double slow_mode_share = 0, slow_mode_deficit = 0;
};

struct FigureScore {
  bool judged = false;
  double z = 0;        // (x - median) / scale, as defined: negative = below the median
  double badness = 0;  // z turned so that positive = worse (-z for higher-is-better)
  double deficit = 0;  // how much worse than the median, relative: 0.12 = 12% worse
};
FigureScore ScoreFigure(const KeyStats& stats, double value);
// Beyond z_threshold and at least `deficit` worse.
bool IsOutlier(const FigureScore& s, const FleetOptions& o, double deficit);

// The GPU model of a document: its measurements' most common "gpu_name" param ("" when none).
std::string GpuModelOf(const RunDocument& doc);
// The key a measurement of a document of GPU model `model` is compared under: the comparison key,
// and the model for figures that do not name it themselves, so that a fleet of two GPU models is
// split by model (a node's collectives on H200s are not compared with H100 nodes').
std::string FleetKeyOf(const Measurement& m, const std::string& model);

// Pass 1.
class FleetAccumulator {
 public:
  explicit FleetAccumulator(FleetOptions options) : options_(options) {}
  // A measurement whose `better` contradicts the first of its key is added and counted in
  // conflicts(). Values must be finite (JSON cannot carry anything else).
  // Returns the key's id in this accumulator (KeyName), stable for its life.
  uint32_t Add(const Measurement& m) { return Add(m, ComparisonKey(m)); }
  uint32_t Add(const Measurement& m, const std::string& key) {
    uint32_t id = Intern(m, key);
    AddValue(id, m.value, m.stats);
    return id;
  }
  // Add in two steps: the key's id (created from m's name, unit, better and params when new),
  // then a figure of that key. m's value and stats are not read by Intern.
  uint32_t Intern(const Measurement& m, const std::string& key);
  void AddValue(uint32_t id, double value, const SampleStats& stats);
  const std::string& KeyName(uint32_t id) const { return *names_[id]; }
  size_t ids() const { return names_.size(); }
  // Adds what another accumulator (of another thread) saw.
  void Merge(const FleetAccumulator& other);
  // `documents`: how many documents were read (a fleet under min_fleet is judged by the spec only).
  std::map<std::string, KeyStats> Finalize(uint64_t documents = UINT64_MAX) const;
  uint64_t figures() const { return figures_; }
  const std::vector<std::string>& conflicts() const { return conflicts_; }

 private:
  struct Accumulated {
    KeyStats proto;
    SparseHistogram values;
    SparseHistogram spread;
    uint32_t id = 0;
  };
  FleetOptions options_;
  std::unordered_map<std::string, Accumulated> keys_;
  std::vector<const std::string*> names_;  // by id: into keys_ (nodes do not move)
  std::vector<Accumulated*> by_id_;        // by id: into keys_
  uint64_t figures_ = 0;
  std::vector<std::string> conflicts_;  // one line per key
};

// A figure that is an outlier or evidence of a slow node or device.
struct FlaggedFigure {
  std::string node;
  Entity entity;
  std::string key;  // into FleetReport::keys
  double value = 0, median = 0;
  FigureScore score;
  bool outlier = false;       // beyond z_threshold and min_deficit on its own
  std::string attributed_to;  // "node", "gpu", "nic", "device"; empty for a lone outlier
  std::string source;         // the document it came from
};

// A slow node or device over all its figures (the summary by entity, kept beside the ranked list).
struct SlowGroup {
  std::string node;
  Entity entity;           // kind kNode for a slow node
  size_t figures = 0;      // judged figures in the group
  size_t low_figures = 0;  // of which at least min_deficit worse than their median
  double median_deficit = 0;
  double z = 0;  // the group's scaled median z, negative = worse
  std::vector<std::string> sources;
};

// One row of the ranked list: what an operator acts on.
// kind: a FigureKindName for a performance fault, "spread" for jittery samples, or one of the
// non-numeric kinds (fleet/evidence.h): check, missing_units, incomplete, version, hardware,
// duplicate, unreadable.
struct RankedFinding {
  std::string node;
  std::string entity = "node";  // "node", "gpu3", "mlx5_0"
  std::string kind;
  double deficit = 0, deficit_low = 0, deficit_high = 0;  // relative, 0.12 = 12% worse
  double z = 0;        // the group's scaled median badness (positive = worse); 0 when not numeric
  size_t figures = 0;  // figures pooled
  std::string evidence;
  std::string action;  // the fix or the next test
  bool drain = true;   // listed by --format slurm
  bool watch = false;  // a performance row whose expected loss is below drain_loss: not drained
  double loss = 0;     // expected training-throughput loss (relative), fleet/impact.h
  std::vector<std::string> sources;
};

// A key's worse mode, reported as a group.
struct SlowMode {
  std::string key;
  FigureKind kind = FigureKind::kOther;
  double share = 0, deficit = 0;
};

// The between-peer spread of one level (node, gpu, nic) and kind of aggregate (see "Peers").
struct PeerSpread {
  EntityKind level = EntityKind::kNode;
  FigureKind kind = FigureKind::kOther;
  uint64_t n = 0;              // aggregates (entities) seen
  double center = 0;           // relative deficit
  double scale = 0;            // robust spread, raised by its uncertainty (relative)
  double threshold = 0;        // z an entity must reach
  double drain_threshold = 0;  // z a row must reach to be drained (family-wise)
  bool judged = false;         // n >= min_peers
  double Smallest() const { return center + threshold * scale; }  // smallest deficit flagged
};

// Per level and kind, the aggregates of every entity (FleetJudge::Observe, SetPeers).
struct PeerSamples {
  static constexpr size_t kKinds = static_cast<size_t>(FigureKind::kOther) + 1;
  static constexpr size_t kSlots = 3 * kKinds;  // node, gpu, nic
  static size_t Slot(EntityKind level, FigureKind kind);
  std::vector<float> values[kSlots];
  // Each observed document's largest aggregate per slot (`documents` counts the documents), so
  // that only the documents with an entity beyond its threshold are read again (fleet/merge.cc).
  struct Mark {
    uint32_t document;
    uint16_t slot;
    float value;
  };
  std::vector<Mark> marks;
  uint32_t documents = 0;
  // Moves the other's values here (not its marks, which number its own documents).
  void Merge(PeerSamples&& other);
};

struct SkippedDocument {
  std::string path, error;
};

struct FleetReport {
  FleetOptions options;
  uint64_t documents = 0, figures = 0;
  std::map<std::string, KeyStats> keys;
  std::vector<SlowGroup> slow;  // slow nodes, then devices; by node, entity
  std::vector<FlaggedFigure> flagged;
  std::vector<RankedFinding> ranked;  // most severe first
  std::vector<SlowMode> slow_modes;
  std::vector<SkippedDocument> skipped;
  std::vector<std::string> warnings;
  bool too_small = false;          // fewer than min_fleet documents
  std::vector<PeerSpread> peers;   // judged levels and kinds
  std::vector<std::string> nodes;  // every node merged, by name (the fleet page draws them all)
  uint64_t entities = 0;           // nodes and devices judged against peers
  double expected_false_alarms = 0;
  uint64_t tests = 0;  // entities x kinds judged against peers (the family of the drain bar)
  // pass: nothing ranked, nothing skipped, fleet large enough; fail: something ranked;
  // incomplete: documents skipped (--keep-going), nothing else; inconclusive: a fleet too small
  // to judge peer-wise whose spec check found nothing. Exit 0 only for pass.
  std::string Verdict() const;
  bool Healthy() const { return Verdict() == "pass"; }
};

struct DocumentDigest;  // fleet/digest.h

// Pass 2. Evaluate is const and thread-safe (it reads the key statistics only); Record, AddRanked
// and Finish are not: one thread records.
class FleetJudge {
 public:
  FleetJudge(std::map<std::string, KeyStats> stats, FleetOptions options)
      : stats_(std::move(stats)), options_(options) {}
  FleetJudge(const FleetJudge&) = delete;
  FleetJudge& operator=(const FleetJudge&) = delete;

  struct Verdict {
    bool slow = false;
    size_t figures = 0, low = 0;
    double median_deficit = 0, z = 0;  // z negative = worse
    double low_bound = 0, high_bound = 0;
  };
  // What one document shows, before it is recorded.
  struct Findings {
    uint64_t figures = 0;
    struct Slow {
      std::string node;
      Entity entity;
      Verdict verdict;
    };
    std::vector<Slow> slow;
    std::vector<FlaggedFigure> flagged;
    std::vector<RankedFinding> ranked;
    std::string source;
  };

  // `resolve[id]`: the key of the accumulator id a digest's figure holds (nullptr: not judged).
  // With `observe`, the aggregates of the document's nodes and devices go there as well (one
  // pass: SetPeers after it, then PeerRows on the documents PeerDocuments names).
  Findings Evaluate(const DocumentDigest& digest, const std::vector<const KeyStats*>& resolve,
                    PeerSamples* observe = nullptr) const;
  Findings Evaluate(const RunDocument& doc, const std::string& source) const;
  // Pass 2a (thread-safe): the aggregates of the document's nodes and devices, into `out`.
  void Observe(const DocumentDigest& digest, const std::vector<const KeyStats*>& resolve,
               PeerSamples& out) const;
  void Observe(const RunDocument& doc, PeerSamples& out) const;
  // The between-peer spreads from every entity's aggregates; before Evaluate. Without it no
  // performance row is ranked from peers (the spec check still runs).
  void SetPeers(const PeerSamples& samples);
  // After SetPeers: the documents (numbers of `samples.marks`, ascending) with an aggregate
  // beyond its threshold, and their performance rows (thread-safe).
  std::vector<uint32_t> PeerDocuments(const PeerSamples& samples) const;
  std::vector<RankedFinding> PeerRows(const DocumentDigest& digest,
                                      const std::vector<const KeyStats*>& resolve) const;
  // The resolve table of an accumulator's ids.
  std::vector<const KeyStats*> Resolve(const FleetAccumulator& accumulator) const;
  void Record(Findings findings);
  void AddDocument(const RunDocument& doc, const std::string& source) {
    Record(Evaluate(doc, source));
  }
  // A row from other evidence (fleet/evidence.h); the same node, entity and kind is kept once.
  void AddRanked(RankedFinding f) { Rank(std::move(f)); }
  // Sorted, with the same node/device from several documents reported once.
  FleetReport Finish();

  struct Scored {
    const KeyStats* key;  // into stats_
    Entity entity;
    std::optional<Entity> peer;
    double value;
    FigureScore score;
    double spread;       // relative stdev of the samples, -1 when unknown
    double pct_of_peak;  // -1 when the unit gave none
  };

 private:
  struct NodeFigures {
    std::vector<Scored> judged, unjudged;  // against peers; the others (for the spec check only)
  };
  // Each node's figures of a digest (by label id), scored against their keys.
  std::map<uint32_t, NodeFigures> ScoreDigest(const DocumentDigest& d,
                                              const std::vector<const KeyStats*>& resolve) const;
  void JudgeNode(const std::string& node, const std::vector<Scored>& figures, Findings& out) const;
  // The peers' rows of a node (after SetPeers); with `observe`, its aggregates go there too.
  void PoolNode(const std::string& node, const std::vector<Scored>& figures, Findings& out,
                PeerSamples* observe = nullptr) const;
  const PeerSpread* PeerOf(EntityKind level, FigureKind kind) const;
  void JudgeSpread(const std::string& node, const std::vector<Scored>& figures,
                   Findings& out) const;
  void JudgeAgainstSpec(const std::string& node, const std::vector<Scored>& figures,
                        Findings& out) const;
  Verdict JudgeGroup(const std::vector<const Scored*>& group) const;
  void RecordSlow(const std::string& node, const Entity& entity, const Verdict& v,
                  const std::string& source);
  void Rank(RankedFinding f);

  std::map<std::string, KeyStats> stats_;
  FleetOptions options_;
  std::vector<PeerSpread> peers_;  // by PeerSamples::Slot; empty before SetPeers
  uint64_t entities_ = 0, tests_ = 0;
  uint64_t documents_ = 0, figures_ = 0;
  std::map<std::pair<std::string, std::string>, SlowGroup> slow_;  // (node, entity label)
  std::vector<FlaggedFigure> flagged_;
  std::map<std::tuple<std::string, std::string, std::string>, RankedFinding>
      ranked_;  // node, entity, kind
};

// Most severe first: performance faults, failing checks, incomplete and unreadable documents,
// then the rest (warnings, versions, hardware, duplicates, spread); by deficit within each.
void SortRanked(std::vector<RankedFinding>& ranked);

// Every per-node measurement of a run document with the node it belongs to: a one-node
// document's own (top-level, then each benchmark's) under its host name; a multi-rank
// document's per-node benchmarks under each node's name, and, when the job ran on one node, its
// job-level figures (collectives across its ranks, proxies) under that node too. A multi-node
// document's job-level figures are the job's, not any one node's: they are left out.
template <typename F>
void ForEachMeasurement(const RunDocument& doc, F&& f) {
  if (doc.nodes.size() <= 1) {
    const std::string& host = doc.nodes.empty() ? doc.host.hostname : doc.nodes[0].hostname;
    for (const auto& m : doc.measurements) f(m, host);
    for (const auto& b : doc.benchmarks) {
      for (const auto& m : b.measurements) f(m, host);
    }
    if (doc.nodes.empty()) return;
  }
  for (const auto& n : doc.nodes) {
    for (const auto& b : n.benchmarks) {
      for (const auto& m : b.measurements) f(m, n.hostname);
    }
  }
}

}  // namespace ys::fleet

#endif  // YARDSTICK_FLEET_FLEET_H_
