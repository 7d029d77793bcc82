#include "validate/retry_logs.h"

#include <filesystem>
#include <map>
#include <set>
#include <tuple>

#include "core/text.h"

namespace ys::validate {
namespace {

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

}  // namespace

std::optional<RetryLogName> ParseRetryLogName(std::string_view path) {
  size_t slash = path.rfind('/');
  std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  if (!StartsWith(name, "log-") || !EndsWith(name, ".out")) return std::nullopt;
  name.remove_prefix(4);
  name.remove_suffix(4);
  size_t u2 = name.rfind('_');
  if (u2 == std::string_view::npos || u2 == 0) return std::nullopt;
  size_t u1 = name.rfind('_', u2 - 1);
  if (u1 == std::string_view::npos) return std::nullopt;
  std::string_view job = name.substr(u1 + 1, u2 - u1 - 1);
  std::string_view retry = name.substr(u2 + 1);
  if (!AllDigits(job) || !AllDigits(retry)) return std::nullopt;
  std::optional<int64_t> r = ParseInt(retry);
  if (!r) return std::nullopt;
  return RetryLogName{std::string(name.substr(0, u1)), std::string(job), *r};
}

std::string JobIdOfLog(std::string_view path) {
  std::optional<RetryLogName> n = ParseRetryLogName(path);
  return n ? n->job_id : std::string();
}

RetrySelection SelectNewestRetries(const std::vector<std::string>& paths) {
  using Key = std::tuple<std::string, std::string, std::string>;
  std::map<Key, std::pair<int64_t, std::string>> newest;
  std::set<std::string> seen;
  std::vector<std::string> unique;
  for (const std::string& p : paths) {
    if (!seen.insert(p).second) continue;
    unique.push_back(p);
    std::optional<RetryLogName> n = ParseRetryLogName(p);
    if (!n) continue;
    Key key{std::filesystem::path(p).parent_path().lexically_normal().string(), n->experiment,
            n->job_id};
    auto it = newest.find(key);
    if (it == newest.end() || n->retry > it->second.first) newest[key] = {n->retry, p};
  }
  RetrySelection sel;
  for (const std::string& p : unique) {
    std::optional<RetryLogName> n = ParseRetryLogName(p);
    if (!n) {
      sel.current.push_back(p);
      continue;
    }
    Key key{std::filesystem::path(p).parent_path().lexically_normal().string(), n->experiment,
            n->job_id};
    const std::string& winner = newest[key].second;
    if (winner == p) {
      sel.current.push_back(p);
    } else {
      sel.superseded.push_back({p, winner});
    }
  }
  return sel;
}

}  // namespace ys::validate
