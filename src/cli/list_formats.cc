#include "cli/list_formats.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/document_schemas.h"
#include "core/format_registry.h"
#include "core/json_fields.h"
#include "core/json_schema.h"
#include "core/text_table.h"

namespace ys::cli {
namespace list_formats_impl {

// `list --formats --json`: one format. Only written.
struct FormatRow {
  std::string name, produces, read_by, summary, example, file;
};

template <typename V>
void Fields(V& v, FormatRow& r) {
  v("name", r.name);
  v("produces", r.produces);
  v("read_by", r.read_by);
  v("summary", r.summary);
  v("example", r.example);
  v("file", r.file);
}

}  // namespace list_formats_impl

YS_DOCUMENT_SCHEMA("list_formats", std::vector<list_formats_impl::FormatRow>,
                   "yardstick list --formats --json",
                   "Every file format yardstick reads: its name (for --format), what it produces, "
                   "the command that reads it, a summary, an example line and the source file "
                   "that registers it.");

int ListFormats(bool json) {
  using list_formats_impl::FormatRow;
  std::vector<FormatRow> rows;
  for (const RegisteredFormat* f : FormatRegistry::Global().List()) {
    rows.push_back({.name = std::string(f->info.name),
                    .produces = FormatProductName(f->info.produces),
                    .read_by = FormatProductReadBy(f->info.produces),
                    .summary = std::string(f->info.summary),
                    .example = std::string(f->info.example),
                    .file = std::string(f->file)});
  }
  if (json) {
    fmt::print("{}\n", json_fields::Write(rows).dump(2));
    return 0;
  }
  TextTable table({{"FORMAT"}, {"PRODUCES"}, {"READ BY"}, {"WHAT IT IS"}}, {.fit = true});
  for (const FormatRow& r : rows) table.AddRow({r.name, r.produces, r.read_by, r.summary});
  fmt::print("{}", table.Render());
  fmt::print("\nExample lines:\n");
  for (const FormatRow& r : rows) fmt::print("  {:<18} {}\n", r.name, r.example);
  fmt::print(
      "\nA file's format is told from its content (--format NAME overrides); a file no format "
      "claims is refused with the closest format and what it lacked.\n");
  return 0;
}

}  // namespace ys::cli
