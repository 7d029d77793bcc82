// The collective engine's arithmetic over ranks and rows, its table and its findings.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "bench/coll/internal/sweep.h"
#include "core/finding_codes.h"
#include "core/text.h"
#include "core/text_table.h"

namespace ys::bench::coll {
namespace {

std::string Trimmed(const std::string& s) { return std::string(Trim(s)); }

// printf's %g, as nccl-tests prints #wrong and the average bus bandwidth.
std::string PrintfG(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%g", v);
  return buf;
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string RankEntity(int rank, const std::vector<std::string>& hostnames) {
  std::string e = "rank" + std::to_string(rank);
  if (rank >= 0 && static_cast<size_t>(rank) < hostnames.size()) e += " (" + hostnames[rank] + ")";
  return e;
}

std::vector<std::string> PlaceCells(const PlaceResult& p) {
  return {Trimmed(comm::FormatNcclFloat(p.time_us, 7)),
          Trimmed(comm::FormatNcclFloat(p.bw.algbw_gbps, 6)),
          Trimmed(comm::FormatNcclFloat(p.bw.busbw_gbps, 6)),
          PrintfG(static_cast<double>(p.wrong))};
}

}  // namespace

void Summarise(const comm::CollectiveOp& op, PlaceResult& p) {
  double sum = 0;
  int n = 0;
  for (double t : p.rank_time_us) {
    if (std::isnan(t)) continue;
    sum += t;
    ++n;
  }
  p.time_us = n > 0 ? sum / n : 0;
  p.bw = comm::ComputeBandwidth(op.collective, op.counts, op.nranks, p.time_us * 1e-6);
  p.wrong = 0;
  for (int64_t w : p.rank_wrong) p.wrong += w;
}

double AverageBusBandwidth(const std::vector<SweepRow>& rows) {
  if (rows.empty()) return 0;
  double sum = 0;
  for (const auto& r : rows) sum += r.out_of_place.bw.busbw_gbps + r.in_place.bw.busbw_gbps;
  return sum / (2.0 * rows.size());
}

int OutOfBoundsValues(const std::vector<SweepRow>& rows) {
  int n = 0;
  for (const auto& r : rows) {
    for (const PlaceResult* p : {&r.out_of_place, &r.in_place}) {
      for (int64_t w : p->rank_wrong) n += w > 0 ? 1 : 0;
    }
  }
  return n;
}

ResultTable MakeSweepTable(std::string title, const std::vector<SweepRow>& rows) {
  ResultTable t;
  t.title = std::move(title);
  t.columns = {"size",  "count",  "type", "redop", "root",  "time",  "algbw",
               "busbw", "#wrong", "time", "algbw", "busbw", "#wrong"};
  for (const auto& r : rows) {
    std::vector<std::string> row = {
        std::to_string(r.op.counts.size_bytes()), std::to_string(r.op.counts.param_count),
        comm::DataTypeName(r.op.dtype), comm::RedOpColumn(r.op.collective),
        std::to_string(comm::RootColumn(r.op.collective, r.op.root))};
    for (const PlaceResult* p : {&r.out_of_place, &r.in_place}) {
      auto cells = PlaceCells(*p);
      row.insert(row.end(), cells.begin(), cells.end());
    }
    t.rows.push_back(std::move(row));
  }
  int oob = OutOfBoundsValues(rows);
  // nccl-tests' summary lines: "# Out of bounds values : 0 OK".
  const TextTable summary({{"", Align::kLeft, 20}, {"", Align::kLeft, 0, " : "}}, {.indent = "# "});
  t.footer.push_back(
      summary.Row({"Out of bounds values", fmt::format("{} {}", oob, oob ? "FAILED" : "OK")}));
  t.footer.push_back(summary.Row({"Avg bus bandwidth", PrintfG(AverageBusBandwidth(rows))}));
  return t;
}

std::vector<Finding> SlowRankFindings(const std::string& coll_name,
                                      const std::vector<SweepRow>& rows,
                                      const std::vector<std::string>& hostnames) {
  struct Slow {
    int rows = 0;
    double worst = 0;
    size_t worst_size = 0;
  };
  std::map<int, Slow> slow;
  int considered = 0;
  for (const auto& r : rows) {
    for (const PlaceResult* p : {&r.out_of_place, &r.in_place}) {
      if (p->rank_time_us.size() < 3) continue;
      ++considered;
      double median = Median(p->rank_time_us);
      if (median <= 0) continue;
      for (size_t k = 0; k < p->rank_time_us.size(); ++k) {
        double ratio = p->rank_time_us[k] / median;
        if (ratio <= kSlowRankFactor) continue;
        Slow& s = slow[static_cast<int>(k)];
        ++s.rows;
        if (ratio > s.worst) {
          s.worst = ratio;
          s.worst_size = r.op.counts.size_bytes();
        }
      }
    }
  }
  std::vector<Finding> out;
  for (const auto& [rank, s] : slow) {
    if (2 * s.rows < considered) continue;  // sporadic: noise, not a slow rank
    Finding f = MakeFinding(
        "YS-BENCH-002", RankEntity(rank, hostnames),
        fmt::format("{}: rank {} took more than {:.1f}x the median rank's time in {} of {} "
                    "measurements (worst {:.1f}x at {} bytes)",
                    coll_name, rank, kSlowRankFactor, s.rows, considered, s.worst, s.worst_size));
    f.evidence = {{"slow_measurements", std::to_string(s.rows)},
                  {"measurements", std::to_string(considered)},
                  {"worst_ratio_to_median", fmt::format("{:.2f}", s.worst)},
                  {"worst_size_bytes", std::to_string(s.worst_size)}};
    f.fix =
        "Look at that rank's node: other processes on its cores or GPU (yardstick preflight), its "
        "clocks "
        "and its link to the others; rerun with --pairwise to find the slow pair";
    f.reference = "nccl-tests per-rank timing (-a 3 reports the slowest rank)";
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<Finding> WrongDataFindings(const std::string& coll_name,
                                       const std::vector<SweepRow>& rows,
                                       const std::vector<std::string>& hostnames,
                                       const std::string& backend) {
  std::map<int, std::pair<int64_t, std::vector<std::string>>> by_rank;
  for (const auto& r : rows) {
    for (const auto& [p, place] :
         {std::pair{&r.out_of_place, "out-of-place"}, std::pair{&r.in_place, "in-place"}}) {
      for (size_t k = 0; k < p->rank_wrong.size(); ++k) {
        if (p->rank_wrong[k] == 0) continue;
        auto& [total, where] = by_rank[static_cast<int>(k)];
        total += p->rank_wrong[k];
        if (where.size() < 8) {
          where.push_back(fmt::format("{} {} B {}: {}", comm::DataTypeName(r.op.dtype),
                                      r.op.counts.size_bytes(), place, p->rank_wrong[k]));
        }
      }
    }
  }
  std::vector<Finding> out;
  for (const auto& [rank, info] : by_rank) {
    Finding f = MakeFinding("YS-BENCH-001", RankEntity(rank, hostnames),
                            fmt::format("{}: rank {} received {} wrong element(s) ({})", coll_name,
                                        rank, info.first, backend));
    f.evidence = {{"wrong_elements", std::to_string(info.first)},
                  {"where", Join(info.second, "; ")}};
    f.fix =
        backend == "nccl"
            ? "Check that GPU's ECC, XID and row-remap state (yardstick preflight) and rerun with "
              "NCCL_DEBUG=WARN; drain the node if it repeats"
            : "Check that node's memory errors (EDAC counters, yardstick preflight) and rerun; "
              "drain it if "
              "it repeats";
    f.reference = "nccl-tests data check (-c 1, #wrong column)";
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<std::vector<std::pair<int, int>>> PairRounds(int nranks) {
  std::vector<std::vector<std::pair<int, int>>> rounds;
  if (nranks < 2) return rounds;
  if (nranks <= kExhaustivePairRanks) {
    // Round-robin (circle method): every pair exactly once, disjoint pairs per round.
    int m = nranks + (nranks % 2);  // a dummy rank sits opposite the idle one for odd n
    std::vector<int> seat(m);
    for (int i = 0; i < m; ++i) seat[i] = i;
    for (int round = 0; round < m - 1; ++round) {
      std::vector<std::pair<int, int>> pairs;
      for (int i = 0; i < m / 2; ++i) {
        int a = seat[i], b = seat[m - 1 - i];
        if (a < nranks && b < nranks) pairs.emplace_back(std::min(a, b), std::max(a, b));
      }
      std::sort(pairs.begin(), pairs.end());
      rounds.push_back(std::move(pairs));
      std::rotate(seat.begin() + 1, seat.end() - 1, seat.end());
    }
    return rounds;
  }
  // Ring neighbours, greedily packed into rounds of disjoint pairs.
  std::set<std::pair<int, int>> edges;
  for (int i = 0; i < nranks; ++i) {
    int j = (i + 1) % nranks;
    edges.emplace(std::min(i, j), std::max(i, j));
  }
  for (const auto& e : edges) {
    bool placed = false;
    for (auto& round : rounds) {
      bool clash = std::any_of(round.begin(), round.end(), [&](const auto& p) {
        return p.first == e.first || p.first == e.second || p.second == e.first ||
               p.second == e.second;
      });
      if (!clash) {
        round.push_back(e);
        placed = true;
        break;
      }
    }
    if (!placed) rounds.push_back({e});
  }
  return rounds;
}

std::vector<Finding> SlowPairFindings(const std::string& coll_name,
                                      const std::vector<PairResult>& pairs,
                                      const std::vector<std::string>& hostnames) {
  std::vector<Finding> out;
  if (pairs.size() < 3) return out;
  std::vector<double> busbw;
  for (const auto& p : pairs) busbw.push_back(p.result.bw.busbw_gbps);
  double median = Median(busbw);
  for (const auto& p : pairs) {
    double bw = p.result.bw.busbw_gbps;
    if (median <= 0 || bw >= kSlowPairFraction * median) continue;
    Finding f =
        MakeFinding("YS-BENCH-003", RankEntity(p.a, hostnames) + " - " + RankEntity(p.b, hostnames),
                    fmt::format("{} between ranks {} and {}: busbw {:.3g} GB/s, {:.0f}% of the "
                                "median pair's {:.3g} GB/s",
                                coll_name, p.a, p.b, bw, 100.0 * bw / median, median));
    f.evidence = {{"busbw_gbps", fmt::format("{:.4g}", bw)},
                  {"median_pair_busbw_gbps", fmt::format("{:.4g}", median)},
                  {"time_us", fmt::format("{:.4g}", p.result.time_us)},
                  {"pairs", std::to_string(pairs.size())}};
    f.fix =
        "Check the link between those two ranks' GPUs or nodes (NIC port state and errors, cables, "
        "PCIe/NVLink width and speed: yardstick preflight and yardstick topo on both nodes)";
    f.reference = "pairwise nccl-tests as in GCM check-nccl --pairwise";
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace ys::bench::coll
