// Grouping a node's scored figures for pass 2 of fleet analysis (fleet/judge.cc, fleet/pool.cc):
// what a std::map<Key, std::vector<const Scored*>> filled figure by figure gives (the groups in
// the key's order, each group's figures in the order they were added), from one vector sorted
// once, without a map node per key nor a vector per group. Keys are views into the figures.
#ifndef YARDSTICK_FLEET_GROUPS_H_
#define YARDSTICK_FLEET_GROUPS_H_

#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

#include "fleet/fleet.h"

namespace ys::fleet {

// A device entity's label without its port ("mlx5_2/1" -> "mlx5_2"): BareLabel of a GPU or NIC,
// as a view into the entity.
inline std::string_view BareLabelView(const Entity& e) {
  std::string_view label = e.label;
  return label.substr(0, label.find('/'));
}

template <typename Key>
using GroupMembers = std::vector<std::pair<Key, const FleetJudge::Scored*>>;

// Sorts members (key, figure) by key, stably: the figures of a key keep their order.
template <typename Key>
void SortMembers(GroupMembers<Key>& members) {
  std::stable_sort(members.begin(), members.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
}

// Calls f(key, group) for each distinct key of the sorted members [begin, end), in order, group
// holding its figures in their order. `group` is the caller's buffer (reused).
template <typename It, typename F>
void ForEachGroup(It begin, It end, std::vector<const FleetJudge::Scored*>& group, F&& f) {
  for (It i = begin; i != end;) {
    group.clear();
    It j = i;
    for (; j != end && !(i->first < j->first); ++j) group.push_back(j->second);
    f(i->first, group);
    i = j;
  }
}

}  // namespace ys::fleet

#endif  // YARDSTICK_FLEET_GROUPS_H_
