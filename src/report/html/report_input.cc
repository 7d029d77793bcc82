#include "report/html/report_input.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "core/run_document_json.h"
#include "core/scratch_dir.h"
#include "core/text.h"
#include "validate/archive.h"

namespace ys::report::html {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

bool IsDiagnosisFile(const json& j) {
  return j.is_object() && j.contains("diagnosis") && !j.contains("schema_version") &&
         !j.contains("kind");
}

Status AddDiagnosisFile(const json& j, const std::string& where, ReportInput& in) {
  if (!j["diagnosis"].is_array()) return Status::Invalid(where + ": diagnosis: expected an array");
  for (size_t i = 0; i < j["diagnosis"].size(); ++i) {
    auto d = DiagnosisFromJson(j["diagnosis"][i], where + ": diagnosis[" + std::to_string(i) + "]");
    if (!d.ok()) return d.status();
    in.diagnosis.push_back(std::move(*d));
  }
  return Status::Ok();
}

Status AddDirectory(const std::string& dir, ReportInput& in) {
  bool any = false;
  std::error_code ec;
  for (const char* name : {"run.json", "validation.json", "diagnosis.json"}) {
    std::string p = (fs::path(dir) / name).string();
    if (!fs::exists(p, ec)) continue;
    auto j = ReadJsonFile(p);
    if (!j.ok()) return j.status();
    YS_RETURN_IF_ERROR(AddDocument(*j, p, in));
    if (std::string(name) != "diagnosis.json") any = true;
  }
  if (!any) return Status::NotFound(dir + ": a run directory needs run.json or validation.json");
  return Status::Ok();
}

Status AddArchive(const std::string& path, ReportInput& in) {
  auto scratch = ScratchDir::Make("yardstick-report");
  if (!scratch.ok()) return scratch.status();
  auto archive = validate::OpenArchive(path, scratch->path() + "/x", /*pubkey_pem_path=*/"");
  if (!archive.ok()) return Status::Invalid(path + ": " + archive.status().message());
  for (const std::string& p : archive->problems) in.notes.push_back("archive integrity: " + p);
  in.notes.push_back("archive " + archive->name + ": " + archive->signature_summary);
  Status s = AddDirectory(archive->root_dir, in);
  if (!s.ok()) return Status::Invalid(path + " (archive): " + s.message());
  return Status::Ok();
}

}  // namespace

Status AddDocument(const json& j, const std::string& where, ReportInput& in) {
  if (IsValidationDocument(j)) {
    auto v = ValidationViewFromJson(j, where);
    if (!v.ok()) return v.status();
    in.validation = std::move(*v);
    return Status::Ok();
  }
  if (IsDiagnosisFile(j)) return AddDiagnosisFile(j, where, in);
  auto doc = RunDocumentFromJson(j);
  if (!doc.ok()) {
    return Status::Invalid(where +
                           ": not a run document (nor a validation document, \"kind\": "
                           "\"yardstick-validation\", nor a diagnosis.json): " +
                           doc.status().message());
  }
  for (const Diagnosis& d : doc->diagnosis) in.diagnosis.push_back(d);
  in.run = std::move(*doc);
  return Status::Ok();
}

void RankDiagnosis(ReportInput& in) {
  std::set<std::pair<std::string, std::string>> seen;
  std::vector<Diagnosis> unique;
  for (Diagnosis& d : in.diagnosis) {
    if (seen.insert({d.rule, d.entity}).second) unique.push_back(std::move(d));
  }
  std::stable_sort(unique.begin(), unique.end(), [](const Diagnosis& a, const Diagnosis& b) {
    if (a.recovery.Midpoint() != b.recovery.Midpoint()) {
      return a.recovery.Midpoint() > b.recovery.Midpoint();
    }
    return a.recovery.high > b.recovery.high;
  });
  in.diagnosis = std::move(unique);
}

Result<ReportInput> LoadReportInput(const std::string& path) {
  ReportInput in;
  in.source = path;
  std::error_code ec;
  if (!fs::exists(path, ec)) return Status::NotFound(path + ": no such file or directory");
  if (fs::is_directory(path, ec)) {
    YS_RETURN_IF_ERROR(AddDirectory(path, in));
  } else if (EndsWith(path, ".tar.zst")) {
    YS_RETURN_IF_ERROR(AddArchive(path, in));
  } else {
    auto j = ReadJsonFile(path);
    if (!j.ok()) return j.status();
    YS_RETURN_IF_ERROR(AddDocument(*j, path, in));
    if (!in.run && !in.validation) {
      return Status::Invalid(path +
                             ": a diagnosis.json alone has nothing to report on; name its "
                             "run directory");
    }
  }
  RankDiagnosis(in);
  return in;
}

}  // namespace ys::report::html
