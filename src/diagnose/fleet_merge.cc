#include "diagnose/fleet_merge.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>

#include "core/report_json.h"

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

Result<FleetReport> MergeFleet(const std::vector<std::string>& inputs, const MergeOptions& options) {
  FleetAccumulator accumulator(options.fleet);
  std::vector<SkippedDocument> skipped;
  std::set<std::string> skipped_paths;  // grows with the malformed documents only
  Status first_error = Status::Ok();
  uint64_t read = 0;
  // With keep_going an input that cannot be walked (a directory without run documents, an
  // unreadable list) is skipped and named like a malformed document.
  std::vector<std::string> walked;
  for (const std::string& input : inputs) {
    Status s = ForEachInputDocument({input}, [&](const std::string& path) {
      if (!first_error.ok()) return;
      auto doc = ReadRunDocument(path);
      if (!doc.ok()) {
        if (!options.keep_going) {
          first_error = doc.status();
        } else if (skipped_paths.insert(path).second) {
          skipped.push_back({path, doc.status().message()});
        }
        return;
      }
      ++read;
      ForEachMeasurement(*doc,
                         [&](const Measurement& m, const std::string&) { accumulator.Add(m); });
    });
    YS_RETURN_IF_ERROR(first_error);
    if (s.ok()) {
      walked.push_back(input);
    } else if (!options.keep_going) {
      return s;
    } else if (skipped_paths.insert(input).second) {
      skipped.push_back({input, s.message()});
    }
  }
  if (read == 0) {
    std::string why;
    for (size_t i = 0; i < skipped.size() && i < 3; ++i)
      why += (i ? "; " : ": ") + skipped[i].error;
    if (skipped.size() > 3) why += fmt::format("; and {} more", skipped.size() - 3);
    return Status::Invalid(fmt::format(
        "no run document could be read from the inputs ({} skipped){}", skipped.size(), why));
  }

  FleetJudge judge(accumulator.Finalize(), options.fleet);
  YS_RETURN_IF_ERROR(ForEachInputDocument(walked, [&](const std::string& path) {
    if (skipped_paths.count(path)) return;
    auto doc = ReadRunDocument(path);
    if (!doc.ok()) {  // changed since pass 1
      if (skipped_paths.insert(path).second) skipped.push_back({path, doc.status().message()});
      return;
    }
    judge.AddDocument(*doc, path);
  }));
  FleetReport report = judge.Finish();
  std::sort(skipped.begin(), skipped.end(),
            [](const SkippedDocument& a, const SkippedDocument& b) { return a.path < b.path; });
  report.skipped = std::move(skipped);
  report.warnings = accumulator.conflicts();
  return report;
}

}  // namespace ys::diagnose
