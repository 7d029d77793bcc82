#include "fleet/merge.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/document_file.h"
#include "core/progress.h"
#include "core/run_document_json.h"
#include "fleet/actions.h"
#include "fleet/digest.h"
#include "fleet/evidence.h"
#include "fleet/reader.h"

namespace ys::fleet {
namespace fs = std::filesystem;
namespace {

// What one reading thread reuses from document to document.
struct Worker {
  std::string text;
  ShapeCache shapes;
  FleetDocument lean;
};

// The whole file into `text` with one read where it can (its size from fstat), bounded like
// ReadDocumentFile. False on anything unusual: the caller then asks the full reader, whose message
// says what is wrong.
bool ReadWhole(const std::string& path, std::string& text) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st {};
  bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
            static_cast<uint64_t>(st.st_size) < kMaxJsonDocumentBytes;
  size_t size = 0;
  if (ok) {
    // One byte more than the file: a file that grew while read is seen to.
    text.resize(static_cast<size_t>(st.st_size) + 1);
    while (true) {
      ssize_t n = ::read(fd, text.data() + size, text.size() - size);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        ok = n == 0;
        break;
      }
      size += static_cast<size_t>(n);
      if (size == text.size()) {
        ok = false;  // larger than it said
        break;
      }
    }
  }
  ::close(fd);
  text.resize(size);
  return ok;
}

// A hash of a sample of a document's bytes (with its size), for finding the same document under
// two names: the first and last 4 KiB and 32 bytes of every further 4 KiB, so that the few GB of
// a large fleet are not hashed whole. Equal documents always hash equal; documents that hash
// equal are compared byte for byte (SameContent) before they are called the same.
uint64_t ContentHash(std::string_view s) {
  constexpr uint64_t kMul = 0xff51afd7ed558ccdull;
  constexpr size_t kEdge = 4096, kStride = 4096, kSample = 32;
  uint64_t h[4] = {0x9E3779B97F4A7C15ull ^ s.size(), 0xC2B2AE3D27D4EB4Full, 0x165667B19E3779F9ull,
                   0x27D4EB2F165667C5ull};
  auto mix = [](uint64_t x, uint64_t w) {
    x = (x ^ w) * kMul;
    return x ^ (x >> 29);
  };
  auto block = [&](size_t at) {  // 32 bytes from `at` (at + 32 <= size)
    uint64_t w[4];
    std::memcpy(w, s.data() + at, 32);
    for (int j = 0; j < 4; ++j) h[j] = mix(h[j], w[j]);
  };
  auto span = [&](size_t from, size_t to) {  // every byte of [from, to), whole blocks
    for (; from + 32 <= to; from += 32) block(from);
  };
  if (s.size() <= 2 * kEdge + kStride) {
    span(0, s.size());
  } else {
    span(0, kEdge);
    for (size_t at = kEdge; at + kSample <= s.size() - kEdge; at += kStride) block(at);
    span(s.size() - kEdge - (s.size() - kEdge) % 32, s.size() - (s.size() % 32));
  }
  size_t tail_at = s.size() - s.size() % 32;  // the bytes no whole block covered
  uint64_t tail[4] = {0, 0, 0, 0};
  std::memcpy(tail, s.data() + tail_at, s.size() - tail_at);
  uint64_t out = h[0];
  for (int j = 0; j < 4; ++j) out = mix(out, tail[j]);
  for (int j = 1; j < 4; ++j) out = mix(out, h[j]);
  return out;
}

// Whether two files hold the same bytes (both read whole; false when either cannot be read).
bool SameContent(const std::string& a, const std::string& b) {
  std::string ta, tb;
  return ReadWhole(a, ta) && ReadWhole(b, tb) && ta == tb;
}

// One document as the merge reads it: the lean reader first, the full reader for its message.
struct Loaded {
  bool lean = false;               // in the worker's `lean`
  std::optional<RunDocument> doc;  // read by the full reader
  Status error = Status::Ok();
  uint64_t hash = 0, bytes = 0;
  const std::string& hostname(const Worker& w) const {
    return lean ? w.lean.doc.host.hostname : doc->host.hostname;
  }
  bool ok() const { return lean || doc.has_value(); }
};

Loaded Load(const std::string& path, Worker& w) {
  Loaded l;
  w.shapes.Trim();
  if (ReadWhole(path, w.text)) {
    l.hash = ContentHash(w.text);
    l.bytes = w.text.size();
    l.lean = ReadFleetDocument(w.text, w.shapes, &w.lean) && !w.lean.doc.host.hostname.empty();
  }
  if (!l.lean) {
    auto full = ReadRunDocument(path);
    if (full.ok()) {
      if (l.bytes == 0) {  // read by the full reader only: hash its text for the duplicates
        auto text = ReadDocumentFile(path, DocumentKind::kJson);
        if (text.ok()) {
          l.hash = ContentHash(*text);
          l.bytes = text->size();
        }
      }
      l.doc = std::move(*full);
    } else {
      l.error = full.status();
    }
  }
  return l;
}

