#include "diagnose/fleet_merge.h"

#include <fmt/format.h>

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <future>
#include <set>
#include <sstream>
#include <thread>

#include "core/document_file.h"
#include "core/report_json.h"
#include "diagnose/fleet_actions.h"
#include "diagnose/fleet_evidence.h"
#include "diagnose/fleet_reader.h"

namespace ys::diagnose {
namespace fs = std::filesystem;
namespace {

// An @LIST file names one input a line; a million paths fit well under this.
constexpr size_t kMaxListBytes = size_t{256} << 20;

bool IsRunDocumentName(const fs::path& p) {
  std::string name = p.filename().string();
  return name == "run.json" || (name.size() > 9 && name.ends_with(".run.json"));
}

Status VisitDirectory(const std::string& dir, const std::function<void(const std::string&)>& visit) {
  // In directory order, not sorted: a sorted walk would hold a directory's listing, and one
  // directory may hold every node's document. The statistics do not depend on the order and the
  // report is sorted.
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    std::error_code sec;
    if (it->is_regular_file(sec) && IsRunDocumentName(it->path())) visit(it->path().string());
  }
  if (ec) return Status::Invalid(dir + ": cannot list: " + ec.message());
  return Status::Ok();
}

Status VisitInput(const std::string& input, std::set<std::string>& open_lists,
                  const std::function<void(const std::string&)>& visit) {
  if (input.starts_with("@")) {
    std::string list = input.substr(1);
    if (!open_lists.insert(list).second) return Status::Invalid(list + ": the list includes itself");
    auto text = ReadDocumentFile(list, kMaxListBytes, "a list of documents, one a line");
    if (!text.ok()) {
      std::string why = text.status().message();
      if (why.starts_with(list + ": ")) why.erase(0, list.size() + 2);
      return Status::Invalid(list + ": cannot read the list of documents: " + why);
    }
    std::istringstream in(*text);
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
      ++number;
      while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
      size_t start = line.find_first_not_of(" \t");
      if (start == std::string::npos || line[start] == '#') continue;
      Status s = VisitInput(line.substr(start), open_lists, visit);
      if (!s.ok()) return Status::Invalid(list + ":" + std::to_string(number) + ": " + s.message());
    }
    open_lists.erase(list);
    return Status::Ok();
  }
  std::error_code ec;
  if (fs::is_directory(input, ec)) {
    bool any = false;
    YS_RETURN_IF_ERROR(VisitDirectory(input, [&](const std::string& p) {
      any = true;
      visit(p);
    }));
    if (!any) return Status::Invalid(input + ": no run documents (run.json or *.run.json) under this directory");
    return Status::Ok();
  }
  // A file, or a path that does not exist: ReadRunDocument says which.
  visit(input);
  return Status::Ok();
}

}  // namespace

Status ForEachInputDocument(const std::vector<std::string>& inputs,
                            const std::function<void(const std::string&)>& visit) {
  std::set<std::string> open_lists;
  for (const std::string& input : inputs) YS_RETURN_IF_ERROR(VisitInput(input, open_lists, visit));
  return Status::Ok();
}

Result<RunDocument> ReadRunDocument(const std::string& path) {
  auto j = ReadJsonFile(path);
  if (!j.ok()) return Status::Invalid(j.status().message());
  auto doc = RunDocumentFromJson(*j);
  if (!doc.ok()) return Status::Invalid(path + ": " + doc.status().message());
  if (doc->host.hostname.empty()) {
    return Status::Invalid(path + ": run.host.hostname: empty (merge names nodes by it)");
  }
  return doc;
}

