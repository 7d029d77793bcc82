// What each node of the fleet gets, for the node tables of the fleet page and the console: drain,
// watch or none, the most severe action of its rows in the ranked list, with the evidence of the
// rows that decide it. The rule behind each row's drain and watch is fleet/impact.h's; this only
// combines a node's rows and says what each action means.
#ifndef YARDSTICK_FLEET_NODE_ACTION_H_
#define YARDSTICK_FLEET_NODE_ACTION_H_

#include <map>
#include <string>
#include <vector>

namespace ys::fleet {

enum class FleetAction { kNone, kWatch, kDrain };  // in order of severity

// A row of the ranked list: drain (RankedFinding::drain, listed by `merge --format slurm`),
// watch (RankedFinding::watch: below the loss that drains, or evidence short of the family-wise
// bar), else none (a duplicate or corrupt document the merge found). Watch wins, as it always has
// on the console: DecideAction never sets both.
FleetAction RowAction(bool drain, bool watch);
const char* FleetActionName(FleetAction a);  // "drain", "watch", "none"
// What the action means and the evidence it rests on, for the legend; `drain_loss` relative
// (FleetOptions::drain_loss, 0.02 = 2%).
std::string FleetActionMeaning(FleetAction a, double drain_loss);

struct NodeAction {
  std::string node;
  FleetAction action = FleetAction::kNone;
  size_t rows = 0;       // rows of the ranked list on the node
  std::string evidence;  // "gpu3 gemm: ...; node check: ..." of the rows with the node's action
};

// The ranked list's rows, added in its order, combined per node (nodes in the order they first
// appear, so most severe first).
class NodeActions {
 public:
  // `what`: "entity kind: evidence" of the row.
  void Add(const std::string& node, FleetAction row, const std::string& what);
  const std::vector<NodeAction>& nodes() const { return nodes_; }

 private:
  std::vector<NodeAction> nodes_;
  std::map<std::string, size_t> index_;
};

}  // namespace ys::fleet

#endif  // YARDSTICK_FLEET_NODE_ACTION_H_
