#include "host/interrupts.h"

#include "core/text.h"

namespace ys::host {
namespace {

std::string Shorten(std::string_view s) {
  return std::string(s.substr(0, 120)) + (s.size() > 120 ? "..." : "");
}

bool IsTrigger(std::string_view tok) {
  return EndsWith(tok, "-edge") || EndsWith(tok, "-level") || tok == "Edge" || tok == "Level" ||
         EndsWith(tok, "-fasteoi");
}

// The device name(s) from the description columns.
std::string DeviceName(const std::vector<std::string_view>& words) {
  for (size_t i = 0; i < words.size(); ++i) {
    if (IsTrigger(words[i]) && i + 1 < words.size()) {
      std::string out;
      for (size_t k = i + 1; k < words.size(); ++k) {
        out += (out.empty() ? "" : " ") + std::string(words[k]);
      }
      return out;
    }
  }
  return words.empty() ? std::string() : std::string(words.back());
}

}  // namespace

uint64_t InterruptRow::Total() const {
  uint64_t t = 0;
  for (uint64_t c : counts) t += c;
  return t;
}

const InterruptRow* InterruptTable::Find(int irq) const {
  for (const auto& r : rows) {
    if (r.irq == irq) return &r;
  }
  return nullptr;
}

bool InterruptTable::HasName(std::string_view name) const {
  for (const auto& r : rows) {
    for (std::string_view action : Split(r.name, ',')) {
      if (Trim(action) == name) return true;
    }
  }
  return false;
}

uint64_t InterruptTable::CountOn(const InterruptRow& row, const CpuSet& set) const {
  uint64_t t = 0;
  for (size_t i = 0; i < row.counts.size() && i < cpus.size(); ++i) {
    if (set.Contains(cpus[i])) t += row.counts[i];
  }
  return t;
}

Result<InterruptTable> ParseInterrupts(std::string_view text) {
  InterruptTable t;
  auto lines = SplitLines(text);
  size_t first = 0;
  while (first < lines.size() && Trim(lines[first]).empty()) ++first;
  if (first == lines.size()) return Status::Invalid("empty: expected a header \"CPU0 CPU1 ...\"");
  for (std::string_view h : SplitWhitespace(lines[first])) {
    auto n = StartsWith(h, "CPU") ? ParseUint(h.substr(3)) : std::nullopt;
    if (!n || *n > (1u << 20)) {
      return Status::Invalid("line " + std::to_string(first + 1) +
                             ": expected a header \"CPU0 CPU1 ...\", got \"" +
                             Shorten(lines[first]) + "\"");
    }
    t.cpus.push_back(static_cast<int>(*n));
  }
  if (t.cpus.empty()) return Status::Invalid("header names no CPU");
  for (size_t li = first + 1; li < lines.size(); ++li) {
    std::string_view line = lines[li];
    if (Trim(line).empty()) continue;
    auto where = [&](const std::string& what) {
      return Status::Invalid("line " + std::to_string(li + 1) + ": " + what + " in \"" +
                             Shorten(line) + "\"");
    };
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) return where("expected \"<irq>: <counts>\"");
    InterruptRow row;
    row.label = std::string(Trim(line.substr(0, colon)));
    if (row.label.empty()) return where("expected an IRQ label before ':'");
    if (auto n = ParseUint(row.label); n && *n <= (1u << 24)) row.irq = static_cast<int>(*n);
    auto words = SplitWhitespace(line.substr(colon + 1));
    size_t w = 0;
    for (; w < words.size() && row.counts.size() < t.cpus.size(); ++w) {
      auto v = ParseUint(words[w]);
      if (!v) break;
      row.counts.push_back(*v);
    }
    if (row.irq && row.counts.size() != t.cpus.size()) {
      return where("expected " + std::to_string(t.cpus.size()) + " per-CPU counts, found " +
                   std::to_string(row.counts.size()));
    }
    if (row.counts.empty()) return where("expected per-CPU counts");
    std::vector<std::string_view> rest(words.begin() + static_cast<std::ptrdiff_t>(w), words.end());
    for (auto r : rest) row.description += (row.description.empty() ? "" : " ") + std::string(r);
    row.name = DeviceName(rest);
    t.rows.push_back(std::move(row));
  }
  return t;
}

Result<InterruptTable> ReadInterrupts(const Host& host) {
  const std::string path = "/proc/interrupts";
  auto text = host.ReadFile(path);
  if (!text.ok()) return text.status();
  auto t = ParseInterrupts(*text);
  if (!t.ok()) return Status::Invalid(host.Resolve(path) + ": " + t.status().message());
  return t;
}

Result<std::vector<IrqAffinity>> ReadIrqAffinities(const Host& host) {
  std::vector<IrqAffinity> out;
  for (const auto& name : host.ListMatching("/proc/irq", "[0-9]*")) {
    auto n = ParseUint(name);
    if (!n || *n > (1u << 24)) continue;
    std::string dir = "/proc/irq/" + name;
    IrqAffinity a;
    a.irq = static_cast<int>(*n);
    bool found = false;
    for (const char* file : {"effective_affinity_list", "smp_affinity_list", "smp_affinity"}) {
      std::string path = dir + "/" + file;
      auto line = host.ReadLine(path);
      if (!line.ok()) {
        if (line.status().code() == StatusCode::kNotFound) continue;
        return line.status();
      }
      auto set = std::string_view(file) == "smp_affinity" ? CpuSet::ParseMask(*line)
                                                          : CpuSet::ParseList(*line);
      if (!set.ok()) return Status::Invalid(host.Resolve(path) + ": " + set.status().message());
      a.cpus = *set;
      a.source = path;
      found = true;
      break;
    }
    if (found) out.push_back(std::move(a));
  }
  return out;
}

}  // namespace ys::host