namespace {

// One document as the merge reads it: the lean reader first, the full reader for its message.
struct Loaded {
  std::optional<RunDocument> doc;
  Status error = Status::Ok();
  uint64_t device = 0, inode = 0, hash = 0, bytes = 0;
};

Loaded Load(const std::string& path) {
  Loaded l;
  struct stat st{};
  if (::stat(path.c_str(), &st) == 0) {
    l.device = static_cast<uint64_t>(st.st_dev);
    l.inode = static_cast<uint64_t>(st.st_ino);
  }
  auto text = ReadDocumentFile(path, DocumentKind::kJson);
  if (text.ok()) {
    l.hash = std::hash<std::string_view>{}(*text);
    l.bytes = text->size();
    l.doc = ReadFleetDocument(*text);
    if (l.doc && l.doc->host.hostname.empty()) l.doc.reset();
  }
  if (!l.doc) {
    auto full = ReadRunDocument(path);
    if (full.ok()) {
      l.doc = std::move(*full);
    } else {
      l.error = full.status();
    }
  }
  return l;
}

// Loads paths in windows, in parallel, and hands them to `use` in order; the next window loads
// while this one is used.
void LoadAll(const std::vector<std::string>& paths, unsigned threads,
             const std::function<void(size_t, Loaded&)>& use) {
  const size_t window = 4 * threads;
  auto load = [&](size_t begin) {
    size_t end = std::min(paths.size(), begin + window);
    std::vector<Loaded> out(end - begin);
    std::atomic<size_t> next{begin};
    auto work = [&] {
      for (size_t i; (i = next.fetch_add(1)) < end;) out[i - begin] = Load(paths[i]);
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
    return out;
  };
  if (paths.empty()) return;
  std::future<std::vector<Loaded>> ahead = std::async(std::launch::async, load, 0);
  for (size_t begin = 0; begin < paths.size(); begin += window) {
    std::vector<Loaded> batch = ahead.get();
    if (begin + window < paths.size()) ahead = std::async(std::launch::async, load, begin + window);
    for (size_t i = 0; i < batch.size(); ++i) use(begin + i, batch[i]);
  }
}

std::string NodeNameOfPath(const std::string& path) {
  std::string name = fs::path(path).filename().string();
  for (const char* suffix : {".run.json", ".json"}) {
    if (name.ends_with(suffix) && name.size() > std::strlen(suffix)) return name.substr(0, name.size() - std::strlen(suffix));
  }
  return name;
}

}  // namespace

void SortRanked(std::vector<RankedFinding>& ranked) {
  auto severe = [](const RankedFinding& f) {
    if (f.kind == "check") return f.drain ? 0 : 1;
    if (f.kind == "incomplete" || f.kind == "corrupt") return 0;
    if (f.kind == "version" || f.kind == "missing_units" || f.kind == "hardware" || f.kind == "duplicate" ||
        f.kind == "spread") {
      return 1;
    }
    return 0;
  };
  std::stable_sort(ranked.begin(), ranked.end(), [&](const RankedFinding& a, const RankedFinding& b) {
    int sa = severe(a), sb = severe(b);
    if (sa != sb) return sa < sb;
    if (a.deficit != b.deficit) return a.deficit > b.deficit;
    return std::tie(a.node, a.entity, a.kind) < std::tie(b.node, b.entity, b.kind);
  });
}

Result<FleetReport> MergeFleet(const std::vector<std::string>& inputs, const MergeOptions& options) {
  std::vector<SkippedDocument> skipped;
  std::vector<std::string> paths;
  for (const std::string& input : inputs) {
    Status s = ForEachInputDocument({input}, [&](const std::string& path) { paths.push_back(path); });
    if (s.ok()) continue;
    if (!options.keep_going) return s;
    skipped.push_back({input, s.message()});
  }
  unsigned threads = options.threads > 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency());