// Calls f(i, worker) for every i in [0, n) on `threads` threads (worker < threads), in no
// particular order.
void ParallelFor(size_t n, unsigned threads, const std::function<void(size_t, unsigned)>& f) {
  std::atomic<size_t> next{0};
  auto work = [&](unsigned w) {
    for (size_t i; (i = next.fetch_add(1)) < n;) f(i, w);
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work, t);
  work(0);
  for (auto& t : pool) t.join();
}

std::string NodeNameOfPath(const std::string& path) {
  std::string name = fs::path(path).filename().string();
  for (const char* suffix : {".run.json", ".json"}) {
    if (name.ends_with(suffix) && name.size() > std::strlen(suffix))
      return name.substr(0, name.size() - std::strlen(suffix));
  }
  return name;
}

// A row of the ranked list for a document the merge itself judged (kind duplicate or corrupt).
RankedFinding MergeFinding(const std::string& node, const std::string& kind, std::string evidence,
                           std::vector<std::string> sources) {
  return {.node = node,
          .kind = kind,
          .evidence = std::move(evidence),
          .action = ActionFor(FigureKind::kOther, "node", kind),
          .drain = false,
          .sources = std::move(sources)};
}

// One merge through its passes: pass 1 over the JSON, pass 2 over the digests (MergeFleet).
struct MergePasses {
  const MergeOptions& options;
  std::vector<SkippedDocument> skipped;
  std::vector<std::string> paths;
  unsigned threads = 1;
  // The same file named twice: by inode (same_file), by content (another name, the same bytes).
  std::vector<RankedFinding> duplicates;
  std::vector<size_t> same_file;  // index of the first name of the file
  std::vector<FleetAccumulator> accumulators;
  std::vector<Worker> workers;
  std::vector<FleetCensus> censuses;
  std::vector<std::unique_ptr<DigestSpill>> spills;
  std::vector<char> use;  // 1: read and judged
  std::vector<std::string> host;
  std::mutex mu;  // guards what follows
  // (hash, bytes) -> the first index of each distinct content with that hash
  std::map<std::pair<uint64_t, uint64_t>, std::vector<size_t>> by_content;
  std::vector<std::pair<size_t, size_t>> same_content;  // (index, first index)
  std::map<size_t, Status> errors;                      // by index: the first is reported
  Status spill_error = Status::Ok();
  std::atomic<bool> stop{false};
  std::atomic<size_t> started{0};

