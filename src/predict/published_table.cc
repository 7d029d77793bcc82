#include "predict/published_table.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "core/document_file.h"
#include "core/text.h"
#include "predict/model_spec.h"

namespace ys::predict {
namespace {

constexpr size_t kMaxTableBytes = 16 << 20;

// A well-formed value of a vocabulary the step model does not know (a later release's precision,
// dispatcher, CUDA-graph scope or recompute module): the row is read and kept out of every
// prediction with this reason, the first such column's, instead of failing the table.
void MarkUnsupported(PublishedRow* row, const char* col, std::string_view v,
                     const std::string& known) {
  if (row->unsupported.empty())
    row->unsupported = std::string("column ") + col + ": \"" + std::string(v) +
                       "\" (the step model knows " + known + ")";
}

// Names of lower-case letters, digits and '_' joined by single '+': the form of a list of scopes or
// modules, whether or not the step model knows them.
bool PlusJoinedWords(std::string_view v) {
  if (v.empty() || v.front() == '+' || v.back() == '+' || v.find("++") != v.npos) return false;
  return std::all_of(v.begin(), v.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '+';
  });
}

// A recompute cell: comma-separated parts, each "-" (no modules stated), layers=N (full recompute
// of N layers) or modules joined by + (model_spec.h CheckRecompute). A malformed part is Invalid;
// a module name the step model does not know makes the row unsupported.
Status CheckRecomputeCell(const TableLine& r, std::string_view cell, PublishedRow* row) {
  if (cell.empty()) return Status::Ok();
  const std::string expected = "parts joined by , of -, layers=N, or modules joined by +";
  for (std::string_view part : Split(cell, ',')) {
    if (part == "-") continue;
    if (part.starts_with("layers=")) {
      auto n = ParseInt(part.substr(7));
      if (n && *n >= 1 && *n <= 100000) continue;
      return r.Bad("recompute", cell, expected);
    }
    if (!PlusJoinedWords(part)) return r.Bad("recompute", cell, expected);
    const std::string modules = predict::CheckRecompute(part);  // "" for known modules
    if (!modules.empty()) MarkUnsupported(row, "recompute", cell, modules);
  }
  return Status::Ok();
}

Status ReadRecipe(const TableLine& r, PublishedRow* row) {
  YS_RETURN_IF_ERROR(r.RequiredInt("gpus", &row->gpus, 1, 1 << 20));
  YS_RETURN_IF_ERROR(r.RequiredInt("gbs", &row->gbs, 1, 1 << 24));
  YS_RETURN_IF_ERROR(r.RequiredInt("mbs", &row->mbs, 1, 1 << 20));
  YS_RETURN_IF_ERROR(r.RequiredInt("seq", &row->seq, 1, 1 << 24));
  for (auto [col, out] : {std::pair{"layers", &row->layers},
                          {"tp", &row->tp},
                          {"pp", &row->pp},
                          {"cp", &row->cp},
                          {"vp", &row->vp},
                          {"ep", &row->ep},
                          {"etp", &row->etp}}) {
    YS_RETURN_IF_ERROR(r.Int(col, out, 1, 1 << 20));
  }
  YS_RETURN_IF_ERROR(r.Int("fsdp", &row->fsdp, 0, 1 << 20));
  YS_RETURN_IF_ERROR(r.Text("dispatcher", &row->dispatcher));
  row->dispatcher = ToLower(row->dispatcher);
  if (!row->dispatcher.empty() && row->dispatcher != "alltoall" && row->dispatcher != "deepep" &&
      row->dispatcher != "hybridep") {
    MarkUnsupported(row, "dispatcher", row->dispatcher, "alltoall, deepep, hybridep or -");
  }
  YS_RETURN_IF_ERROR(r.OnOff("token_drop", &row->token_drop));
  YS_RETURN_IF_ERROR(r.OnOff("a2a_overlap", &row->a2a_overlap));
  const std::string_view mtp = r.Field("mtp");
  if (mtp == "on" || mtp == "off") {
    row->mtp_layers = mtp == "on" ? 1 : 0;
  } else if (!mtp.empty() && mtp != "-") {
    auto n = ParseInt(mtp);
    if (!n || *n < 0 || *n > 64) return r.Bad("mtp", mtp, "on, off, 0..64 or -");
    row->mtp_layers = static_cast<int>(*n);
  }
  const std::string_view graphs = r.Field("cuda_graphs");
  if (graphs == "off") {
    row->cuda_graphs = "none";
  } else if (!graphs.empty() && graphs != "-") {
    const bool prefixed = graphs.starts_with("local:") || graphs.starts_with("transformer_engine:");
    if (prefixed) row->cuda_graphs = std::string(graphs.substr(graphs.find(':') + 1));
    if (!prefixed || !PlusJoinedWords(row->cuda_graphs))
      return r.Bad("cuda_graphs", graphs,
                   "off, local:full_iteration or transformer_engine:<scopes>");
    const std::string known = predict::CheckCudaGraphs(row->cuda_graphs);  // "" when known
    if (!known.empty()) MarkUnsupported(row, "cuda_graphs", graphs, known);
  }
  YS_RETURN_IF_ERROR(r.Text("recompute", &row->recompute));
  return CheckRecomputeCell(r, row->recompute, row);
}

Status ReadRow(const TableLine& r, PublishedRow* row) {
  YS_RETURN_IF_ERROR(r.Text("release", &row->release));
  YS_RETURN_IF_ERROR(r.Text("chip", &row->chip));
  YS_RETURN_IF_ERROR(r.Text("model", &row->model));
  YS_RETURN_IF_ERROR(r.Text("precision", &row->precision));
  for (auto [col, v] :
       {std::pair{"release", &row->release}, {"chip", &row->chip}, {"model", &row->model}}) {
    if (v->empty()) return r.Bad(col, "-", "a value");
  }
  // Names as specs/, models/ and the step model spell them: a table copied as printed ("GB200",
  // "MXFP8") reads the same.
  for (std::string* v : {&row->chip, &row->model, &row->precision}) *v = ToLower(*v);
  if (DtypeOfPrecision(row->precision).empty())
    MarkUnsupported(row, "precision", row->precision, "bf16, fp8, fp8_cs, fp8_ds, mxfp8 or nvfp4");
  YS_RETURN_IF_ERROR(ReadRecipe(r, row));
  auto step = ParseDouble(r.Field("step_time_s"));
  if (!step || !(*step > 0 && *step < 1e6))
    return r.Bad("step_time_s", r.Field("step_time_s"), "seconds above 0");
  row->step_time_s = *step;
  row->anomaly = r.Field("anomaly") != "-" && !r.Field("anomaly").empty();
  return r.Text("source", &row->source);
}

}  // namespace

