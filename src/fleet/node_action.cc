#include "fleet/node_action.h"

#include <fmt/format.h>

namespace ys::fleet {

FleetAction RowAction(bool drain, bool watch) {
  if (watch) return FleetAction::kWatch;
  return drain ? FleetAction::kDrain : FleetAction::kNone;
}

const char* FleetActionName(FleetAction a) {
  switch (a) {
    case FleetAction::kDrain:
      return "drain";
    case FleetAction::kWatch:
      return "watch";
    case FleetAction::kNone:
      return "none";
  }
  return "none";
}

std::string FleetActionMeaning(FleetAction a, double drain_loss) {
  switch (a) {
    case FleetAction::kDrain:
      return fmt::format(
          "take the node out of service (merge --format slurm lists it): a row's expected "
          "training-throughput loss reaches {:.1f}% and its z passes the family-wise bar, or a "
          "fault that is no measurement (a failed check, missing units, a version or hardware "
          "mismatch)",
          100 * drain_loss);
    case FleetAction::kWatch:
      return fmt::format(
          "keep it in service and measure it again: its rows stand out from their peers, but "
          "each costs less than the {:.1f}% loss that drains or its evidence falls short of the "
          "family-wise bar",
          100 * drain_loss);
    case FleetAction::kNone:
      return "nothing to do on the node itself: its rows are about the documents (a duplicate or "
             "corrupt input the merge found)";
  }
  return "";
}

void NodeActions::Add(const std::string& node, FleetAction row, const std::string& what) {
  auto [it, fresh] = index_.try_emplace(node, nodes_.size());
  if (fresh) nodes_.push_back({.node = node, .action = row});
  NodeAction& n = nodes_[it->second];
  ++n.rows;
  if (row > n.action) {  // a more severe row decides the node: its evidence alone
    n.action = row;
    n.evidence.clear();
  }
  if (row == n.action) n.evidence += (n.evidence.empty() ? "" : "; ") + what;
}

}  // namespace ys::fleet
