#include "predict/serve_published.h"

#include <algorithm>
#include <filesystem>

#include "core/document_file.h"
#include "core/text.h"
#include "predict/published_table.h"

namespace ys::predict {
namespace {

constexpr size_t kMaxServeTableBytes = 16 << 20;

bool IsIsoDate(std::string_view v) {
  if (v.size() != 10 || v[4] != '-' || v[7] != '-') return false;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (v[i] < '0' || v[i] > '9') return false;
  }
  auto month = ParseInt(v.substr(5, 2));
  auto day = ParseInt(v.substr(8, 2));
  return month && day && *month >= 1 && *month <= 12 && *day >= 1 && *day <= 31;
}

Status ServeNames(const TableLine& r, ServePublishedRow* row) {
  for (auto [col, out] : {std::pair{"release", &row->release},
                          {"chip", &row->chip},
                          {"model", &row->model},
                          {"dtype", &row->dtype},
                          {"source", &row->source}}) {
    YS_RETURN_IF_ERROR(r.Text(col, out));
    if (out->empty()) return r.Bad(col, r.Field(col), "a value");
  }
  row->chip = ToLower(row->chip);
  row->model = ToLower(row->model);
  row->dtype = ToLower(row->dtype);
  if (row->dtype != "bf16" && row->dtype != "fp8" && row->dtype != "nvfp4")
    return r.Bad("dtype", r.Field("dtype"), "bf16, fp8 or nvfp4");
  row->release_date = std::string(r.Field("release_date"));
  if (!IsIsoDate(row->release_date))
    return r.Bad("release_date", row->release_date, "a date YYYY-MM-DD");
  return Status::Ok();
}

Status ServeNumbers(const TableLine& r, ServePublishedRow* row) {
  YS_RETURN_IF_ERROR(r.RequiredInt("tp", &row->tp, 1, 1024));
  for (auto [col, out] : {std::pair{"pp", &row->pp}, {"ep", &row->ep}}) {
    std::optional<int> v;
    YS_RETURN_IF_ERROR(r.Int(col, &v, 1, 1024));
    *out = v.value_or(1);
  }
  YS_RETURN_IF_ERROR(r.RequiredInt("isl", &row->isl, 1, 1 << 24));
  YS_RETURN_IF_ERROR(r.RequiredInt("osl", &row->osl, 1, 1 << 24));
  YS_RETURN_IF_ERROR(r.RequiredInt("gpus", &row->gpus, 1, 1 << 20));
  if (row->gpus % (row->tp * row->pp) != 0)
    return r.Bad("gpus", r.Field("gpus"),
                 "a multiple of tp x pp = " + std::to_string(row->tp * row->pp));
  auto rate = ParseDouble(r.Field("output_tokens_per_s"));
  if (!rate || !(*rate > 0 && *rate < 1e12))
    return r.Bad("output_tokens_per_s", r.Field("output_tokens_per_s"), "tokens/s above 0");
  row->output_tokens_per_s = *rate;
  const std::string_view unit = r.Field("unit");
  if (unit != "total" && unit != "per_gpu") return r.Bad("unit", unit, "total or per_gpu");
  row->per_gpu = unit == "per_gpu";
  return Status::Ok();
}

}  // namespace

Result<std::vector<ServePublishedRow>> ParseServePublishedTable(std::string_view text,
                                                                const std::string& path) {
  std::vector<ServePublishedRow> rows;
  const std::string file = std::filesystem::path(path).filename().string();
  Status status = ReadTable(text, path,
                            {"release", "release_date", "chip", "model", "dtype", "tp", "isl",
                             "osl", "output_tokens_per_s", "unit", "gpus", "source"},
                            [&](const TableLine& r) {
                              ServePublishedRow row;
                              row.file = file;
                              row.line = r.line();
                              YS_RETURN_IF_ERROR(ServeNames(r, &row));
                              YS_RETURN_IF_ERROR(ServeNumbers(r, &row));
                              rows.push_back(std::move(row));
                              return Status::Ok();
                            });
  if (!status.ok()) return status;
  return rows;
}

Result<std::vector<ServePublishedRow>> LoadServePublishedTables(const std::string& dir) {
  std::vector<std::string> paths;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.path().extension() == ".tsv") paths.push_back(e.path().string());
  }
  if (ec) return Status::Invalid(dir + ": " + ec.message() + " (expected a folder of tables)");
  std::sort(paths.begin(), paths.end());
  std::vector<ServePublishedRow> all;
  for (const std::string& p : paths) {
    auto text = ReadDocumentFile(p, kMaxServeTableBytes, "a published serving table (TSV)");
    if (!text.ok()) return text.status();
    auto rows = ParseServePublishedTable(*text, p);
    if (!rows.ok()) return rows.status();
    all.insert(all.end(), rows->begin(), rows->end());
  }
  return all;
}

}  // namespace ys::predict
