// dcgmi diag, the table and the -j JSON (validate/gpu_tool_output.h).
#include <fmt/format.h>

#include <cctype>
#include <nlohmann/json.hpp>

#include "core/text.h"
#include "validate/gpu_tool_output.h"

namespace ys::validate {
// Named, not anonymous: the library is built in unity batches.
namespace dcgm_diag_impl {

constexpr size_t kCellWidth = 45;  // DCGM's DATA_INFO_TAG_LEN: the result column wraps here

DcgmStatus StatusOf(std::string_view s) {
  std::string l = ToLower(Trim(s));
  if (StartsWith(l, "pass")) return DcgmStatus::kPass;
  if (StartsWith(l, "fail")) return DcgmStatus::kFail;
  if (StartsWith(l, "warn")) return DcgmStatus::kWarn;
  if (StartsWith(l, "skip") || StartsWith(l, "not run") || StartsWith(l, "n/a")) {
    return DcgmStatus::kSkip;
  }
  return DcgmStatus::kOther;
}

// "GPU 3 ..." or "GPU3: ..." at the start of a message: that GPU.
std::optional<int> LeadingGpu(std::string_view s) {
  s = Trim(s);
  if (!StartsWith(s, "GPU")) return std::nullopt;
  s = Trim(s.substr(3));
  size_t n = 0;
  while (n < s.size() && std::isdigit(static_cast<unsigned char>(s[n]))) ++n;
  if (n == 0 || n > 4) return std::nullopt;
  return static_cast<int>(*ParseInt(s.substr(0, n)));
}

// One "| name | result |" row: the two cells, the second as its 45 characters (wrapped text is
// joined piece by piece, so a word cut at the border joins up again).
struct Row {
  std::string name;
  std::string cell;
};

std::optional<Row> SplitRow(std::string_view line) {
  if (line.size() < 3 || line.front() != '|' || line.back() != '|') return std::nullopt;
  size_t mid = line.find('|', 1);
  if (mid == std::string_view::npos || mid + 1 >= line.size()) return std::nullopt;
  Row r;
  r.name = std::string(Trim(line.substr(1, mid - 1)));
  std::string_view cell = line.substr(mid + 1, line.size() - mid - 2);
  if (!cell.empty() && cell.front() == ' ') cell.remove_prefix(1);
  r.cell = std::string(cell.substr(0, kCellWidth));
  r.cell.resize(kCellWidth, ' ');
  return r;
}

// "| Diagnostic | Result |", the table's header (printed again when a table repeats). A row named
// "Diagnostic" with a status is the Hardware test of that name, not the header.
bool IsHeaderRow(const Row& r) { return r.name == "Diagnostic" && Trim(r.cell) == "Result"; }

std::string Collapse(std::string_view s) {
  std::string out;
  for (std::string_view w : SplitWhitespace(s)) out += (out.empty() ? "" : " ") + std::string(w);
  return out;
}

// The category of a separator line "|-----  Deployment  ----+---|" / "+-----  Hardware  ---+".
std::optional<std::string> Category(std::string_view line) {
  if (!StartsWith(line, "|-----") && !StartsWith(line, "+-----")) return std::nullopt;
  std::string_view rest = line.substr(6);
  size_t end = rest.find('-');
  std::string name(Trim(rest.substr(0, end)));
  if (name.empty()) return std::nullopt;
  return name;
}

class TableReader {
 public:
  explicit TableReader(std::string_view name) : name_(name) {}

  Status Feed(std::string_view line, int64_t no) {
    line = Trim(line);
    if (StartsWith(line, "+===")) {
      if (fragment_) return Status::Ok();  // a border after the rows: not the header row's
      if (++headers_ > 1) done_ = true;    // dcgmi printed the table again: the first counts
      return Status::Ok();
    }
    if (done_) return Status::Ok();
    if (headers_ == 0) {
      // A fragment: the rows (or a category separator) without the header above them.
      if (!IsDcgmResultRow(line) && !Category(line)) return Status::Ok();
      fragment_ = true;
      headers_ = 1;
    }
    if (fragment_ && !Category(line) && !StartsWith(line, "+---") && !SplitRow(line)) {
      ++diag_.elided_lines;  // "[...]", a prompt or a remark between the pasted rows
      return Status::Ok();
    }
    if (auto c = Category(line)) {
      category_ = *c;
      categories_ = true;
      return Status::Ok();
    }
    if (StartsWith(line, "+---")) return Status::Ok();
    auto row = SplitRow(line);
    if (!row && (line == "..." || line == "[...]" || line == "[…]" || line == "…")) {
      ++diag_.elided_lines;  // the author's elision inside a whole table
      elided_in_table_ = true;
      return Status::Ok();
    }
    if (!row) {
      return Status::Invalid(fmt::format(
          "{}:{}: inside the dcgmi diag table: expected '| name | result |' or a '+---' border",
          name_, no));
    }
    if (!IsHeaderRow(*row)) Take(*row, no);
    return Status::Ok();
  }

