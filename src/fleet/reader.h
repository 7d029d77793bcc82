// A lean reader of run documents for fleet analysis: it reads the text once, without building a
// JSON tree, and keeps only what the fleet uses: the host and tool, `incomplete`, the ranks'
// states, every check and benchmark (id, outcome, summary, findings' code, severity and entity,
// evidence), every measurement (name, value, unit, better, params, stats) and each node of a
// multi-rank document; samples, tables, diagnosis and burn-in are skipped, and of a measurement's
// params only those fleet analysis reads are kept: the identity (fleet/key.h), the entity-naming
// ones, pct_of_peak and versions (IsVersionParam). It is several times faster than the full reader
// (core/run_document_json.h), which is what bounds `merge` at 10,000 nodes.
//
// It accepts only what the full reader accepts of those fields (the same required fields and
// types); on anything else it says no without a message, and the caller asks the full reader
// (ReadRunDocument), whose message names the file and field. A test checks that both readers
// give the same document on the fixtures. Thread-safe: no shared state.
#ifndef YARDSTICK_FLEET_READER_H_
#define YARDSTICK_FLEET_READER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/run_document.h"
#include "fleet/key.h"

namespace ys::fleet {

// What a measurement is, apart from its value: its name, unit, direction and the params the fleet
// keeps (all but pct_of_peak), and what fleet analysis derives from them. Many documents share
// each shape (the same benchmark on the same device), so the reader interns shapes and the
// derivation (comparison key, entity, peer, versions) runs once per shape, not once per figure.
struct FigureShape {
  Measurement proto;             // name, unit, better, params; no value, stats or pct_of_peak
  std::string key;               // ComparisonKey(proto)
  bool names_gpu_model = false;  // has a "gpu_name" param (FleetKeyOf)
  std::string gpu_name;          // its value ("" when none or empty: GpuModelOf ignores it)
  std::string node;              // NodeOf's param ("" when the document's host names the node)
  Entity entity;
  std::optional<Entity> peer;
  std::vector<std::pair<std::string, std::string>> versions;  // non-empty IsVersionParam params
  // The accumulator id of the key under the document's GPU model (FleetKeyOf), for the last model
  // and accumulator.
  const void* id_owner = nullptr;
  bool has_id = false;
  std::string id_model;
  uint32_t id = 0;
  // The digest's label ids of the entity and the peer, for the document of generation `stamp`.
  uint64_t stamp = 0;
  uint32_t entity_label = 0, peer_label = 0;
  // The text of the params object last read into this shape, split around its pct_of_peak value
  // (raw_pct false: it had none; raw_head empty: none kept). A figure whose params are these bytes
  // again, around any pct_of_peak string, has this shape's params and is not scanned again.
  std::string raw_head, raw_tail;
  bool raw_pct = false;
};

// The shapes seen by one thread. Not thread-safe: one per reading thread, used with one
// FleetAccumulator (the shapes remember its ids).
class ShapeCache {
 public:
  // The shape of an identity text (fleet/figure_identity.h), built by `make` when new. Documents of
  // a fleet list their figures in the same order, so the shape that followed the previous figure's
  // shape last time is tried first, by one comparison instead of a hash.
  template <typename Make>
  uint32_t Intern(const std::string& identity, Make&& make) {
    uint32_t guess = last_ == kNone ? first_ : next_[last_];
    if (guess != kNone && *identities_[guess] == identity) return last_ = guess;
    uint32_t id;
    if (auto it = index_.find(identity); it != index_.end()) {
      id = it->second;
    } else {
      id = static_cast<uint32_t>(shapes_.size());
      shapes_.push_back(std::make_unique<FigureShape>(make()));
      identities_.push_back(&index_.emplace(identity, id).first->first);
      next_.push_back(kNone);
    }
    (last_ == kNone ? first_ : next_[last_]) = id;
    return last_ = id;
  }
  // The identity of the shape Intern would try first (nullptr: none), for a caller that compares
  // it with the parts of an identity before building one; TakeGuess then interns it.
  const std::string* Guess() const {
    uint32_t guess = last_ == kNone ? first_ : next_[last_];
    return guess == kNone ? nullptr : identities_[guess];
  }
  const FigureShape* GuessedShape() const {
    uint32_t guess = last_ == kNone ? first_ : next_[last_];
    return guess == kNone ? nullptr : shapes_[guess].get();
  }
  uint32_t TakeGuess() { return last_ = last_ == kNone ? first_ : next_[last_]; }
  // Before a document's first figure (Intern's guess).
  void StartDocument() { last_ = kNone; }
  const FigureShape& Get(uint32_t id) const { return *shapes_[id]; }
  FigureShape& Get(uint32_t id) { return *shapes_[id]; }
  size_t size() const { return shapes_.size(); }
  // A new document's generation (FigureShape::stamp); never 0.
  uint64_t NextGeneration() { return ++generation_; }
  // Between documents: forgets every shape when there are more than `limit` (a fleet whose params
  // name each node would otherwise grow the cache with the fleet).
  void Trim(size_t limit = 1 << 16) {
    if (shapes_.size() <= limit) return;
    shapes_.clear();
    index_.clear();
    identities_.clear();
    next_.clear();
    first_ = last_ = kNone;
  }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  std::unordered_map<std::string, uint32_t> index_;
  std::vector<std::unique_ptr<FigureShape>> shapes_;
  std::vector<const std::string*> identities_;  // by id: its key in index_
  std::vector<uint32_t> next_;                  // by id: the shape that followed it last
  uint32_t first_ = kNone;                      // the first shape of the last document
  uint32_t last_ = kNone;                       // the shape just interned; kNone: none yet
  uint64_t generation_ = 0;
};

// A measurement as the lean reader keeps it: its shape, where it was (group 0: the document's
// measurements, 1: its benchmarks, 2 + j: node j's benchmarks; bench: the benchmark's index
// there), its value and stats, and its pct_of_peak text (in FleetDocument::text).
struct LeanFigure {
  uint32_t shape = 0;
  uint32_t group = 0, bench = 0;
  uint32_t pct_offset = 0, pct_size = 0;
  bool has_pct = false;
  double value = 0;
  SampleStats stats;
};

// A run document as the lean reader keeps it: the document without its measurements, and the
// figures, ordered by group (within a group, in the document's order).
struct FleetDocument {
  RunDocument doc;
  std::vector<LeanFigure> figures;
  std::string text;  // pct_of_peak values
};

// Reads `text` into `out` (reused: its buffers keep their capacity). False when the text is not a
// run document this reader can vouch for.
bool ReadFleetDocument(std::string_view text, ShapeCache& shapes, FleetDocument* out);

// The document, or nullopt when the text is not a run document this reader can vouch for (the
// lean document with its measurements put back: tests and the fuzz target compare it with the
// full reader's).
std::optional<RunDocument> ReadFleetDocument(std::string_view text);

}  // namespace ys::fleet

#endif  // YARDSTICK_FLEET_READER_H_
