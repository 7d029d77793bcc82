#include "workloads/serving_calibration.h"

#include <cmath>

#include "core/document_file.h"
#include "core/toml_reader.h"

namespace ys::workloads {
namespace {

Status ReadServingBand(TomlTableReader& r, const std::string& name, ServingErrorBand& band) {
  const std::string median = name + "_median", p90 = name + "_p90";
  YS_RETURN_IF_ERROR(r.Double(median.c_str(), &band.median, 0, 100));
  YS_RETURN_IF_ERROR(r.Double(p90.c_str(), &band.p90, 0, 100));
  if (band.p90 < band.median)
    return r.Error(p90, "expected at least " + median + " (a p90 below the median)");
  return Status::Ok();
}

const toml::table* ServingTableAt(const toml::table& doc, const char* name) {
  const toml::node* n = doc.get(name);
  return n == nullptr ? nullptr : n->as_table();
}

}  // namespace

std::string ServeCpuCalibrationPath(const std::string& data_dir) {
  return data_dir + "/calibration/serve_cpu.toml";
}

Result<ServeCpuCalibration> ParseServeCpuCalibration(std::string_view text,
                                                     const std::string& path) {
  auto doc = ParseToml(text, path);
  if (!doc.ok()) return doc.status();
  for (const auto& [k, n] : *doc) {
    if (k.str() != "provenance" && k.str() != "error")
      return Status::Invalid(path + ": [" + std::string(k.str()) +
                             "]: unknown section (expected [provenance], [error])");
  }
  ServeCpuCalibration cal;
  cal.path = path;
  const toml::table* prov = ServingTableAt(*doc, "provenance");
  const toml::table* err = ServingTableAt(*doc, "error");
  if (prov == nullptr) return Status::Invalid(path + ": missing [provenance] table");
  if (err == nullptr) return Status::Invalid(path + ": missing [error] table");
  TomlTableReader pr(*prov, path, "[provenance]");
  YS_RETURN_IF_ERROR(pr.String("machine", &cal.machine, true, false));
  YS_RETURN_IF_ERROR(pr.String("cpu_model", &cal.cpu_model, true, false));
  YS_RETURN_IF_ERROR(pr.String("date", &cal.date, true, false));
  YS_RETURN_IF_ERROR(pr.String("method", &cal.method, true, false));
  YS_RETURN_IF_ERROR(pr.NoOtherKeys());
  TomlTableReader er(*err, path, "[error]");
  YS_RETURN_IF_ERROR(er.Int("runs", &cal.runs, 1, 1000000));
  YS_RETURN_IF_ERROR(ReadServingBand(er, "ttft", cal.ttft));
  YS_RETURN_IF_ERROR(ReadServingBand(er, "tpot", cal.tpot));
  YS_RETURN_IF_ERROR(ReadServingBand(er, "output_tokens_per_s", cal.output_tokens_per_s));
  YS_RETURN_IF_ERROR(er.NoOtherKeys());
  return cal;
}

Result<ServeCpuCalibration> LoadServeCpuCalibration(const std::string& path) {
  auto text = ReadDocumentFile(path, DocumentKind::kToml);
  if (!text.ok()) return text.status();
  return ParseServeCpuCalibration(*text, path);
}

std::optional<double> ServingPredictionError(double predicted, double measured) {
  if (!(measured > 0)) return std::nullopt;
  return std::fabs(predicted / measured - 1);
}

}  // namespace ys::workloads