  Result<DcgmDiag> Finish() {
    Flush();
    if (elided_in_table_) diag_.missing.push_back("rows the author elided ([...])");
    if (fragment_) {
      diag_.missing.push_back("the '| Diagnostic | Result |' header");
      if (diag_.dcgm_version.empty() && diag_.driver_version.empty())
        diag_.missing.push_back("the Metadata section (DCGM and driver versions)");
      if (!categories_) {
        diag_.missing.push_back(
            "the category separators (Deployment, Integration, Hardware, Stress)");
      }
    }
    if (diag_.results.empty()) {
      return Status::Invalid(fmt::format(
          "{}: no dcgmi diag test result: expected the table ('| Diagnostic | Result |' under a "
          "'+===' border, then '| <test> | Pass|Fail|Warn|Skip ... |' rows)",
          name_));
    }
    return std::move(diag_);
  }

 private:
  void Take(const Row& row, int64_t no) {
    std::string text = Collapse(row.cell);
    if (row.name.empty()) {  // a wrapped line, or DCGM 4's "GPU0: Pass" under its test
      if (pending_) {
        pending_text_ += row.cell;
      } else if (auto g = LeadingGpu(text);
                 g && !diag_.results.empty() && text.find(':') != std::string::npos) {
        DcgmResult r = diag_.results.back();
        r.gpu = g;
        r.status_text = std::string(Trim(text.substr(text.find(':') + 1)));
        r.status = StatusOf(r.status_text);
        r.warnings.clear();
        r.info.clear();
        r.line = no;
        diag_.results.push_back(std::move(r));
      }
      return;
    }
    Flush();
    if (category_ == "Metadata") {
      if (row.name == "DCGM Version") diag_.dcgm_version = text;
      if (row.name == "Driver Version Detected") diag_.driver_version = text;
      if (row.name == "GPU Device IDs Detected") diag_.device_ids = text;
      return;
    }
    // "Warning", "Error", "Info" (DCGM 4: "Warning: GPU0"), never a test such as "Inforom".
    std::string kind = ToLower(row.name.substr(0, row.name.find_first_of(" :")));
    if (kind == "warning" || kind == "error" || kind == "info") {
      if (diag_.results.empty()) return;
      pending_ = kind == "info" ? &diag_.results.back().info : &diag_.results.back().warnings;
      pending_text_ = row.cell;
      return;
    }
    DcgmResult r;
    r.category = category_;
    r.test = row.name;
    r.status_text = text;
    r.status = StatusOf(text);
    r.line = no;
    // "Fail - GPU: 0, 3" (DCGM 3): one result per GPU named.
    if (size_t at = text.find("GPU:"); at != std::string::npos) {
      const std::string ids = text.substr(at + 4);  // the views below point into it
      for (std::string_view g : Split(ids, ',')) {
        if (auto id = ParseInt(Trim(g))) {
          DcgmResult one = r;
          one.gpu = static_cast<int>(*id);
          diag_.results.push_back(std::move(one));
        }
      }
      return;
    }
    diag_.results.push_back(std::move(r));
  }

  void Flush() {
    if (pending_ != nullptr) pending_->push_back(Collapse(pending_text_));
    pending_ = nullptr;
    pending_text_.clear();
  }

