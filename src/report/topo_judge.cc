#include "report/topo_judge.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "core/text.h"

namespace ys::report {
// Named, not anonymous: the library is built in unity batches.
namespace topo_judge_impl {

// PCIe distance as nvidia-smi prints it, nearest first; -1 for anything else.
int PciRank(std::string_view cell) {
  static constexpr std::string_view kLevels[] = {"PIX", "PXB", "PHB", "NODE", "SYS"};
  for (int i = 0; i < 5; ++i) {
    if (cell == kLevels[i]) return i;
  }
  return -1;
}
constexpr int kPhb = 2;
constexpr int kSys = 4;

// NV18 -> 18; -1 when the cell is not an NVLink count.
int NvCount(std::string_view cell) {
  if (cell.size() < 3 || cell.substr(0, 2) != "NV") return -1;
  int n = 0;
  for (char c : cell.substr(2)) {
    if (c < '0' || c > '9') return -1;
    n = n * 10 + (c - '0');
  }
  return n;
}

// The matrix by label: a cell is read from either device's row (the matrix is symmetric), so a
// copy that lost the NIC rows still gives every GPU-NIC cell.
struct Grid {
  const SmiTopo& topo;
  std::vector<std::string> gpus, nics;
  std::map<std::string, size_t> column;
  std::map<std::string, const SmiTopoRow*> row;