std::string_view TableLine::Field(const char* col) const {
  auto it = cols_.find(col);
  return it == cols_.end() ? std::string_view("-") : fields_[it->second];
}

Status TableLine::Text(const char* col, std::string* out) const {
  std::string_view v = Field(col);
  *out = v == "-" ? "" : std::string(v);
  return Status::Ok();
}

Status TableLine::Int(const char* col, std::optional<int>* out, int lo, int hi) const {
  std::string_view v = Field(col);
  if (v == "-" || v.empty()) return Status::Ok();
  auto n = ParseInt(v);
  if (!n || *n < lo || *n > hi) return Bad(col, v, std::to_string(lo) + ".." + std::to_string(hi));
  *out = static_cast<int>(*n);
  return Status::Ok();
}

Status TableLine::RequiredInt(const char* col, int* out, int lo, int hi) const {
  std::optional<int> v;
  YS_RETURN_IF_ERROR(Int(col, &v, lo, hi));
  if (!v) return Bad(col, Field(col), "a number");
  *out = *v;
  return Status::Ok();
}

Status TableLine::OnOff(const char* col, std::optional<bool>* out) const {
  std::string_view v = Field(col);
  if (v == "-" || v.empty()) return Status::Ok();
  if (v != "on" && v != "off") return Bad(col, v, "on, off or -");
  *out = v == "on";
  return Status::Ok();
}

