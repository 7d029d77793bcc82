// What fleet analysis keeps of one run document between its two passes: each figure reduced to
// its key (an id of the pass-1 accumulator that saw it), node, entity, peer, value, sample spread
// and pct_of_peak, and the node's non-numeric facts (finding codes, units, versions, GPU model,
// incomplete). About 30 bytes a figure: `merge` reads each document's JSON once, writes its
// digest to a temporary file of its thread, and judges in pass 2 from the digests.
#ifndef YARDSTICK_FLEET_DIGEST_H_
#define YARDSTICK_FLEET_DIGEST_H_

#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/run_document.h"
#include "core/status.h"
#include "fleet/fleet.h"
#include "fleet/reader.h"

namespace ys::fleet {

// A node's facts besides its figures (fleet/evidence.h).
struct NodeFacts {
  struct Code {
    Severity severity = Severity::kWarn;
    std::string entity, message;
  };
  std::string node;
  std::map<std::string, Code> codes;     // finding code -> its worst finding on the node
  std::map<std::string, Outcome> units;  // unit id -> outcome (pass/warn/fail if it ran anywhere)
  std::map<std::string, std::string> versions;  // field -> value
};

struct DocumentDigest {
  struct Figure {
    uint32_t key = 0;                        // FleetAccumulator id
    uint32_t node = 0, entity = 0;           // into labels
    uint32_t peer = UINT32_MAX;              // into labels; UINT32_MAX: none
    uint8_t entity_kind = 0, peer_kind = 0;  // EntityKind
    double value = 0;
    float spread = -1;       // relative stdev of the samples, -1 unknown
    float pct_of_peak = -1;  // -1: none
  };
  std::string source;
  std::string model;  // GpuModelOf
  std::vector<std::string> labels;
  std::vector<Figure> figures;
  bool incomplete = false;
  std::string incomplete_reason;
  std::vector<std::string> lost;  // host names of the document's lost ranks
  std::vector<NodeFacts> facts;
};

std::vector<NodeFacts> FactsOf(const RunDocument& doc);

// The digest of `doc`, its figures added to `accumulator` (whose ids the digest holds).
DocumentDigest Digest(const RunDocument& doc, const std::string& source,
                      FleetAccumulator& accumulator);

// The same of a document read by the lean reader, its shapes from `shapes` (the cache it was read
// with, which remembers each shape's accumulator id: one cache per accumulator).
DocumentDigest Digest(const FleetDocument& doc, const std::string& source,
                      FleetAccumulator& accumulator, ShapeCache& shapes);

// A temporary file of digests, removed when closed (unlinked at once). Not thread-safe.
class DigestSpill {
 public:
  static Result<std::unique_ptr<DigestSpill>> Create();
  ~DigestSpill();
  DigestSpill(const DigestSpill&) = delete;
  DigestSpill& operator=(const DigestSpill&) = delete;

  Status Write(const DocumentDigest& d);
  Status Rewind();
  // False at the end; Invalid when the file is damaged.
  Result<bool> Read(DocumentDigest* d);
  uint64_t bytes() const { return bytes_; }

 private:
  explicit DigestSpill(std::FILE* f) : file_(f) {}
  std::FILE* file_;
  uint64_t bytes_ = 0;
};

}  // namespace ys::fleet

#endif  // YARDSTICK_FLEET_DIGEST_H_