  std::string name_;
  DcgmDiag diag_;
  std::string category_;
  int headers_ = 0;
  bool done_ = false;
  bool fragment_ = false;    // rows without the header
  bool categories_ = false;  // a category separator was seen
  bool elided_in_table_ = false;
  std::vector<std::string>* pending_ = nullptr;
  std::string pending_text_;
};

// j[key] when it is a string, else "" (a document of the wrong shape never throws).
std::string Text(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// j[key] when it is an array, else an empty one.
const nlohmann::json& Array(const nlohmann::json& j, const char* key) {
  static const nlohmann::json kEmpty = nlohmann::json::array();
  auto it = j.find(key);
  return it != j.end() && it->is_array() ? *it : kEmpty;
}

std::vector<std::string> Strings(const nlohmann::json& j, const char* key) {
  std::vector<std::string> out;
  auto it = j.find(key);
  if (it == j.end()) return out;
  const auto& v = *it;
  for (const auto& item : v.is_array() ? v : nlohmann::json::array({v})) {
    if (item.is_string()) out.push_back(item.get<std::string>());
    if (item.is_object() && !Text(item, "message").empty()) out.push_back(Text(item, "message"));
  }
  return out;
}

// One JSON result: "gpu_ids" (DCGM 3: "0", 0, or "0,1,2" for every GPU), "gpu_id", or DCGM 4's
// "entity_id".
void AddJsonResult(DcgmDiag& d, const std::string& category, const std::string& test,
                   const nlohmann::json& res) {
  if (!res.is_object()) return;
  DcgmResult r;
  r.category = category;
  r.test = test;
  r.status_text = Text(res, "status");
  r.status = StatusOf(r.status_text);
  r.warnings = Strings(res, "warnings");
  r.info = Strings(res, "info");
  for (const char* key : {"gpu_ids", "gpu_id", "entity_id"}) {
    auto it = res.find(key);
    if (it == res.end()) continue;
    const auto& g = *it;
    if (g.is_number_integer()) r.gpu = g.get<int>();
    if (g.is_string() && g.get<std::string>().find(',') == std::string::npos) {
      if (auto v = ParseInt(g.get<std::string>())) r.gpu = static_cast<int>(*v);
    }
    break;
  }
  d.results.push_back(std::move(r));
}

Result<DcgmDiag> ParseJson(std::string_view text, std::string_view name) {
  size_t start = text.find('{');  // dcgmi may print a warning line before the document
  nlohmann::json j = nlohmann::json::parse(text.substr(std::min(start, text.size())), nullptr,
                                           /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return Status::Invalid(
        fmt::format("{}: not a JSON object: expected dcgmi diag -j output", name));
  }
  const nlohmann::json* root = &j;
  for (const char* key : {"DCGM GPU Diagnostic", "DCGM Diagnostic"}) {
    if (auto it = j.find(key); it != j.end() && it->is_object()) root = &*it;
  }
  DcgmDiag d;
  d.dcgm_version = Text(*root, "version");
  d.driver_version = Text(*root, "driver_version_detected");
  for (const auto& cat : Array(*root, "test_categories")) {
    if (!cat.is_object()) continue;
    std::string category = Text(cat, "category");
    for (const auto& t : Array(cat, "tests")) {
      if (!t.is_object()) continue;  // DCGM 3.1 puts nulls between tests
      std::string test = Text(t, "name");
      for (const auto& res : Array(t, "results")) AddJsonResult(d, category, test, res);
    }
  }
  if (d.results.empty()) {
    return Status::Invalid(fmt::format(
        "{}: no test result: expected \"test_categories\": [{{\"category\", \"tests\": "
        "[{{\"name\", \"results\": [{{\"status\", ...}}]}}]}}] under \"DCGM GPU Diagnostic\"",
        name));
  }
  return d;
}

}  // namespace dcgm_diag_impl

bool IsDcgmResultRow(std::string_view line) {
  auto row = dcgm_diag_impl::SplitRow(Trim(line));
  if (!row || row->name.empty() || dcgm_diag_impl::IsHeaderRow(*row)) return false;
  return dcgm_diag_impl::StatusOf(row->cell) != DcgmStatus::kOther;
}

Result<DcgmDiag> ParseDcgmDiag(std::string_view text, std::string_view name) {
  if (DetectGpuToolOutput(text) == GpuToolOutput::kDcgmDiagJson) {
    return dcgm_diag_impl::ParseJson(text, name);
  }
  dcgm_diag_impl::TableReader reader(name);
  int64_t no = 0;
  for (std::string_view line : SplitLines(text)) {
    if (Status s = reader.Feed(line, ++no); !s.ok()) return s;
  }
  return reader.Finish();
}

}  // namespace ys::validate
