#include "validate/nccl_tests_ranks.h"

#include <fmt/format.h>

#include <cmath>
#include <iterator>
#include <set>

#include "core/text.h"

namespace ys::validate {
// Named, not anonymous: the library is built in unity batches.
namespace nccl_tests_ranks_impl {

double Twice(double n) { return 2 * (n - 1) / n; }
double Once(double n) { return (n - 1) / n; }
double One(double) { return 1; }

// nccl-tests doc/PERFORMANCE.md and src/<coll>.cu GetBw.
constexpr NcclTestsShape kShapes[] = {{"all_reduce", false, true, false, Twice, true},
                                      {"all_gather", true, false, false, Once, true},
                                      {"reduce_scatter", true, true, false, Once, true},
                                      {"alltoall", true, false, false, Once, true},
                                      {"broadcast", false, false, true, One, false},
                                      {"reduce", false, true, true, One, false},
                                      {"sendrecv", false, true, false, One, false},
                                      {"gather", true, false, true, Once, true},
                                      {"scatter", true, false, true, Once, true},
                                      {"hypercube", true, false, false, Once, true}};

// n from factor value f: 2(n-1)/n = f gives n = 2/(2-f); (n-1)/n = f gives n = 1/(1-f).
std::optional<double> SolveRanks(const NcclTestsShape& s, double f) {
  double top = s.factor == Twice ? 2 : 1;
  if (f >= top || f <= 0) return std::nullopt;
  return top / (top - f);
}

// The device list: distinct rank indices, or the last index + 1 when the list was shortened.
std::optional<NcclTestsRankCount> FromDeviceList(const NcclTestsLog& log) {
  if (log.ranks.empty()) return std::nullopt;
  std::set<int> indices;
  for (const NcclTestsRank& r : log.ranks) indices.insert(r.rank);
  int last = *indices.rbegin();
  if (log.rank_list_elided || last + 1 > static_cast<int>(indices.size())) {
    return NcclTestsRankCount{
        last + 1, fmt::format("the device list, shortened ('...'): its last rank is {}", last)};
  }
  return NcclTestsRankCount{
      static_cast<int>(indices.size()),
      fmt::format("the device list ({} rank{})", indices.size(), indices.size() == 1 ? "" : "s")};
}

std::optional<NcclTestsRankCount> FromCommandLine(const NcclTestsLaunch& l) {
  int per_process = l.threads.value_or(1) * l.gpus.value_or(1);
  if (l.launcher && l.processes) {
    return NcclTestsRankCount{
        *l.processes * per_process,
        fmt::format("the command line: {} processes x {} GPU(s) each", *l.processes, per_process)};
  }
  if (!l.launcher && (l.threads || l.gpus)) {
    return NcclTestsRankCount{
        per_process, fmt::format("the command line: one process driving {} GPU(s) (-t {} -g {})",
                                 per_process, l.threads.value_or(1), l.gpus.value_or(1))};
  }
  return std::nullopt;
}

bool ShowsMpi(const NcclTestsLog& log, const NcclTestsTable& t) {
  return t.launch.launcher || EndsWith(t.binary, "_mpi") || log.prefix == "mpirun --tag-output";
}

}  // namespace nccl_tests_ranks_impl

const NcclTestsShape* FindNcclTestsShape(std::string_view collective) {
  for (const NcclTestsShape& s : nccl_tests_ranks_impl::kShapes) {
    if (collective == s.name) return &s;
  }
  return nullptr;
}

const NcclTestsShape* NcclTestsShapesBegin() { return std::begin(nccl_tests_ranks_impl::kShapes); }
const NcclTestsShape* NcclTestsShapesEnd() { return std::end(nccl_tests_ranks_impl::kShapes); }

std::optional<NcclTestsRankCount> RanksFromRatio(const NcclTestsTable& t,
                                                 std::string_view collective) {
  const NcclTestsShape* s = FindNcclTestsShape(collective);
  if (s == nullptr || !s->factor_depends_on_ranks) return std::nullopt;
  const NcclTestsRow* big = nullptr;
  for (const NcclTestsRow& r : t.rows) {
    if (r.out_of_place.time_us > 0 && r.out_of_place.algbw_gbps >= 0.5 &&
        (big == nullptr || r.out_of_place.algbw_gbps > big->out_of_place.algbw_gbps)) {
      big = &r;
    }
  }
  if (big == nullptr) return std::nullopt;
  const NcclTestsPlace& p = big->out_of_place;
  // The columns are printed to 0.01: bound n by the ratio's extremes.
  double lo_f = (p.busbw_gbps - 0.005) / (p.algbw_gbps + 0.005);
  double hi_f = (p.busbw_gbps + 0.005) / (p.algbw_gbps - 0.005);
  auto mid = nccl_tests_ranks_impl::SolveRanks(*s, p.busbw_gbps / p.algbw_gbps);
  auto lo = nccl_tests_ranks_impl::SolveRanks(*s, lo_f);
  auto hi = nccl_tests_ranks_impl::SolveRanks(*s, hi_f);
  if (!mid || !lo) return std::nullopt;
  double n = std::round(*mid);
  // A whole n inside the rounding interval, and the interval narrow enough to hold only it.
  double top = hi ? *hi : 1e9;
  if (n < 2 || n > 1 << 24 || n < *lo - 0.1 || n > top + 0.1 || top - *lo >= 1) {
    return std::nullopt;
  }
  return NcclTestsRankCount{
      static_cast<int>(n),
      fmt::format("busbw/algbw = {:.4g}/{:.4g} at {} B, {}'s factor on {} ranks", p.busbw_gbps,
                  p.algbw_gbps, big->size_bytes, s->name, n)};
}

NcclTestsRankCount ResolveNcclTestsRanks(const NcclTestsLog& log, const NcclTestsTable& t,
                                         std::string_view collective) {
  using namespace nccl_tests_ranks_impl;
  if (auto c = FromDeviceList(log)) {
    // Each process drives nThread x nGpus ranks: a list with fewer lines is incomplete.
    int per_process = log.threads_line ? log.threads * log.gpus_per_thread : 0;
    if (per_process > c->n) {
      return {per_process, fmt::format("the nThread line: nThread {} x nGpus {} in one process "
                                       "(the device list shows {})",
                                       log.threads, log.gpus_per_thread, c->n)};
    }
    return *c;
  }
  if (log.nccl_nranks) {
    return {*log.nccl_nranks, fmt::format("NCCL's 'nranks {}'", *log.nccl_nranks)};
  }
  if (auto c = FromCommandLine(t.launch)) return *c;
  if (auto c = RanksFromRatio(t, collective)) return *c;
  if (log.threads_line && !ShowsMpi(log, t)) {
    int n = log.threads * log.gpus_per_thread;
    return {n, fmt::format("the nThread line: one process, nThread {} x nGpus {}", log.threads,
                           log.gpus_per_thread)};
  }
  return {};
}

}  // namespace ys::validate
