#include "core/repeated_findings.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <utility>

namespace ys {
namespace {

// "gpu12" -> {"gpu", 12}; nullopt without a plain trailing number ("node", "gpu01", "cpu0-15"
// splits as "cpu0-" and 15, which is fine: only equal prefixes are joined).
std::optional<std::pair<std::string, uint64_t>> NumberedEntity(const std::string& e) {
  size_t digits = e.size();
  while (digits > 0 && e[digits - 1] >= '0' && e[digits - 1] <= '9') --digits;
  const size_t n = e.size() - digits;
  if (n == 0 || n > 9 || (n > 1 && e[digits] == '0')) return std::nullopt;
  return std::make_pair(e.substr(0, digits), std::stoull(e.substr(digits)));
}

// The pieces of one prefix's numbers: "gpu0-gpu3", "gpu5".
void AddRuns(const std::string& prefix, const std::set<uint64_t>& numbers,
             std::vector<std::string>& pieces) {
  for (auto it = numbers.begin(); it != numbers.end();) {
    uint64_t first = *it, last = *it;
    while (++it != numbers.end() && *it == last + 1) last = *it;
    pieces.push_back(prefix + std::to_string(first) +
                     (last > first ? "-" + prefix + std::to_string(last) : ""));
  }
}

}  // namespace

std::string EntitySpan(const std::vector<std::string>& entities) {
  // Prefixes and unnumbered names in the order they first appear; numbers sorted within a prefix.
  std::vector<std::pair<std::string, bool>> order;  // name or prefix, numbered
  std::map<std::string, std::set<uint64_t>> numbers;
  std::set<std::string> seen;
  for (const std::string& e : entities) {
    if (!seen.insert(e).second) continue;
    if (auto n = NumberedEntity(e)) {
      if (numbers.count(n->first) == 0) order.emplace_back(n->first, true);
      numbers[n->first].insert(n->second);
    } else {
      order.emplace_back(e, false);
    }
  }
  std::vector<std::string> pieces;
  for (const auto& [name, numbered] : order) {
    if (numbered) {
      AddRuns(name, numbers[name], pieces);
    } else {
      pieces.push_back(name);
    }
  }
  std::string out;
  for (size_t i = 0; i < pieces.size() && i < kMaxEntityPieces; ++i)
    out += (i == 0 ? "" : ",") + pieces[i];
  if (pieces.size() > kMaxEntityPieces)
    out += fmt::format(",+{} more", pieces.size() - kMaxEntityPieces);
  return out;
}

std::vector<RepeatGroup> GroupRepeats(const std::vector<RepeatKey>& items) {
  std::vector<RepeatGroup> groups;
  std::map<std::pair<std::string, std::string>, size_t> group_of;  // code, said -> group
  for (size_t i = 0; i < items.size(); ++i) {
    auto [it, fresh] = group_of.try_emplace({items[i].code, items[i].said}, groups.size());
    if (fresh) groups.emplace_back();
    groups[it->second].members.push_back(i);
  }
  for (RepeatGroup& g : groups) {
    if (g.members.size() == 1) {
      g.entities = items[g.members.front()].entity;
      continue;
    }
    std::vector<std::string> entities;
    for (size_t i : g.members) entities.push_back(items[i].entity);
    g.entities = fmt::format("×{} ({})", g.members.size(), EntitySpan(entities));
  }
  return groups;
}

}  // namespace ys