  // The documents the inputs name (an input in error skipped under keep_going), and the threads.
  Status CollectPaths(const std::vector<std::string>& inputs) {
    for (const std::string& input : inputs) {
      Status s =
          ForEachInputDocument({input}, [&](const std::string& path) { paths.push_back(path); });
      if (s.ok()) continue;
      if (!options.keep_going) return s;
      skipped.push_back({input, s.message()});
    }
    threads =
        options.threads > 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency());
    threads = static_cast<unsigned>(std::min<size_t>(threads, std::max<size_t>(1, paths.size())));
    return Status::Ok();
  }

  // same_file: for each path whose file an earlier path names (by device and inode), that path.
  void FindSameFiles() {
    same_file.assign(paths.size(), SIZE_MAX);
    std::map<std::pair<uint64_t, uint64_t>, size_t> by_inode;
    for (size_t i = 0; i < paths.size(); ++i) {
      struct stat st {};
      if (::stat(paths[i].c_str(), &st) != 0) continue;
      auto [it, fresh] = by_inode.try_emplace(
          {static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino)}, i);
      if (!fresh) same_file[i] = it->second;
    }
  }

  // Each thread's accumulator, worker, census and file of digests.
  Status OpenThreads() {
    accumulators.assign(threads, FleetAccumulator(options.fleet));
    workers = std::vector<Worker>(threads);
    censuses.resize(threads);
    for (unsigned t = 0; t < threads; ++t) {
      auto spill = DigestSpill::Create();
      if (!spill.ok()) return spill.status();
      spills.push_back(std::move(*spill));
    }
    use.assign(paths.size(), 0);
    host.resize(paths.size());
    return Status::Ok();
  }

  // Pass 1 on document i, thread w: read, set aside when its bytes were read under another name,
  // else digested into the thread's accumulator, census and file.
  void ReadOne(size_t i, unsigned w) {
    if (size_t n = ++started; n % 64 == 1 || n == paths.size())
      Progress().Step("reading documents", n, paths.size(), "");
    if (stop || same_file[i] != SIZE_MAX) return;
    Loaded l = Load(paths[i], workers[w]);
    if (!l.ok()) {
      std::lock_guard lock(mu);
      errors.emplace(i, l.error);
      if (!options.keep_going) stop = true;
      return;
    }
    {
      std::lock_guard lock(mu);
      host[i] = l.hostname(workers[w]);
      std::vector<size_t>& seen = by_content[{l.hash, l.bytes}];
      auto same = std::find_if(seen.begin(), seen.end(),
                               [&](size_t j) { return SameContent(paths[i], paths[j]); });
      if (same != seen.end()) {
        // The same bytes under two names: counted once (the statistics do not depend on which),
        // reported with the lower index as the first name.
        same_content.emplace_back(std::max(*same, i), std::min(*same, i));
        use[std::min(*same, i)] = 1;
        *same = std::min(*same, i);
        return;
      }
      seen.push_back(i);
      use[i] = 1;
    }
    DocumentDigest digest =
        l.lean ? Digest(workers[w].lean, paths[i], accumulators[w], workers[w].shapes)
               : Digest(*l.doc, paths[i], accumulators[w]);
    censuses[w].Add(digest);
    if (Status s = spills[w]->Write(digest); !s.ok()) {
      std::lock_guard lock(mu);
      spill_error = s;
      stop = true;
    }
  }

  // After pass 1: its errors (skipped, or the first without keep_going), the duplicates, and every
  // thread's accumulator and census merged into the first thread's.
  Status FinishReading() {
    YS_RETURN_IF_ERROR(spill_error);
    if (!options.keep_going && !errors.empty())
      return Status::Invalid(errors.begin()->second.message());
    for (const auto& [i, error] : errors) skipped.push_back({paths[i], error.message()});
    auto duplicate = [&](size_t second, size_t first) {
      duplicates.push_back(MergeFinding(host[first], "duplicate",
                                        "the same document given twice (" + paths[first] + " and " +
                                            paths[second] + "): counted once",
                                        {paths[first], paths[second]}));
    };
    for (size_t i = 0; i < paths.size(); ++i) {
      if (same_file[i] != SIZE_MAX && use[same_file[i]]) duplicate(i, same_file[i]);
    }
    for (const auto& [second, first] : same_content) duplicate(second, first);
    for (unsigned t = 1; t < threads; ++t) {
      accumulators[0].Merge(accumulators[t]);
      censuses[0].Merge(censuses[t]);
    }
    return Status::Ok();
  }

  // Reads thread t's file of digests again from the start, calling visit(document number,
  // digest) until it returns false; an error of the file is kept in spill_error.
  void ReplayDigests(size_t t, const std::function<bool(uint32_t, const DocumentDigest&)>& visit) {
    Status s = spills[t]->Rewind();
    DocumentDigest d;
    for (uint32_t document = 0; s.ok(); ++document) {
      auto more = spills[t]->Read(&d);
      if (!more.ok()) s = more.status();
      if (!s.ok() || !*more || !visit(document, d)) break;
    }
    if (!s.ok()) {
      std::lock_guard lock(mu);
      spill_error = s;
    }
  }

  // Pass 2: every thread's digests judged, with the census's verdicts; the peers' samples.
  Status JudgeDigests(FleetJudge& judge, std::vector<PeerSamples>& samples) {
    ParallelFor(threads, threads, [&](size_t t, unsigned) {
      std::vector<const KeyStats*> resolve = judge.Resolve(accumulators[t]);
      ReplayDigests(t, [&](uint32_t, const DocumentDigest& d) {
        FleetJudge::Findings f = judge.Evaluate(d, resolve, &samples[t]);
        censuses[0].Judge(d, f.ranked);
        std::lock_guard lock(mu);
        judge.Record(std::move(f));
        return true;
      });
    });
    return spill_error;
  }

  // After SetPeers: the peers' rows of the documents PeerDocuments names, read again.
  Status AddPeerRows(FleetJudge& judge, const std::vector<PeerSamples>& samples) {
    ParallelFor(threads, threads, [&](size_t t, unsigned) {
      std::vector<uint32_t> wanted = judge.PeerDocuments(samples[t]);
      if (wanted.empty()) return;
      std::vector<const KeyStats*> resolve = judge.Resolve(accumulators[t]);
      size_t next = 0;
      ReplayDigests(t, [&](uint32_t document, const DocumentDigest& d) {
        if (document != wanted[next]) return true;
        ++next;
        std::vector<RankedFinding> rows = judge.PeerRows(d, resolve);
        std::lock_guard lock(mu);
        for (RankedFinding& r : rows) judge.AddRanked(std::move(r));
        return next < wanted.size();
      });
    });
    return spill_error;
  }

  // The report's skipped documents, nodes and warnings, after the judge's Finish.
  void CompleteReport(FleetReport& report) {
    const FleetCensus& census = censuses[0];
    std::sort(skipped.begin(), skipped.end(),
              [](const SkippedDocument& a, const SkippedDocument& b) { return a.path < b.path; });
    report.skipped = std::move(skipped);
    for (size_t i = 0; i < paths.size(); ++i) {
      if (use[i] && !host[i].empty()) report.nodes.push_back(host[i]);
    }
    std::sort(report.nodes.begin(), report.nodes.end());
    report.nodes.erase(std::unique(report.nodes.begin(), report.nodes.end()), report.nodes.end());
    report.warnings = accumulators[0].conflicts();
    for (std::string& w : census.Warnings()) report.warnings.push_back(std::move(w));
    report.too_small = census.nodes() < static_cast<uint64_t>(options.fleet.min_fleet);
    if (report.too_small) {
      report.warnings.push_back(
          fmt::format("the fleet is too small to judge peer-wise ({} node{}, fewer than {}): "
                      "figures were judged against their spec peak where the unit gave one "
                      "(pct_of_peak), the others not at all",
                      census.nodes(), census.nodes() == 1 ? "" : "s", options.fleet.min_fleet));
    }
    for (const SlowMode& m : report.slow_modes) {
      report.warnings.push_back(
          fmt::format("{}: two modes, {:.1f}% of the figures {:.1f}% below the rest: judged "
                      "against the faster mode; the slow mode's nodes are ranked",
                      m.key, 100 * m.share, 100 * m.deficit));
    }
  }
};

}  // namespace

