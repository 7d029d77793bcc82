#include "validate/nccl_tests_run.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "bench/benchmark.h"
#include "core/document_file.h"
#include "core/finding_codes.h"
#include "core/text.h"
#include "validate/nccl_tests_ranks.h"
#include "validate/nccl_tests_verdict.h"

namespace ys::validate {

// A data check of an nccl-tests log with wrong elements (as coll.* raise it).
YS_FINDING_CODES("validate.nccl_tests",
                 {{"YS-BENCH-001", Severity::kFail, "collective data check found wrong elements"}})

// Named, not anonymous: the library is built in unity batches.
namespace nccl_tests_run_impl {

// The collective a table without a name measured, or Invalid naming the candidates.
Result<std::string> InferCollective(const NcclTestsTable& t, int nranks, std::string_view name) {
  const NcclTestsRow* big = nullptr;
  for (const NcclTestsRow& r : t.rows) {
    if (r.count > 0 && r.out_of_place.algbw_gbps > 0) big = &r;
  }
  std::vector<std::string> fits;
  for (const NcclTestsShape* it = NcclTestsShapesBegin(); it != NcclTestsShapesEnd(); ++it) {
    const NcclTestsShape& s = *it;
    if (big == nullptr) break;
    // Without a count in the log, the one the ratio gives for this collective.
    int n = nranks;
    if (auto r = n > 0 ? std::nullopt : RanksFromRatio(t, s.name)) n = r->n;
    bool rooted = big->root >= 0;
    if (s.rooted != rooted || (!big->redop.empty() && s.reduces != (big->redop != "none"))) {
      continue;
    }
    size_t es = NcclTestsElementBytes(big->dtype);
    if (es > 0 && n > 0) {
      uint64_t whole = big->count * es;
      bool per_rank = whole * static_cast<uint64_t>(n) == big->size_bytes;
      if ((s.per_rank_count ? per_rank : whole == big->size_bytes) == false) continue;
    }
    if ((n > 0 || !s.factor_depends_on_ranks) && big->out_of_place.algbw_gbps >= 0.5) {
      double ratio = big->out_of_place.busbw_gbps / big->out_of_place.algbw_gbps;
      double want = s.factor(std::max(n, 1));
      if (std::abs(ratio - want) > 0.05 * want + 0.02) continue;
    }
    fits.emplace_back(s.name);
  }
  if (fits.size() == 1) return fits.front();
  return Status::Invalid(fmt::format(
      "{}:{}: the log does not name the collective of this table (no '# Collective test "
      "starting: <name>_perf' line or *_perf command line before it) and its columns fit {}; "
      "give --collective",
      name, t.header_line,
      fits.empty() ? std::string("none of the nccl-tests collectives") : Join(fits, " or ")));
}

std::string Library(const NcclTestsLog& log) {
  return log.nccl_version.empty() ? "NCCL" : "NCCL " + log.nccl_version;
}

int GpusPerProcess(const NcclTestsLog& log) { return log.threads * log.gpus_per_thread; }

// The facts every measurement of the table shares, as the bench writes them.
std::map<std::string, std::string> CommonParams(const NcclTestsLog& log, int nranks) {
  std::map<std::string, std::string> p = {
      {"backend", "nccl"}, {"library", Library(log)}, {"device", "gpu"}};
  if (nranks > 0) p["ranks"] = std::to_string(nranks);  // 0: neither device list nor nThread
  if (GpusPerProcess(log) > 1) p["gpus_per_process"] = std::to_string(GpusPerProcess(log));
  return p;
}

Measurement OneSample(std::string name, const char* unit, Better better, double value,
                      std::map<std::string, std::string> params) {
  Measurement m = bench::MakeMeasurement(std::move(name), unit, better, {value}, std::move(params));
  m.value = value;
  return m;
}

// Each placement's busbw, algbw and time as measurements; with `bandwidth` false (one rank: no
// data crossed a link) only the time. A placement whose figures are no bandwidth (a time of 0, a
// rate no GPU reaches) keeps its time only and is listed in `dropped`.
void AddRowMeasurements(BenchmarkResult& r, const std::string& id, const NcclTestsRow& row,
                        const std::map<std::string, std::string>& common, bool bandwidth,
                        std::vector<std::string>& dropped) {
  for (const auto& [place, in_place] : {std::pair{&row.out_of_place, false},
                                        std::pair{row.in_place ? &*row.in_place : nullptr, true}}) {
    if (place == nullptr) continue;
    std::map<std::string, std::string> params = common;
    params["size"] = std::to_string(row.size_bytes);
    params["count"] = std::to_string(row.count);
    params["dtype"] = row.dtype;
    params["inplace"] = in_place ? "1" : "0";
    params["value"] = "time averaged over ranks (nccl-tests); samples per rank";
    bool plausible = PlausibleNcclTestsPlace(*place);
    if (!plausible && bandwidth && dropped.size() < 8) {
      dropped.push_back(fmt::format("{} B {} (line {}): {:g} us, busbw {:g} GB/s", row.size_bytes,
                                    in_place ? "in place" : "out of place", row.line,
                                    place->time_us, place->busbw_gbps));
    }
    if (bandwidth && plausible) {
      r.measurements.push_back(
          OneSample(id + ".busbw", "GB/s", Better::kHigher, place->busbw_gbps, params));
      r.measurements.push_back(
          OneSample(id + ".algbw", "GB/s", Better::kHigher, place->algbw_gbps, params));
    }
    if (place->time_us > 0) {
      r.measurements.push_back(
          OneSample(id + ".time_us", "us", Better::kLower, place->time_us, std::move(params)));
    }
  }
}

// Per dtype: coll.<c>.avg_busbw, the mean busbw over the rows of that dtype (both placements,
// the plausible ones); with one dtype and every placement plausible, the log's own "Avg bus
// bandwidth" figure where it printed one.
void AddAverages(BenchmarkResult& r, const std::string& id, const NcclTestsTable& t,
                 const std::map<std::string, std::string>& common) {
  std::map<std::string, std::vector<const NcclTestsRow*>> by_dtype;
  for (const NcclTestsRow& row : t.rows) by_dtype[row.dtype].push_back(&row);
  bool every = true;
  for (const auto& [dtype, rows] : by_dtype) {
    std::vector<double> all;
    uint64_t lo = rows.front()->size_bytes, hi = lo;
    for (const NcclTestsRow* row : rows) {
      for (const NcclTestsPlace* p :
           {&row->out_of_place, row->in_place ? &*row->in_place : nullptr}) {
        if (p == nullptr) continue;
        every &= PlausibleNcclTestsPlace(*p);
        if (PlausibleNcclTestsPlace(*p)) all.push_back(p->busbw_gbps);
      }
      lo = std::min(lo, row->size_bytes);
      hi = std::max(hi, row->size_bytes);
    }
    if (all.empty()) continue;
    std::map<std::string, std::string> params = common;
    params["dtype"] = dtype;
    params["sizes"] = bench::FormatByteSize(lo) + ".." + bench::FormatByteSize(hi);
    params["value"] = "mean busbw over all sizes, out of place and in place (nccl-tests)";
    Measurement m = bench::MakeMeasurement(id + ".avg_busbw", "GB/s", Better::kHigher, all, params);
    double mean = 0;
    for (double v : all) mean += v / static_cast<double>(all.size());
    m.value = by_dtype.size() == 1 && every && t.avg_busbw_gbps ? *t.avg_busbw_gbps : mean;
    r.measurements.push_back(std::move(m));
  }
}

ResultTable PrintedTable(const std::string& id, const NcclTestsTable& t, int nranks,
                         std::string_view name) {
  ResultTable out;
  out.title = fmt::format(
      "{}: nccl-tests log {} (line {}), {} rank{}; size in B, count in "
      "elements, time in us, algbw and busbw in GB/s",
      id, name, t.header_line, nranks, nranks == 1 ? "" : "s");
  out.columns = {"size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong"};
  bool two = !t.rows.empty() && t.rows.front().in_place.has_value();
  if (two) out.columns.insert(out.columns.end(), {"time", "algbw", "busbw", "#wrong"});
  for (const NcclTestsRow& row : t.rows) {
    std::vector<std::string> cells = row.cells;
    // The older layout has no root column: "-1" or the root keeps the bench's columns.
    if (cells.size() + 1 == out.columns.size()) {
      cells.insert(cells.begin() + 4, std::to_string(row.root));
    }
    if (cells.size() == out.columns.size()) out.rows.push_back(std::move(cells));
  }
  if (t.out_of_bounds) {
    out.footer.push_back(fmt::format("# Out of bounds values : {} {}", *t.out_of_bounds,
                                     t.out_of_bounds_failed ? "FAILED" : "OK"));
  }
  if (t.avg_busbw_gbps) {
    out.footer.push_back(fmt::format("# Avg bus bandwidth    : {:g}", *t.avg_busbw_gbps));
  }
  return out;
}

// YS-BENCH-001 for the wrong elements the data check found (the log holds the sum over the
// ranks, not which rank), or for "Out of bounds values : N FAILED" when no row says where.
std::vector<Finding> WrongDataFindings(const std::string& id, const NcclTestsTable& t) {
  int64_t total = 0;
  std::vector<std::string> where;
  for (const NcclTestsRow& row : t.rows) {
    for (const auto& [place, label] :
         {std::pair{&row.out_of_place, "out-of-place"},
          std::pair{row.in_place ? &*row.in_place : nullptr, "in-place"}}) {
      if (place == nullptr || !place->wrong || *place->wrong == 0) continue;
      total += *place->wrong;
      if (where.size() < 8) {
        where.push_back(fmt::format("{} {} B {}: {} (line {})", row.dtype, row.size_bytes, label,
                                    *place->wrong, row.line));
      }
    }
  }
  std::vector<Finding> out;
  if (total == 0 && !t.out_of_bounds_failed) return out;
  std::string message =
      total > 0 ? fmt::format("{}: the data check found {} wrong element(s) (nccl-tests #wrong)",
                              id, total)
                : fmt::format("{}: the data check failed: {} out-of-bounds value(s) (nccl-tests)",
                              id, t.out_of_bounds.value_or(0));
  Finding f = MakeFinding("YS-BENCH-001", id, std::move(message));
  f.evidence = {{"wrong_elements", std::to_string(total)},
                {"out_of_bounds_values",
                 t.out_of_bounds ? std::to_string(*t.out_of_bounds) : std::string("not printed")}};
  if (!where.empty()) f.evidence.emplace_back("where", Join(where, "; "));
  f.fix =
      "Rerun per node and per GPU pair to find the rank (the log sums the ranks); check those "
      "GPUs' ECC, XID and row-remap state (yardstick preflight) and drain the node if it repeats";
  f.reference = "nccl-tests data check (-c 1, #wrong column)";
  out.push_back(std::move(f));
  return out;
}

std::string DataCheckNote(const NcclTestsLog& log, const NcclTestsTable& t) {
  bool checked = false;
  for (const NcclTestsRow& row : t.rows) {
    checked |=
        row.out_of_place.wrong.has_value() || (row.in_place && row.in_place->wrong.has_value());
  }
  if (t.error_column) return "older nccl-tests 'error' column: judged by the Out of bounds line";
  if (checked) return "on (-c 1): #wrong per row";
  return log.validation == 0 ? "off (-c 0): #wrong N/A, correctness not checked"
                             : "#wrong N/A in every row: correctness not checked";
}

std::string GpuList(const NcclTestsLog& log) {
  std::map<std::string, int> models;
  for (const NcclTestsRank& r : log.ranks) models[r.gpu.empty() ? "unnamed" : r.gpu]++;
  std::vector<std::string> parts;
  for (const auto& [model, n] : models) parts.push_back(fmt::format("{} x {}", n, model));
  return Join(parts, ", ");
}

std::string Summary(const NcclTestsTable& t, int nranks, std::string_view name,
                    const BenchmarkResult& r) {
  const NcclTestsRow& big = t.rows.back();
  std::string oob = t.out_of_bounds ? std::to_string(*t.out_of_bounds) : "none printed";
  if (nranks == 1) {
    return fmt::format(
        "nccl on 1 rank (gpu), from {}: {}: no communication (one GPU copies locally; its "
        "busbw columns are not a bandwidth); {} out of bounds",
        name, big.dtype, oob);
  }
  double avg = 0;
  for (const Measurement& m : r.measurements) {
    if (EndsWith(m.name, ".avg_busbw")) avg = m.value;
  }
  return fmt::format(
      "nccl on {} rank{} (gpu), from {}: {}: avg busbw {:.4g} GB/s; at {} B busbw {:.3g} out of "
      "place{}; {} out of bounds",
      nranks, nranks == 1 ? "" : "s", name, big.dtype, avg, big.size_bytes,
      big.out_of_place.busbw_gbps,
      big.in_place ? fmt::format(", {:.3g} in place", big.in_place->busbw_gbps) : "", oob);
}

// The bandwidth verdict: its warnings, and INCONCLUSIVE (error: could not evaluate) when nothing
// else decides and the bandwidth could not be judged, so that a clean data check alone is no
// pass.
void JudgeBandwidth(BenchmarkResult& r, const NcclTestsLog& log, const NcclTestsTable& t,
                    const std::string& id, int nranks) {
  NcclTestsBandwidthVerdict v = JudgeNcclTestsBandwidth(log, t, id, nranks);
  r.Note("bandwidth", (v.judged ? "judged: " : "not judged: ") + v.reason);
  bool failed = !r.findings.empty();
  for (Finding& f : v.findings) r.Add(std::move(f));
  if (failed || v.judged || !r.findings.empty()) return;
  r.outcome = Outcome::kError;
  r.summary = "bandwidth not judged (INCONCLUSIVE): " + v.reason +
              (nranks == 1 ? "" : "; the data check alone is no pass") + ". " + r.summary;
}

Result<BenchmarkResult> TableResult(const NcclTestsLog& log, const NcclTestsTable& t,
                                    std::string_view name, const std::string& forced) {
  std::string collective = !t.collective.empty() ? t.collective : forced;
  if (collective.empty()) {
    auto inferred = InferCollective(t, ResolveNcclTestsRanks(log, t, "").n, name);
    if (!inferred.ok()) return inferred.status();
    collective = *inferred;
  }
  const NcclTestsRankCount ranks = ResolveNcclTestsRanks(log, t, collective);
  const int nranks = ranks.n;
  const std::string id = "coll." + collective;
  auto common = CommonParams(log, nranks);
  BenchmarkResult r;
  r.Note("source", fmt::format("nccl-tests log {} (table at line {})", name, t.header_line));
  if (!t.binary.empty()) r.Note("binary", t.binary);
  if (!log.tests_version.empty()) r.Note("nccl_tests_version", log.tests_version);
  r.Note("backend", "nccl (" + Library(log) + "), device buffers");
  r.Note("ranks", nranks > 0 ? std::to_string(nranks) : "not in the log");
  if (nranks > 0) r.Note("ranks_from", ranks.source);
  if (!log.ranks.empty()) r.Note("gpus", GpuList(log));
  if (GpusPerProcess(log) > 1) {
    r.Note("layout", fmt::format("one process drives {} GPUs (nccl-tests -t {} -g {})",
                                 GpusPerProcess(log), log.threads, log.gpus_per_thread));
  }
  r.Note("data_check", DataCheckNote(log, t));
  std::vector<std::string> dropped;
  for (const NcclTestsRow& row : t.rows) {
    AddRowMeasurements(r, id, row, common, nranks != 1, dropped);
  }
  if (nranks == 1) r.Note("communication", "none: 1 rank; busbw and algbw not kept");
  if (!dropped.empty()) r.Note("not_a_bandwidth", Join(dropped, "; "));
  if (nranks != 1) AddAverages(r, id, t, common);
  r.tables.push_back(PrintedTable(id, t, nranks, name));
  for (Finding& f : WrongDataFindings(id, t)) r.Add(std::move(f));
  r.summary = Summary(t, nranks, name, r);
  JudgeBandwidth(r, log, t, id, nranks);
  r.Seal(id);
  return r;
}

// Every rank of the device list, and the nodes with their ranks, when several processes ran.
void AddRanksAndNodes(const NcclTestsLog& log, RunDocument& doc) {
  std::set<std::pair<std::string, int64_t>> processes;
  for (const NcclTestsRank& r : log.ranks) processes.emplace(r.host, r.pid);
  if (processes.size() < 2) return;
  std::map<std::string, size_t> node_of;
  for (const NcclTestsRank& r : log.ranks) {
    doc.ranks.push_back({.rank = r.rank, .hostname = r.host, .local_rank = r.device});
    auto [it, added] = node_of.emplace(r.host, doc.nodes.size());
    if (added) doc.nodes.push_back({.hostname = r.host});
    doc.nodes[it->second].ranks.push_back(r.rank);
  }
}

}  // namespace nccl_tests_run_impl

Result<RunDocument> NcclTestsRunDocument(const NcclTestsLog& log, std::string_view name,
                                         const std::string& collective) {
  using namespace nccl_tests_run_impl;
  RunDocument doc = StartRunDocument("ingest");
  doc.warnings.clear();  // the figures are the log's, not this build's timings
  if (!log.ranks.empty()) doc.host.hostname = log.ranks.front().host;
  doc.host.root = std::string(name);  // what the document was read from
  AddRanksAndNodes(log, doc);
  for (const NcclTestsTable& t : log.tables) {
    auto r = TableResult(log, t, name, collective);
    if (!r.ok()) return r.status();
    doc.benchmarks.push_back(std::move(*r));
  }
  return doc;
}

Result<RunDocument> IngestNcclTestsText(std::string_view text, std::string_view name,
                                        const std::string& collective) {
  auto log = ParseNcclTestsLog(text, name);
  if (!log.ok()) return log.status();
  return NcclTestsRunDocument(*log, name, collective);
}

Result<std::optional<RunDocument>> IngestNcclTestsFile(const std::string& path, bool forced,
                                                       const std::string& collective) {
  if (!forced) {
    auto f = OpenDocumentStream(path, "an nccl-tests log");
    if (!f.ok()) return std::optional<RunDocument>();
    std::string head(size_t{64} << 10, '\0');
    head.resize(std::fread(head.data(), 1, head.size(), f->get()));
    if (!LooksLikeNcclTests(head)) return std::optional<RunDocument>();
  }
  auto text = ReadDocumentFile(path, kMaxNcclTestsLogBytes, "an nccl-tests log");
  if (!text.ok()) return text.status();
  auto doc = IngestNcclTestsText(*text, path, collective);
  if (!doc.ok()) return doc.status();
  return std::optional<RunDocument>(std::move(*doc));
}

}  // namespace ys::validate
