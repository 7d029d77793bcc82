// The inputs of `yardstick merge` (fleet/merge.h): files, directories and @LIST files walked to
// the run documents they name, and one run document read and checked.
#include "fleet/inputs.h"

#include <filesystem>
#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <system_error>

#include "core/document_file.h"
#include "core/run_document_json.h"

namespace ys::fleet {
namespace fs = std::filesystem;
namespace {

// An @LIST file names one input a line; a million paths fit well under this.
constexpr size_t kMaxListBytes = size_t{256} << 20;

bool IsRunDocumentName(const fs::path& p) {
  std::string name = p.filename().string();
  return name == "run.json" || (name.size() > 9 && name.ends_with(".run.json"));
}

Status VisitDirectory(const std::string& dir,
                      const std::function<void(const std::string&)>& visit) {
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
    if (!open_lists.insert(list).second)
      return Status::Invalid(list + ": the list includes itself");
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
      while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
        line.pop_back();
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
    if (!any)
      return Status::Invalid(input +
                             ": no run documents (run.json or *.run.json) under this directory");
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

}  // namespace ys::fleet
