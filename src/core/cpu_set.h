// CpuSet: a set of CPU (or NUMA node) numbers, parsed from the kernel's list format ("0-4,6")
// or its comma-separated 32-bit hex mask format ("ff,00000001").
#ifndef YARDSTICK_CORE_CPU_SET_H_
#define YARDSTICK_CORE_CPU_SET_H_

#include <set>
#include <string>
#include <string_view>

#include "core/status.h"

namespace ys {

class CpuSet {
 public:
  CpuSet() = default;
  explicit CpuSet(std::set<int> ids) : ids_(std::move(ids)) {}

  // "0-4,6,8-10"; empty or whitespace-only is the empty set. Rejects "3-1", "a", "1--2".
  static Result<CpuSet> ParseList(std::string_view text);
  // "3" -> {0,1}; "00000000,00000001" -> {0}. Rejects non-hex words.
  static Result<CpuSet> ParseMask(std::string_view text);

  bool Contains(int id) const { return ids_.count(id) != 0; }
  bool empty() const { return ids_.empty(); }
  size_t size() const { return ids_.size(); }
  const std::set<int>& ids() const { return ids_; }
  void Insert(int id) { ids_.insert(id); }

  CpuSet Intersect(const CpuSet& other) const;
  CpuSet Union(const CpuSet& other) const;
  CpuSet Minus(const CpuSet& other) const;
  bool IsSubsetOf(const CpuSet& other) const;
  bool Intersects(const CpuSet& other) const { return !Intersect(other).empty(); }

  // Canonical list form: "0-3,8".
  std::string ToString() const;

  bool operator==(const CpuSet& o) const { return ids_ == o.ids_; }

 private:
  std::set<int> ids_;
};

}  // namespace ys

#endif  // YARDSTICK_CORE_CPU_SET_H_
