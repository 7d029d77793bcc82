#include "report/topo_expect.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>

#include "core/text.h"

namespace ys::report {
// Named, not anonymous: the library is built in unity batches.
namespace topo_expect_impl {

// The header's device columns: the words before "CPU" ("CPU Affinity"), or all of them.
std::vector<std::string> HeaderColumns(const std::vector<std::string_view>& t) {
  std::vector<std::string> cols;
  for (std::string_view w : t) {
    if (w == "CPU" || w == "NUMA") break;
    cols.emplace_back(w);
  }
  return cols;
}

// "NUMA Affinity" in the header (not the "GPU NUMA ID" that follows it).
bool HasNumaAffinity(const std::vector<std::string_view>& t) {
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    if (t[i] == "NUMA" && t[i + 1] == "Affinity") return true;
  }
  return false;
}

bool IsHeader(const std::vector<std::string_view>& t) {
  return !t.empty() && t[0] == "GPU0" && (t.size() == 1 || t[1] != "X");
}

}  // namespace topo_expect_impl

Result<SmiTopo> ParseSmiTopo(std::string_view text, std::string_view name) {
  SmiTopo topo;
  bool legend = false;
  int64_t no = 0;
  for (std::string_view line : SplitLines(text)) {
    ++no;
    auto t = SplitWhitespace(line);
    if (t.empty()) continue;
    if (topo.columns.empty()) {
      if (topo_expect_impl::IsHeader(t)) {
        topo.columns = topo_expect_impl::HeaderColumns(t);
        topo.numa_affinity_column = topo_expect_impl::HasNumaAffinity(t);
      }
      continue;
    }
    if (t[0] == "NIC" && t.size() > 1 && t[1] == "Legend:") {
      legend = true;
      continue;
    }
    if (legend && t.size() == 2 && EndsWith(t[0], ":")) {
      topo.nic_names[std::string(t[0].substr(0, t[0].size() - 1))] = std::string(t[1]);
      continue;
    }
    if (std::find(topo.columns.begin(), topo.columns.end(), t[0]) == topo.columns.end()) continue;
    if (t.size() < topo.columns.size() + 1) {
      return Status::Invalid(fmt::format(
          "{}:{}: the row of {}: expected {} cells (one per column of the header: {}), found {}",
          name, no, t[0], topo.columns.size(), Join(topo.columns, " "), t.size() - 1));
    }
    SmiTopoRow row{.label = std::string(t[0]), .line = no};
    for (size_t i = 1; i <= topo.columns.size(); ++i) row.cells.emplace_back(t[i]);
    if (t.size() > topo.columns.size() + 1)
      row.cpu_affinity = std::string(t[topo.columns.size() + 1]);
    if (topo.numa_affinity_column && t.size() > topo.columns.size() + 2)
      row.numa_affinity = std::string(t[topo.columns.size() + 2]);
    topo.rows.push_back(std::move(row));
  }
  if (topo.columns.empty()) {
    return Status::Invalid(fmt::format(
        "{}: no topology matrix: expected a header line 'GPU0 GPU1 ... [NIC0 ...] CPU Affinity "
        "...' as nvidia-smi topo -m prints it",
        name));
  }
  if (topo.rows.empty()) {
    return Status::Invalid(
        fmt::format("{}: the header names {} but no row follows (expected 'GPU0  X  NV18 ...')",
                    name, Join(topo.columns, " ")));
  }
  return topo;
}

TopoComparison CompareTopo(const TopoMatrix& here, const SmiTopo& file) {
  // The index of the device of `here` that a label of the file stands for.
  auto find = [&](const std::string& label) -> std::optional<size_t> {
    std::string want = label;
    if (auto it = file.nic_names.find(label); it != file.nic_names.end()) want = it->second;
    for (size_t i = 0; i < here.devices.size(); ++i) {
      const TopoDevice& d = here.devices[i];
      if (d.label == label && (d.kind == TopoDevice::Kind::kGpu || want == label)) return i;
      if (d.kind == TopoDevice::Kind::kNic) {
        for (std::string_view n : Split(d.name, ',')) {
          if (n == want) return i;
        }
      }
    }
    return std::nullopt;
  };
  TopoComparison c;
  std::vector<std::optional<size_t>> col(file.columns.size());
  std::set<size_t> matched;
  for (size_t k = 0; k < file.columns.size(); ++k) {
    col[k] = find(file.columns[k]);
    if (col[k]) {
      matched.insert(*col[k]);
    } else {
      c.only_in_file.push_back(file.columns[k]);
    }
  }
  for (size_t i = 0; i < here.devices.size(); ++i) {
    if (!matched.count(i))
      c.only_here.push_back(here.devices[i].label + " " + here.devices[i].name);
  }
  for (const SmiTopoRow& row : file.rows) {
    auto r = find(row.label);
    if (!r) continue;
    for (size_t k = 0; k < row.cells.size(); ++k) {
      if (!col[k]) continue;
      const std::string& mine = here.cells[*r][*col[k]].link;
      ++c.compared;
      if (ToLower(mine) != ToLower(row.cells[k])) {
        c.differences.push_back({row.label, file.columns[k], row.cells[k], mine});
      }
    }
  }
  return c;
}

std::string TopoComparisonText(const TopoComparison& c, std::string_view name) {
  std::string out = fmt::format("topo --expect {}: {} cell(s) compared, {} differ\n", name,
                                c.compared, c.differences.size());
  for (const TopoDifference& d : c.differences) {
    out += fmt::format("  {} - {}: expected {}, here {}\n", d.row, d.column, d.expected, d.here);
  }
  for (const std::string& l : c.only_in_file) out += "  in the file, not found here: " + l + "\n";
  for (const std::string& l : c.only_here) out += "  found here, not in the file: " + l + "\n";
  return out;
}

}  // namespace ys::report