Status TableLine::Bad(const char* col, std::string_view v, const std::string& expected) const {
  return Status::Invalid(where_ + ": column " + col + ": \"" + std::string(v) + "\" (expected " +
                         expected + ")");
}

namespace {

// The header line: column name -> index; none empty or named twice, every required one present.
Status ReadTableHeader(const std::vector<std::string_view>& fields, const std::string& at_line,
                       const std::vector<const char*>& required,
                       std::map<std::string, size_t>* cols) {
  for (size_t i = 0; i < fields.size(); ++i) {
    std::string name(Trim(fields[i]));
    const std::string at = at_line + ": column " + std::to_string(i + 1);
    if (name.empty()) return Status::Invalid(at + ": empty name (expected a column name)");
    if (!cols->emplace(name, i).second)
      return Status::Invalid(at + ": \"" + name + "\" named twice (expected one column each)");
  }
  for (const char* need : required) {
    if (!cols->count(need)) return Status::Invalid(at_line + ": no column " + need);
  }
  return Status::Ok();
}

}  // namespace

Status ReadTable(std::string_view text, const std::string& path,
                 const std::vector<const char*>& required,
                 const std::function<Status(const TableLine&)>& row) {
  std::map<std::string, size_t> cols;
  size_t header_fields = 0;
  int line_no = 0;
  for (std::string_view line : SplitLines(text)) {
    ++line_no;
    if (line.empty() || line.front() == '#') continue;
    std::vector<std::string_view> fields = Split(line, '\t');
    const std::string where = path + ":" + std::to_string(line_no);
    if (header_fields == 0) {
      header_fields = fields.size();
      YS_RETURN_IF_ERROR(ReadTableHeader(fields, where, required, &cols));
      continue;
    }
    if (fields.size() != header_fields) {
      return Status::Invalid(where + ": " + std::to_string(fields.size()) +
                             " fields, the header has " + std::to_string(header_fields));
    }
    YS_RETURN_IF_ERROR(row(TableLine(cols, std::move(fields), where, line_no)));
  }
  if (header_fields == 0) return Status::Invalid(path + ": no header line");
  return Status::Ok();
}

std::string DtypeOfPrecision(std::string_view p) {
  if (p == "bf16" || p == "nvfp4") return std::string(p);
  if (p == "fp8" || p == "fp8_cs" || p == "fp8_ds" || p == "mxfp8") return "fp8";
  return "";
}

std::string CalibratedPrecision(std::string_view p) {
  return p == "fp8" ? "fp8_cs" : std::string(p);
}

Result<std::vector<PublishedRow>> ParsePublishedTable(std::string_view text,
                                                      const std::string& path) {
  std::vector<PublishedRow> rows;
  const std::string file = std::filesystem::path(path).filename().string();
  Status status = ReadTable(text, path,
                            {"release", "chip", "model", "precision", "gpus", "gbs", "mbs", "seq",
                             "step_time_s", "anomaly", "source"},
                            [&](const TableLine& r) {
                              PublishedRow row;
                              row.file = file;
                              row.line = r.line();
                              YS_RETURN_IF_ERROR(ReadRow(r, &row));
                              rows.push_back(std::move(row));
                              return Status::Ok();
                            });
  if (!status.ok()) return status;
  return rows;
}

Result<std::vector<PublishedRow>> LoadPublishedTables(const std::string& dir) {
  std::vector<std::string> paths;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.path().extension() == ".tsv") paths.push_back(e.path().string());
  }
  if (ec) return Status::Invalid(dir + ": " + ec.message());
  std::sort(paths.begin(), paths.end());
  std::vector<PublishedRow> all;
  for (const std::string& p : paths) {
    auto text = ReadDocumentFile(p, kMaxTableBytes, "a published table (TSV)");
    if (!text.ok()) return text.status();
    auto rows = ParsePublishedTable(*text, p);
    if (!rows.ok()) return rows.status();
    all.insert(all.end(), rows->begin(), rows->end());
  }
  return all;
}

}  // namespace ys::predict