void SortRanked(std::vector<RankedFinding>& ranked) {
  auto severe = [](const RankedFinding& f) {
    if (f.watch) return 1;  // below the loss that drains: after what does
    if (f.kind == "check") return f.drain ? 0 : 1;
    if (f.kind == "incomplete" || f.kind == "corrupt") return 0;
    if (f.kind == "version" || f.kind == "missing_units" || f.kind == "hardware" ||
        f.kind == "duplicate" || f.kind == "spread") {
      return 1;
    }
    return 0;
  };
  std::stable_sort(ranked.begin(), ranked.end(),
                   [&](const RankedFinding& a, const RankedFinding& b) {
                     int sa = severe(a), sb = severe(b);
                     if (sa != sb) return sa < sb;
                     if (a.loss != b.loss) return a.loss > b.loss;
                     if (a.deficit != b.deficit) return a.deficit > b.deficit;
                     return std::tie(a.node, a.entity, a.kind) < std::tie(b.node, b.entity, b.kind);
                   });
}

Result<FleetReport> MergeFleet(const std::vector<std::string>& inputs,
                               const MergeOptions& options) {
  MergePasses m{options};
  YS_RETURN_IF_ERROR(m.CollectPaths(inputs));
  m.FindSameFiles();
  YS_RETURN_IF_ERROR(m.OpenThreads());
  // Pass 1, over the JSON: per thread an accumulator, a census and a file of digests.
  ParallelFor(m.paths.size(), m.threads, [&](size_t i, unsigned w) { m.ReadOne(i, w); });
  YS_RETURN_IF_ERROR(m.FinishReading());
  FleetCensus& census = m.censuses[0];
  uint64_t read = std::count(m.use.begin(), m.use.end(), 1);
  if (read == 0) {
    std::string why;
    for (size_t i = 0; i < m.skipped.size() && i < 3; ++i)
      why += (i ? "; " : ": ") + m.skipped[i].error;
    if (m.skipped.size() > 3) why += fmt::format("; and {} more", m.skipped.size() - 3);
    return Status::Invalid(fmt::format(
        "no run document could be read from the inputs ({} skipped){}", m.skipped.size(), why));
  }

  // Pass 2, over the digests: the verdicts and each entity's aggregates (the peers' spreads),
  // each thread its own file, recorded under the lock; then the peers' rows, from the few
  // documents with an aggregate beyond its threshold, read again.
  Progress().Transient(fmt::format("judging {} documents against their peers", read));
  FleetJudge judge(m.accumulators[0].Finalize(census.nodes()), options.fleet);
  std::vector<PeerSamples> samples(m.threads);
  YS_RETURN_IF_ERROR(m.JudgeDigests(judge, samples));
  for (unsigned t = 1; t < m.threads; ++t) samples[0].Merge(std::move(samples[t]));
  judge.SetPeers(samples[0]);
  Status peer_rows = m.AddPeerRows(judge, samples);
  samples.clear();
  YS_RETURN_IF_ERROR(peer_rows);
  m.spills.clear();
  for (RankedFinding& f : m.duplicates) judge.AddRanked(std::move(f));
  for (const SkippedDocument& s : m.skipped)
    judge.AddRanked(MergeFinding(NodeNameOfPath(s.path), "corrupt", s.error, {s.path}));
  FleetReport report = judge.Finish();
  SortRanked(report.ranked);
  m.CompleteReport(report);
  return report;
}

}  // namespace ys::fleet