  explicit Grid(const SmiTopo& t) : topo(t) {
    for (size_t k = 0; k < t.columns.size(); ++k) {
      const std::string& c = t.columns[k];
      column[c] = k;
      bool gpu =
          StartsWith(c, "GPU") && c.size() > 3 &&
          std::all_of(c.begin() + 3, c.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
      (gpu ? gpus : nics).push_back(c);
    }
    for (const SmiTopoRow& r : t.rows) row.emplace(r.label, &r);
  }
  std::optional<std::string> Cell(const std::string& a, const std::string& b) const {
    if (auto it = row.find(a); it != row.end()) return it->second->cells[column.at(b)];
    if (auto it = row.find(b); it != row.end()) return it->second->cells[column.at(a)];
    return std::nullopt;
  }
  // "NIC0 (mlx5_0)" where the NIC legend names it.
  std::string Name(const std::string& label) const {
    auto it = topo.nic_names.find(label);
    return it == topo.nic_names.end() ? label : label + " (" + it->second + ")";
  }
};

std::string Pair(const std::string& a, const std::string& b, const std::string& cell) {
  return fmt::format("{}-{} {}", a, b, cell);
}

// The GPU every listed pair involves, if one does: "GPU3" for GPU0-GPU3, GPU1-GPU3.
std::optional<std::string> CommonGpu(const std::vector<std::pair<std::string, std::string>>& p) {
  for (const std::string& g : {p.front().first, p.front().second}) {
    if (p.size() > 1 && std::all_of(p.begin(), p.end(),
                                    [&](const auto& x) { return x.first == g || x.second == g; }))
      return g;
  }
  return std::nullopt;
}

struct GpuPairs {
  std::vector<std::pair<std::string, std::string>> pairs;  // i < j
  std::vector<std::string> cells;
  std::vector<std::string> missing;   // pairs in no row of the copy, or unreadable cells
  std::map<std::string, int> degree;  // NVLinked peers per GPU
  std::map<int, int> nv_counts;       // NV count -> pairs
  int nv_pairs = 0;
};

GpuPairs CollectGpuPairs(const Grid& g) {
  GpuPairs p;
  for (size_t i = 0; i < g.gpus.size(); ++i) {
    for (size_t j = i + 1; j < g.gpus.size(); ++j) {
      const std::string &a = g.gpus[i], &b = g.gpus[j];
      auto cell = g.Cell(a, b);
      if (!cell || (NvCount(*cell) < 0 && PciRank(*cell) < 0)) {
        p.missing.push_back(cell ? Pair(a, b, "'" + *cell + "' (not a link nvidia-smi prints)")
                                 : a + "-" + b);
        continue;
      }
      p.pairs.emplace_back(a, b);
      p.cells.push_back(*cell);
      if (int nv = NvCount(*cell); nv >= 0) {
        ++p.nv_pairs;
        ++p.degree[a];
        ++p.degree[b];
        ++p.nv_counts[nv];
      }
    }
  }
  return p;
}

// The NV count most pairs show (the higher one on a tie).
int ModalCount(const std::map<int, int>& counts) {
  int best = -1, n = 0;
  for (const auto& [count, pairs] : counts) {
    if (pairs >= n) best = count, n = pairs;
  }
  return best;
}

// How many pairs show each cell: "1 PIX", "3 NV6, 1 SYS".
std::string CellCounts(const std::vector<std::string>& cells) {
  std::map<std::string, int> n;
  for (const std::string& c : cells) ++n[c];
  std::vector<std::string> parts;
  for (const auto& [c, k] : n) parts.push_back(fmt::format("{} {}", k, c));
  return Join(parts, ", ");
}

TopoJudgement JudgeBridgedPairs(const GpuPairs& p, const Grid& g) {
  TopoJudgement j{.area = "nvlink", .confidence = Confidence::kMedium};
  std::vector<std::string> bridged;
  std::set<int> counts;
  for (size_t k = 0; k < p.pairs.size(); ++k) {
    if (NvCount(p.cells[k]) < 0) continue;
    bridged.push_back(Pair(p.pairs[k].first, p.pairs[k].second, p.cells[k]));
    counts.insert(NvCount(p.cells[k]));
  }
  j.evidence = bridged;
  std::vector<std::string> alone;
  for (const std::string& gpu : g.gpus) {
    if (!p.degree.count(gpu)) alone.push_back(gpu);
  }
  j.message = fmt::format(
      "NVLink bridges pair the GPUs two by two ({}), PCIe between the pairs: PCIe cards with "
      "bridges, judged as such",
      Join(bridged, ", "));
  if (!alone.empty()) {
    j.notes.push_back(Join(alone, ", ") +
                      " have no NVLink bridge: if bridges are fitted there, one is unseated");
  }
  if (counts.size() > 1) {
    j.state = VerdictState::kWarn;
    j.message = fmt::format(
        "bridged pairs show different NVLink counts ({}): a bridge with links "
        "down, or bridges of different kinds",
        Join(bridged, ", "));
    j.fix =
        "reseat the bridge of the pair with the lower count; `nvidia-smi nvlink -s` shows which "
        "links are down";
  }
  return j;
}

// Full mesh expected (SXM/HGX): the pairs with no NVLink, or fewer links than most pairs.
TopoJudgement JudgeFullMesh(const GpuPairs& p, size_t total) {
  TopoJudgement j{.area = "nvlink"};
  const int modal = ModalCount(p.nv_counts);
  std::vector<std::pair<std::string, std::string>> bad;
  for (size_t k = 0; k < p.pairs.size(); ++k) {
    int nv = NvCount(p.cells[k]);
    if (nv >= 0 && nv >= modal) continue;
    bad.emplace_back(p.pairs[k]);
    j.evidence.push_back(Pair(p.pairs[k].first, p.pairs[k].second, p.cells[k]));
  }
  const std::string most =
      fmt::format("{} of {} GPU pairs show NV{}", p.nv_counts.at(modal), total, modal);
  if (bad.empty()) {
    j.message = fmt::format("NV{} on all {} GPU pairs: every NVLink present", modal, total);
    j.evidence.push_back(most);
    return j;
  }
  j.state = VerdictState::kFail;
  j.confidence = p.nv_pairs * 2 > static_cast<int>(total) ? Confidence::kHigh : Confidence::kMedium;
  auto common = CommonGpu(bad);
  j.message = fmt::format("NVLink missing or down: {} ({}){}", Join(j.evidence, ", "), most,
                          common ? "; every such pair involves " + *common : std::string());
  j.evidence.push_back(most);
  j.fix =
      "check the links with `nvidia-smi nvlink -s` and `nvidia-smi nvlink -e`; reseat or "
      "replace the GPU or baseboard whose links are down; on NVSwitch systems make sure "
      "nvidia-fabricmanager is running";
  return j;
}

TopoJudgement JudgeNvlink(const Grid& g) {
  TopoJudgement j{.area = "nvlink"};
  const size_t n = g.gpus.size();
  if (n < 2) {
    return {.area = "nvlink", .judged = false, .message = "one GPU: no GPU pair to judge"};
  }
  GpuPairs p = CollectGpuPairs(g);
  const size_t total = n * (n - 1) / 2;
  if (!p.missing.empty()) {
    j.state = VerdictState::kInconclusive;
    j.message = fmt::format(
        "{} of {} GPU pairs are not in the copy: the matrix is cut; judge the whole `nvidia-smi "
        "topo -m`",
        p.missing.size(), total);
    j.evidence = p.missing;
    if (!p.cells.empty()) j.evidence.push_back("the pairs shown: " + CellCounts(p.cells));
    return j;
  }
  int max_degree = 0;
  for (const auto& [gpu, d] : p.degree) max_degree = std::max(max_degree, d);
  if (p.nv_pairs == 0) {
    j.message = fmt::format(
        "PCIe only: no NV# on any of the {} GPU pair(s); judged as a PCIe "
        "board, not failed for NVLinks it does not have",
        total);
    j.evidence.push_back("GPU pairs: " + CellCounts(p.cells));
    return j;
  }
  if (max_degree == 1 && n > 2) return JudgeBridgedPairs(p, g);
  std::set<int> degrees;
  for (const std::string& gpu : g.gpus) degrees.insert(p.degree.count(gpu) ? p.degree[gpu] : 0);
  if (degrees.size() == 1 && max_degree < static_cast<int>(n) - 1 && max_degree > 1) {
    j.confidence = Confidence::kMedium;
    j.message = fmt::format(
        "every GPU is NVLinked to {} of its {} peers: a partial mesh by design (as the DGX-1 "
        "hybrid cube-mesh), judged as such",
        max_degree, n - 1);
    j.evidence.push_back("GPU pairs: " + CellCounts(p.cells));
    return j;
  }
  return JudgeFullMesh(p, total);
}

struct NearestNic {
  int rank = -1;  // PciRank of the nearest NIC; -1 when none known
  std::string nic;
  int unknown = 0;  // NIC cells not in the copy or unreadable
};

NearestNic Nearest(const Grid& g, const std::string& gpu) {
  NearestNic best;
  for (const std::string& nic : g.nics) {
    auto cell = g.Cell(gpu, nic);
    int r = cell ? PciRank(*cell) : -1;
    if (r < 0) {
      ++best.unknown;
    } else if (best.rank < 0 || r < best.rank) {
      best.rank = r;
      best.nic = nic;
    }
  }
  return best;
}

std::string RankName(int rank) {
  static constexpr std::string_view kLevels[] = {"PIX", "PXB", "PHB", "NODE", "SYS"};
  return std::string(kLevels[rank]);
}

// The message of a placement with GPUs across the socket from every NIC.
void PlacementWarning(const std::vector<std::string>& across, const std::vector<std::string>& near,
                      TopoJudgement& j) {
  j.confidence = near.empty() ? Confidence::kMedium : Confidence::kHigh;
  j.message = fmt::format(
      "{}: nearest NIC is SYS, across the CPU interconnect, {}: {} GPUDirect RDMA crosses the "
      "socket",
      Join(across, ", "),
      near.empty() ? "as it is for every GPU (no NIC on the GPUs' sockets)"
                   : "while " + Join(near, ", ") + " have a NIC on their side",
      across.size() == 1 ? "its" : "their");
  const bool one = across.size() == 1;
  j.fix = fmt::format(
      "give {} a NIC on {} own socket (a slot under the same CPU), or point {} ranks at the "
      "nearest NIC (NCCL_IB_HCA); until then {} RDMA traffic crosses sockets",
      Join(across, ", "), one ? "its" : "their", one ? "its" : "their", one ? "its" : "their");
}

TopoJudgement JudgeNicPlacement(const Grid& g) {
  TopoJudgement j{.area = "nic placement"};
  if (g.nics.empty() || g.gpus.empty()) {
    return {.area = j.area, .judged = false, .message = "no NIC in the matrix: nothing to place"};
  }
  std::vector<std::string> across, near, via_host, unknown;
  int farthest_near = 0;  // the farthest of the nearest NICs that are on the GPU's side
  for (const std::string& gpu : g.gpus) {
    NearestNic n = Nearest(g, gpu);
    if (n.rank >= 0) j.evidence.push_back(Pair(gpu, g.Name(n.nic), RankName(n.rank)));
    if (n.rank < 0 || (n.rank == kSys && n.unknown > 0)) {
      unknown.push_back(gpu);
    } else if (n.rank == kSys) {
      across.push_back(gpu);
    } else {
      near.push_back(gpu);
      farthest_near = std::max(farthest_near, n.rank);
      if (n.rank >= kPhb) via_host.push_back(gpu);
    }
  }
  if (!across.empty()) PlacementWarning(across, near, j);
  if (!via_host.empty()) {
    j.notes.push_back(Join(via_host, ", ") +
                      " reach their nearest NIC through the host bridge (PHB/NODE): NCCL uses "
                      "GPUDirect RDMA only at PXB or nearer unless NCCL_NET_GDR_LEVEL says "
                      "otherwise");
  }
  if (!unknown.empty()) {
    j.state = VerdictState::kInconclusive;
    j.message = fmt::format("{}: GPU-NIC cells not in the copy, nearest NIC unknown{}",
                            Join(unknown, ", "), across.empty() ? "" : "; " + j.message);
  } else if (!across.empty()) {
    j.state = VerdictState::kWarn;
  } else {
    j.message = fmt::format(
        "every GPU has a NIC on its side of the socket interconnect "
        "(the farthest of these nearest NICs at {})",
        RankName(farthest_near));
  }
  return j;
}

// More than one NUMA node shows: a SYS cell, or GPUs with different NUMA or CPU affinity.
bool SeveralNumaNodes(const Grid& g) {
  std::set<std::string> numa, cpus;
  for (const auto& [label, r] : g.row) {
    if (std::find(r->cells.begin(), r->cells.end(), "SYS") != r->cells.end()) return true;
    if (!r->numa_affinity.empty() && r->numa_affinity != "N/A") numa.insert(r->numa_affinity);
    if (!r->cpu_affinity.empty() && r->cpu_affinity != "N/A") cpus.insert(r->cpu_affinity);
  }
  return numa.size() > 1 || cpus.size() > 1;
}

TopoJudgement JudgeAffinity(const Grid& g) {
  TopoJudgement j{.area = "affinity", .confidence = Confidence::kMedium};
  std::vector<std::string> missing, na, shown;
  for (const std::string& gpu : g.gpus) {
    auto it = g.row.find(gpu);
    if (it == g.row.end()) {
      missing.push_back(gpu);
      continue;
    }
    const SmiTopoRow& r = *it->second;
    bool cpu_na = r.cpu_affinity.empty() || r.cpu_affinity == "N/A";
    bool numa_na =
        g.topo.numa_affinity_column && (r.numa_affinity.empty() || r.numa_affinity == "N/A");
    std::string cells = "CPU " + (r.cpu_affinity.empty() ? "(none)" : r.cpu_affinity);
    if (g.topo.numa_affinity_column) cells += ", NUMA " + r.numa_affinity;
    (cpu_na || numa_na ? na : shown).push_back(gpu + ": " + cells);
  }
  j.evidence = na;
  j.evidence.insert(j.evidence.end(), shown.begin(), shown.end());
  if (!g.topo.numa_affinity_column && std::none_of(g.row.begin(), g.row.end(), [](const auto& r) {
        return !r.second->cpu_affinity.empty();
      })) {
    return {.area = j.area, .judged = false, .message = "the matrix has no affinity columns"};
  }
  if (!missing.empty()) {
    j.state = VerdictState::kInconclusive;
    j.message = Join(missing, ", ") + ": rows not in the copy, affinity unknown";
  } else if (!na.empty()) {
    bool several = SeveralNumaNodes(g);
    j.state = several ? VerdictState::kWarn : VerdictState::kPass;
    j.message = fmt::format(
        "{} GPU(s) show no CPU/NUMA affinity (N/A): the firmware gives them no NUMA node, so "
        "nothing binds their ranks near them{}",
        na.size(),
        several ? "; this host has more than one NUMA node, so a rank may run on the far one"
                : "; the matrix shows one NUMA node, where that costs nothing");
    if (several) {
      j.fix =
          "report PCIe NUMA locality in the firmware (BIOS/SRAT, or the VM's vNUMA), then bind "
          "each rank to its GPU's node (numactl, or the launcher's GPU binding)";
    }
  } else {
    j.confidence = Confidence::kHigh;
    j.message = fmt::format("every GPU shows its CPU affinity{}",
                            g.topo.numa_affinity_column ? " and NUMA affinity" : "");
  }
  return j;
}

void Decide(TopoJudgeResult& r) {
  static constexpr VerdictState kOrder[] = {VerdictState::kFail, VerdictState::kInconclusive,
                                            VerdictState::kWarn};
  bool any = false;
  for (const TopoJudgement& j : r.judgements) any = any || j.judged;
  if (!any) {
    r.state = VerdictState::kInconclusive;
    r.reason = "nothing in the matrix could be judged";
    return;
  }
  for (VerdictState s : kOrder) {
    for (const TopoJudgement& j : r.judgements) {
      if (!j.judged || j.state != s) continue;
      r.state = s;
      r.reason = j.area + ": " + j.message;
      return;
    }
  }
  r.state = VerdictState::kPass;
  std::vector<std::string> judged;
  for (const TopoJudgement& j : r.judgements) {
    if (j.judged) judged.push_back(j.area);
  }
  r.reason = Join(judged, ", ") + " judged from the matrix, nothing to act on";
}

}  // namespace topo_judge_impl

TopoJudgeResult JudgeSmiTopo(const SmiTopo& topo) {
  using namespace topo_judge_impl;
  Grid g(topo);
  TopoJudgeResult r{.gpus = static_cast<int>(g.gpus.size()),
                    .nics = static_cast<int>(g.nics.size()),
                    .rows = static_cast<int>(topo.rows.size()),
                    .columns = static_cast<int>(topo.columns.size())};
  r.judgements = {JudgeNvlink(g), JudgeNicPlacement(g), JudgeAffinity(g)};
  Decide(r);
  return r;
}

std::string TopoJudgeText(const TopoJudgeResult& r, std::string_view name) {
  std::string out =
      fmt::format("topo --from {}: {} GPU(s), {} NIC(s); {} of {} device rows in the copy\n", name,
                  r.gpus, r.nics, r.rows, r.columns);
  for (const TopoJudgement& j : r.judgements) {
    if (!j.judged) {
      out += fmt::format("  {:<13} not judged: {}\n", j.area, j.message);
      continue;
    }
    // How sure a judgement is says nothing where the cells were not there to judge.
    std::string sure = j.state == VerdictState::kInconclusive
                           ? std::string()
                           : fmt::format(" ({} confidence)", ConfidenceName(j.confidence));
    out += fmt::format("  {:<13} {}{}: {}\n", j.area, VerdictStateLabel(j.state), sure, j.message);
    if (!j.evidence.empty()) out += "    evidence: " + Join(j.evidence, "; ") + "\n";
    for (const std::string& n : j.notes) out += "    note: " + n + "\n";
    if (!j.fix.empty()) out += "    fix: " + j.fix + "\n";
  }
  out += fmt::format("verdict: {}: {}\n", VerdictStateLabel(r.state), r.reason);
  return out;
}

}  // namespace ys::report