  FleetAccumulator accumulator(options.fleet);
  FleetCensus census;
  std::vector<char> use(paths.size(), 0);  // 1: judged in pass 2
  std::map<std::pair<uint64_t, uint64_t>, size_t> by_inode;
  std::map<std::pair<uint64_t, uint64_t>, size_t> by_content;  // (hash, bytes)
  struct Duplicate {
    std::string node, path, first;
  };
  std::vector<Duplicate> duplicates;
  Status first_error = Status::Ok();
  uint64_t read = 0;
  LoadAll(paths, threads, [&](size_t i, Loaded& l) {
    if (!first_error.ok()) return;
    if (!l.doc) {
      if (!options.keep_going) {
        first_error = l.error;
      } else {
        skipped.push_back({paths[i], l.error.message()});
      }
      return;
    }
    size_t* first = nullptr;
    if (l.inode != 0) {
      auto [it, fresh] = by_inode.try_emplace({l.device, l.inode}, i);
      if (!fresh) first = &it->second;
    }
    if (first == nullptr) {
      auto [it, fresh] = by_content.try_emplace({l.hash, l.bytes}, i);
      if (!fresh) first = &it->second;
    }
    if (first != nullptr) {
      duplicates.push_back({l.doc->host.hostname, paths[i], paths[*first]});
      return;
    }
    use[i] = 1;
    ++read;
    std::string model = GpuModelOf(*l.doc);
    ForEachMeasurement(*l.doc, [&](const Measurement& m, const std::string&) { accumulator.Add(m, FleetKeyOf(m, model)); });
    census.Add(*l.doc);
  });
  YS_RETURN_IF_ERROR(first_error);
  if (read == 0) {
    std::string why;
    for (size_t i = 0; i < skipped.size() && i < 3; ++i) why += (i ? "; " : ": ") + skipped[i].error;
    if (skipped.size() > 3) why += fmt::format("; and {} more", skipped.size() - 3);
    return Status::Invalid(fmt::format("no run document could be read from the inputs ({} skipped){}", skipped.size(), why));
  }

  FleetJudge judge(accumulator.Finalize(census.nodes()), options.fleet);
  std::vector<std::string> pass2;
  std::vector<size_t> index;
  for (size_t i = 0; i < paths.size(); ++i) {
    if (use[i]) pass2.push_back(paths[i]), index.push_back(i);
  }
  LoadAll(pass2, threads, [&](size_t k, Loaded& l) {
    if (!l.doc) {  // changed since pass 1
      skipped.push_back({pass2[k], l.error.message()});
      return;
    }
    judge.AddDocument(*l.doc, pass2[k]);
    census.Judge(*l.doc, pass2[k], judge);
  });
  for (const Duplicate& d : duplicates) {
    RankedFinding f;
    f.node = d.node;
    f.kind = "duplicate";
    f.evidence = "the same document given twice (" + d.first + " and " + d.path + "): counted once";
    f.action = ActionFor(FigureKind::kOther, "node", "duplicate");
    f.drain = false;
    f.sources = {d.first, d.path};
    judge.AddRanked(std::move(f));
  }
  for (const SkippedDocument& s : skipped) {
    RankedFinding f;
    f.node = NodeNameOfPath(s.path);
    f.kind = "corrupt";
    f.evidence = s.error;
    f.action = ActionFor(FigureKind::kOther, "node", "corrupt");
    f.drain = false;
    f.sources = {s.path};
    judge.AddRanked(std::move(f));
  }
  FleetReport report = judge.Finish();
  SortRanked(report.ranked);
  std::sort(skipped.begin(), skipped.end(),
            [](const SkippedDocument& a, const SkippedDocument& b) { return a.path < b.path; });
  report.skipped = std::move(skipped);
  report.warnings = accumulator.conflicts();
  for (std::string& w : census.Warnings()) report.warnings.push_back(std::move(w));
  report.too_small = census.nodes() < static_cast<uint64_t>(options.fleet.min_fleet);
  if (report.too_small) {
    report.warnings.push_back(fmt::format(
        "the fleet is too small to judge peer-wise ({} node{}, fewer than {}): figures were judged against their "
        "spec peak where the unit gave one (pct_of_peak), the others not at all",
        census.nodes(), census.nodes() == 1 ? "" : "s", options.fleet.min_fleet));
  }
  for (const SlowMode& m : report.slow_modes) {
    report.warnings.push_back(fmt::format("{}: two modes, {:.1f}% of the figures {:.1f}% below the rest: judged "
                                          "against the faster mode; the slow mode's nodes are ranked",
                                          m.key, 100 * m.share, 100 * m.deficit));
  }
  return report;
}

}  // namespace ys::diagnose
