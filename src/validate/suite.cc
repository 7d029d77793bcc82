#include "validate/suite.h"

#include <fmt/format.h>

#include <filesystem>
#include <set>

#include "core/did_you_mean.h"
#include "core/document_file.h"
#include "core/path_component.h"
#include "core/text.h"
#include "core/toml_reader.h"

namespace ys::validate {

const SuiteWorkload* Suite::Find(std::string_view id) const {
  for (const auto& w : workloads) {
    if (w.id == id) return &w;
  }
  return nullptr;
}

const ServingPhase* Suite::FindPhase(std::string_view id) const {
  for (const auto& p : phases) {
    if (p.id == id) return &p;
  }
  return nullptr;
}

namespace {

// The [[phase]] tables; their ids join `ids` (a phase and a workload name the same runs folder).
Status ReadSuitePhases(const toml::table& doc, const std::string& path, Suite& s,
                       std::set<std::string>& ids) {
  const toml::node* node = doc.get("phase");
  if (node == nullptr) return Status::Ok();
  const toml::array* list = node->as_array();
  if (list == nullptr) return Status::Invalid(path + ": phase: expected [[phase]] tables");
  int i = 0;
  for (const auto& n : *list) {
    ++i;
    const toml::table* t = n.as_table();
    if (t == nullptr)
      return Status::Invalid(fmt::format("{}: [[phase]] {}: expected a table", path, i));
    auto p = ParseServingPhase(*t, path, i);
    if (!p.ok()) return p.status();
    if (!ids.insert(p->id).second) {
      return Status::Invalid(path + ": phase " + p->id + " is listed twice");
    }
    s.phases.push_back(std::move(*p));
  }
  return Status::Ok();
}

}  // namespace

Result<Suite> ParseSuite(std::string_view text, const std::string& path) {
  auto doc = ParseToml(text, path);
  if (!doc.ok()) return doc.status();
  Suite s;
  s.path = path;
  for (const auto& [k, v] : *doc) {
    std::string key(k.str());
    if (key != "suite" && key != "workload" && key != "phase") {
      return Status::Invalid(path + ": unknown table [" + key +
                             "]; expected [suite], [[workload]] and [[phase]]");
    }
  }
  const toml::table* head = (*doc)["suite"].as_table();
  if (head == nullptr) return Status::Invalid(path + ": missing [suite] table");
  TomlTableReader r(*head, path, "[suite]");
  YS_RETURN_IF_ERROR(r.String("chip", &s.chip));
  // The chip names the validation archive and the workload ids name directories under --runs.
  YS_RETURN_IF_ERROR(ValidatePathComponent(path + ": [suite] chip", s.chip));
  YS_RETURN_IF_ERROR(r.String("recipe_release", &s.recipe_release));
  YS_RETURN_IF_ERROR(r.String("recipes_of", &s.recipes_of, /*required=*/false));
  if (!s.recipes_of.empty())
    YS_RETURN_IF_ERROR(ValidatePathComponent(path + ": [suite] recipes_of", s.recipes_of));
  YS_RETURN_IF_ERROR(r.String("source", &s.source));
  YS_RETURN_IF_ERROR(r.Double("threshold", &s.threshold, 0.01, 1.5));
  YS_RETURN_IF_ERROR(r.String("rule", &s.rule, /*required=*/false));
  if (s.rule != "every") {
    return r.Error("rule", "expected \"every\" (every workload must pass)");
  }
  const toml::node* window = head->get("window");
  if (window != nullptr) {
    const toml::array* a = window->as_array();
    auto first = a && a->size() == 2 ? (*a)[0].value<int64_t>() : std::nullopt;
    auto last = a && a->size() == 2 ? (*a)[1].value<int64_t>() : std::nullopt;
    if (!first || !last || *first < 1 || *last < *first || *last > 1000000) {
      return r.Error("window", "expected [first, last] iterations, 1 <= first <= last");
    }
    s.window_first = static_cast<int>(*first);
    s.window_last = static_cast<int>(*last);
  }
  r.Consume("window");
  YS_RETURN_IF_ERROR(r.NoOtherKeys());

  std::set<std::string> ids;
  YS_RETURN_IF_ERROR(ReadSuitePhases(*doc, path, s, ids));
  const toml::array* list = (*doc)["workload"].as_array();
  if ((list == nullptr || list->empty()) && s.phases.empty()) {
    return Status::Invalid(path + ": no [[workload]] or [[phase]] entries");
  }
  int i = 0;
  static const toml::array kNoWorkloads;
  for (const auto& node : list ? *list : kNoWorkloads) {
    ++i;
    const toml::table* t = node.as_table();
    if (t == nullptr)
      return Status::Invalid(path + ": [[workload]] " + std::to_string(i) + ": expected a table");
    SuiteWorkload w;
    TomlTableReader wr(*t, path, "[[workload]] " + std::to_string(i));
    YS_RETURN_IF_ERROR(wr.String("id", &w.id));
    YS_RETURN_IF_ERROR(
        ValidatePathComponent(path + ": [[workload]] " + std::to_string(i) + " id", w.id));
    TomlTableReader named(*t, path, "workload " + w.id);
    YS_RETURN_IF_ERROR(named.String("id", &w.id));
    YS_RETURN_IF_ERROR(named.String("model", &w.model));
    YS_RETURN_IF_ERROR(named.String("size", &w.size));
    YS_RETURN_IF_ERROR(named.String("dtype", &w.dtype));
    YS_RETURN_IF_ERROR(named.Int("gpus", &w.gpus, 1, 1 << 20));
    YS_RETURN_IF_ERROR(named.Int("seq_len", &w.seq_len, 1, 1 << 24));
    YS_RETURN_IF_ERROR(named.Int("gbs", &w.gbs, 1, 1 << 24));
    YS_RETURN_IF_ERROR(named.String("framework", &w.framework));
    YS_RETURN_IF_ERROR(named.NoOtherKeys());
    if (!ids.insert(w.id).second)
      return Status::Invalid(path + ": workload " + w.id +
                             " is listed twice (as a workload or phase)");
    s.workloads.push_back(std::move(w));
  }
  return s;
}

Result<Suite> LoadSuite(const std::string& path) {
  auto text = ReadDocumentFile(path, DocumentKind::kToml);
  if (!text.ok()) return text.status();
  return ParseSuite(*text, path);
}

Result<Suite> LoadSuiteByName(const std::string& name, const std::string& data_dir) {
  if (EndsWith(name, ".toml")) return LoadSuite(name);
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_')) {
      return Status::Invalid("--suite " + name +
                             ": expected a chip name like h100 or a .toml path");
    }
  }
  std::vector<std::string> suites;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(data_dir + "/suites", ec)) {
    if (e.path().extension() == ".toml") suites.push_back(e.path().stem().string());
  }
  std::string match = MatchName(name, suites);  // a chip's name in any case: H100 is h100
  auto s = LoadSuite(data_dir + "/suites/" + (match.empty() ? name : match) + ".toml");
  if (!s.ok() && s.status().code() == StatusCode::kNotFound) {
    return Status::NotFound("--suite " + name + ": no suite file " + data_dir + "/suites/" + name +
                            ".toml" + DidYouMean(name, suites));
  }
  return s;
}

}  // namespace ys::validate
