// `yardstick merge`: fleet analysis over per-node run documents from many jobs, streamed from
// disk twice (fleet.h), never all held at once.
#ifndef YARDSTICK_FLEET_MERGE_H_
#define YARDSTICK_FLEET_MERGE_H_

#include <functional>
#include <string>
#include <vector>

#include "core/run_document.h"
#include "core/status.h"
#include "fleet/fleet.h"
#include "fleet/inputs.h"  // ForEachInputDocument: what the inputs name

namespace ys::fleet {

struct MergeOptions {
  FleetOptions fleet;
  bool keep_going = false;  // skip malformed documents (listed in the report) instead of failing
  unsigned threads = 0;     // documents read in parallel; 0: one per core
};

// Pass 1 reads each document's JSON once, in parallel (fleet/reader.h), adds its figures to the
// thread's accumulator and census and writes its digest (fleet/digest.h) to the thread's temporary
// file; pass 2 judges from the digests, and reads again the few with an entity beyond its peers'
// threshold for its rows. The same file named twice (same inode, or the same bytes
// under another name) is counted once and reported (kind duplicate). Fails on the first malformed
// document unless keep_going, which skips it, lists it and ranks it (kind corrupt: the verdict is
// then never pass); fails when no document could be read. Memory: the paths, the keys'
// histograms, the census (fleet/evidence.h) and what is reported, not the documents: about 30
// bytes a figure go to $TMPDIR (or /tmp) instead.
Result<FleetReport> MergeFleet(const std::vector<std::string>& inputs, const MergeOptions& options);

}  // namespace ys::fleet

#endif  // YARDSTICK_FLEET_MERGE_H_
