#include "history/compare.h"

#include <deque>
#include <map>
#include <tuple>

namespace ys::history {
namespace {

using Key = std::tuple<std::string, std::string, std::string>;
Key KeyOf(const MeasurementRow& m) { return {m.name, m.params, m.node}; }

Observed ObservedOf(const MeasurementRow& m) {
  Observed o{m.value, m.stats};
  if (o.stats.n == 0 && !m.samples.empty()) o.stats = ComputeStats(m.samples);
  return o;
}

}  // namespace

Comparison CompareRows(const std::vector<MeasurementRow>& a, const std::vector<MeasurementRow>& b) {
  std::map<Key, std::deque<size_t>> in_a;
  for (size_t i = 0; i < a.size(); ++i) in_a[KeyOf(a[i])].push_back(i);
  std::vector<bool> used(a.size(), false);
  Comparison c;
  for (const MeasurementRow& mb : b) {
    auto it = in_a.find(KeyOf(mb));
    if (it == in_a.end() || it->second.empty()) {
      c.only_b.push_back(mb);
      continue;
    }
    size_t i = it->second.front();
    it->second.pop_front();
    used[i] = true;
    c.both.push_back({a[i], mb, CompareObserved(ObservedOf(a[i]), ObservedOf(mb), mb.better)});
  }
  for (size_t i = 0; i < a.size(); ++i) {
    if (!used[i]) c.only_a.push_back(a[i]);
  }
  return c;
}

}  // namespace ys::history
