// The published pre-training tables of baselines/published/*.tsv (megatron_bridge.tsv,
// dgxc_benchmarking.tsv; docs/releases.md says what each column means): one row per published
// step time with its software release and the recipe features the table and its preset state.
//
// Reading: '#' lines are comments; the first other line names the columns (tab-separated); every
// later line has as many fields. The columns read are release, chip, model, precision, gpus, gbs,
// mbs, seq, tp, pp, cp, vp, ep, etp, fsdp, dispatcher, token_drop, recompute, step_time_s,
// anomaly, source, and where the table has them layers, a2a_overlap, mtp (on: one multi-token-
// prediction module, off, or a count of them) and cuda_graphs (off, local:full_iteration or
// transformer_engine:<scopes>); "-" is "not stated".
// A missing column, a short line, a malformed value or one out of range is Invalid naming the
// file, the line and the column. A well-formed value the step model does not know (a precision,
// dispatcher, CUDA-graph scope or recompute module of a later release) is no error: the row is
// read with `unsupported` saying which, and no prediction uses it (release_cases.h lists it).
//
// Thread safety: values only.
#ifndef YARDSTICK_PREDICT_PUBLISHED_TABLE_H_
#define YARDSTICK_PREDICT_PUBLISHED_TABLE_H_

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace ys::predict {

struct PublishedRow {
  std::string file;  // the table's file name ("megatron_bridge.tsv")
  int line = 0;
  std::string release;    // "26.04.01", "v25.05.05"
  std::string chip;       // "gb200"
  std::string model;      // "llama3.1_405b" (a "_proxy" suffix kept: fewer layers, see layers)
  std::string precision;  // bf16, fp8_cs, fp8_ds, fp8, mxfp8, nvfp4
  int gpus = 0, gbs = 0, mbs = 0, seq = 0;
  std::optional<int> layers, tp, pp, cp, vp, ep, etp, fsdp;
  std::string dispatcher;  // alltoall | deepep | hybridep | "" (not stated)
  std::optional<bool> token_drop, a2a_overlap;
  std::optional<int> mtp_layers;  // the mtp column: on 1, off 0, or the count
  // The cuda_graphs column in the step model's words (model_spec.h Parallelism::cuda_graphs):
  // off -> none, local:full_iteration -> full_iteration, transformer_engine:S -> S; "" not stated.
  std::string cuda_graphs;
  std::string recompute;  // as the table writes it ("mla_up_proj", "layers=5", "none", "")
  double step_time_s = 0;
  bool anomaly = false;
  std::string unsupported;  // "column C: \"v\" (the step model knows ...)"; "" when predictable
  std::string source;
};

// The step model's number format of a precision: bf16; fp8 for fp8_cs, fp8_ds, fp8 and mxfp8
// (the same tensor-core peak); nvfp4. Empty for an unknown precision.
std::string DtypeOfPrecision(std::string_view precision);
// The precision a calibration keeps a GEMM efficiency for: fp8 of an unstated recipe is read as
// current scaling (fp8_cs); every other precision is its own.
std::string CalibratedPrecision(std::string_view precision);

// One line of a tab-separated published table (this file's and serve_published.h's): its fields
// by column name, and where an error in it is ("path:line"). A column the header lacks reads "-".
class TableLine {
 public:
  TableLine(const std::map<std::string, size_t>& cols, std::vector<std::string_view> fields,
            std::string where, int line)
      : cols_(cols), fields_(std::move(fields)), where_(std::move(where)), line_(line) {}

  std::string_view Field(const char* col) const;
  const std::string& where() const { return where_; }
  int line() const { return line_; }
  Status Text(const char* col, std::string* out) const;                        // "-" reads as ""
  Status Int(const char* col, std::optional<int>* out, int lo, int hi) const;  // "-" or "": unset
  Status RequiredInt(const char* col, int* out, int lo, int hi) const;
  Status OnOff(const char* col, std::optional<bool>* out) const;
  // Invalid "<where>: column <col>: "<v>" (expected <expected>)".
  Status Bad(const char* col, std::string_view v, const std::string& expected) const;

 private:
  const std::map<std::string, size_t>& cols_;
  std::vector<std::string_view> fields_;
  std::string where_;
  int line_ = 0;
};

// Reads a tab-separated table: '#' lines and empty lines are skipped; the first other line names
// the columns (none empty, none twice, every one of `required` present); each later line must have
// as many fields and is handed to `row`. The first error, naming the file, line and column, is
// returned; a text with no header line is Invalid.
Status ReadTable(std::string_view text, const std::string& path,
                 const std::vector<const char*>& required,
                 const std::function<Status(const TableLine&)>& row);

Result<std::vector<PublishedRow>> ParsePublishedTable(std::string_view text,
                                                      const std::string& path);
// Every <dir>/*.tsv in file-name order.
Result<std::vector<PublishedRow>> LoadPublishedTables(const std::string& dir);

}  // namespace ys::predict

#endif  // YARDSTICK_PREDICT_PUBLISHED_TABLE_H_
