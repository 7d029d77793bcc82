#include "core/cpu_set.h"

#include <algorithm>
#include <iterator>

#include "core/text.h"

namespace ys {

namespace {
constexpr int kMaxCpuId = 1 << 20;  // guards against "0-4000000000" allocating forever
}

Result<CpuSet> CpuSet::ParseList(std::string_view text) {
  std::set<int> ids;
  std::string_view t = Trim(text);
  if (t.empty()) return CpuSet();
  for (std::string_view item : Split(t, ',')) {
    item = Trim(item);
    size_t dash = item.find('-');
    auto lo = ParseInt(dash == std::string_view::npos ? item : item.substr(0, dash));
    auto hi = dash == std::string_view::npos ? lo : ParseInt(item.substr(dash + 1));
    if (!lo || !hi || *lo < 0 || *hi < *lo || *hi > kMaxCpuId) {
      return Status::Invalid("expected a CPU list like \"0-3,8\", got \"" + std::string(t) + "\"");
    }
    for (int64_t i = *lo; i <= *hi; ++i) ids.insert(static_cast<int>(i));
  }
  return CpuSet(std::move(ids));
}

Result<CpuSet> CpuSet::ParseMask(std::string_view text) {
  std::set<int> ids;
  std::string_view t = Trim(text);
  if (t.empty()) return Status::Invalid("expected a hex CPU mask, got an empty string");
  auto words = Split(t, ',');
  int bit_base = 0;
  for (auto it = words.rbegin(); it != words.rend(); ++it, bit_base += 32) {
    std::string_view w = Trim(*it);
    if (w.empty() || w.size() > 8) {
      return Status::Invalid("expected comma-separated 32-bit hex words, got \"" + std::string(t) +
                             "\"");
    }
    auto v = ParseHex(w);
    if (!v) return Status::Invalid("expected a hex CPU mask, got \"" + std::string(t) + "\"");
    for (int b = 0; b < 32; ++b) {
      if ((*v >> b) & 1u) ids.insert(bit_base + b);
    }
    if (bit_base > kMaxCpuId) return Status::Invalid("CPU mask too long");
  }
  return CpuSet(std::move(ids));
}

CpuSet CpuSet::Intersect(const CpuSet& o) const {
  std::set<int> r;
  std::set_intersection(ids_.begin(), ids_.end(), o.ids_.begin(), o.ids_.end(),
                        std::inserter(r, r.end()));
  return CpuSet(std::move(r));
}

CpuSet CpuSet::Union(const CpuSet& o) const {
  std::set<int> r = ids_;
  r.insert(o.ids_.begin(), o.ids_.end());
  return CpuSet(std::move(r));
}

CpuSet CpuSet::Minus(const CpuSet& o) const {
  std::set<int> r;
  std::set_difference(ids_.begin(), ids_.end(), o.ids_.begin(), o.ids_.end(),
                      std::inserter(r, r.end()));
  return CpuSet(std::move(r));
}

bool CpuSet::IsSubsetOf(const CpuSet& o) const {
  return std::includes(o.ids_.begin(), o.ids_.end(), ids_.begin(), ids_.end());
}

std::string CpuSet::ToString() const {
  std::string out;
  auto it = ids_.begin();
  while (it != ids_.end()) {
    int lo = *it, hi = *it;
    ++it;
    while (it != ids_.end() && *it == hi + 1) hi = *it++;
    if (!out.empty()) out += ',';
    out += std::to_string(lo);
    if (hi != lo) out += "-" + std::to_string(hi);
  }
  return out;
}

}  // namespace ys
