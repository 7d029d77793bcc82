#include "gpu/smi_dump_values.h"

#include <cmath>
#include <limits>

#include "core/text.h"

namespace ys::gpu::smi {
namespace {

const SmiEntry* Child(const SmiEntry& at, std::string_view names) {
  for (std::string_view name : Split(names, '|')) {
    for (const SmiEntry& c : at.children) {
      if (c.key == name) return &c;
    }
  }
  return nullptr;
}

// "Clocks Event Reasons|clocks_event_reasons/Idle|..." -> "Clocks Event Reasons/Idle".
std::string FirstSpelling(std::string_view path) {
  std::string out;
  for (std::string_view seg : Split(path, '/')) {
    out += (out.empty() ? "" : "/") + std::string(Split(seg, '|').front());
  }
  return out;
}

}  // namespace

const SmiEntry* Find(const SmiEntry& at, std::string_view path) {
  const SmiEntry* e = &at;
  for (std::string_view seg : Split(path, '/')) {
    // "Remapped Rows : N/A": the section's one value stands for all below it.
    if (e != &at && e->children.empty() && !e->value.empty()) return e;
    e = Child(*e, seg);
    if (e == nullptr) return nullptr;
  }
  return e;
}

const SmiEntry* FindAny(const SmiEntry& at, std::initializer_list<std::string_view> paths) {
  for (std::string_view p : paths) {
    if (const SmiEntry* e = Find(at, p)) return e;
  }
  return nullptr;
}

const SmiEntry* FindBelow(const SmiEntry& at, std::string_view names) {
  if (const SmiEntry* e = Child(at, names)) return e;
  for (const SmiEntry& c : at.children) {
    if (const SmiEntry* e = FindBelow(c, names)) return e;
  }
  return nullptr;
}

std::string NotReported(std::string_view path) {
  return "not reported: the nvidia-smi -q dump has no \"" + FirstSpelling(path) + "\"";
}

std::optional<std::string> NoValueReason(std::string_view value) {
  std::string_view v = Trim(value);
  if (!v.empty() && v.front() == '[' && v.back() == ']') v = v.substr(1, v.size() - 2);
  std::string lower = ToLower(v);
  if (lower == "n/a" || lower == "not supported" || lower == "not available") {
    return std::string(kNotSupported) + " (nvidia-smi prints \"" + std::string(value) + "\")";
  }
  if (lower.empty() || lower.find("error") != std::string::npos ||
      lower.find("permission") != std::string::npos || lower.find("reset") != std::string::npos ||
      lower.find("lost") != std::string::npos || lower == "not found" || lower == "unknown") {
    return "nvidia-smi: " + (value.empty() ? std::string("(empty)") : std::string(value));
  }
  return std::nullopt;
}

std::optional<uint64_t> LeadingUint(std::string_view v) {
  auto words = SplitWhitespace(v);
  if (words.empty()) return std::nullopt;
  std::string_view n = words.front();
  if (!n.empty() && n.back() == 'x') n.remove_suffix(1);  // "16x"
  return ParseUint(n);
}

std::optional<uint32_t> Milliwatts(std::string_view v) {
  auto words = SplitWhitespace(v);
  if (words.size() != 2 || words[1] != "W") return std::nullopt;
  auto w = ParseDouble(words[0]);
  if (!w || !std::isfinite(*w) || *w < 0 || *w * 1000 > std::numeric_limits<uint32_t>::max()) {
    return std::nullopt;
  }
  return static_cast<uint32_t>(std::lround(*w * 1000));
}

std::optional<uint64_t> MibBytes(std::string_view v) {
  auto words = SplitWhitespace(v);
  if (words.size() != 2 || words[1] != "MiB") return std::nullopt;
  auto n = ParseUint(words[0]);
  if (!n || *n > (std::numeric_limits<uint64_t>::max() >> 20)) return std::nullopt;
  return *n << 20;
}

std::optional<bool> OnOff(std::string_view v) {
  std::string s = ToLower(Trim(v));
  if (s == "enabled" || s == "yes" || s == "active" || s == "true") return true;
  if (s == "disabled" || s == "no" || s == "not active" || s == "false") return false;
  return std::nullopt;
}

std::optional<int> Pstate(std::string_view v) {
  v = Trim(v);
  if (v.size() < 2 || v.front() != 'P') return std::nullopt;
  auto n = ParseUint(v.substr(1));
  if (!n || *n > 15) return std::nullopt;
  return static_cast<int>(*n);
}

std::optional<int> CudaVersion(std::string_view v) {
  auto parts = Split(Trim(v), '.');
  if (parts.size() != 2) return std::nullopt;
  auto major = ParseUint(parts[0]);
  auto minor = ParseUint(parts[1]);
  if (!major || !minor || *major > 99 || *minor > 99) return std::nullopt;
  return static_cast<int>(*major * 1000 + *minor * 10);
}

}  // namespace ys::gpu::smi
