// The published serving figures of baselines/published/serving/*.tsv (trtllm_serving.tsv; the
// file's leading comment says how each column was read): one row per published max-throughput
// figure, with its release, chip, model, precision, layout and lengths.
//
// Reading (predict/published_table.h ReadTable): '#' lines are comments; the header names the
// columns, none empty or twice; every later line has as many fields. Required columns: release,
// release_date (YYYY-MM-DD), chip, model, dtype (bf16, fp8 or nvfp4), tp, isl, osl,
// output_tokens_per_s, unit (total: over the run's GPUs; per_gpu), gpus, source; pp and ep may be
// "-" (not stated: 1). A missing column, a short line, a malformed or out-of-range value, or gpus
// that tp x pp does not divide is Invalid naming the file, the line and the column.
//
// Thread safety: values only.
#ifndef YARDSTICK_PREDICT_SERVE_PUBLISHED_H_
#define YARDSTICK_PREDICT_SERVE_PUBLISHED_H_

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace ys::predict {

struct ServePublishedRow {
  std::string file;  // "trtllm_serving.tsv"
  int line = 0;
  std::string release;       // "v0.20.0"
  std::string release_date;  // "2025-06-12"
  std::string chip;          // specs/ name: "h100"
  std::string model;         // models/ name: "llama3.1_70b"
  std::string dtype;         // bf16 | fp8 | nvfp4
  int tp = 1, pp = 1, ep = 1;
  int isl = 0, osl = 0;
  int gpus = 0;
  double output_tokens_per_s = 0;  // as published, in `unit`
  bool per_gpu = false;            // unit per_gpu; false: total over `gpus`
  std::string source;

  // Output tokens/s of the whole run over its `gpus`, whatever the unit published.
  double TotalTokensPerS() const {
    return per_gpu ? output_tokens_per_s * gpus : output_tokens_per_s;
  }
};

Result<std::vector<ServePublishedRow>> ParseServePublishedTable(std::string_view text,
                                                                const std::string& path);
// Every <dir>/*.tsv in file-name order; Invalid when the folder cannot be read.
Result<std::vector<ServePublishedRow>> LoadServePublishedTables(const std::string& dir);

}  // namespace ys::predict

#endif  // YARDSTICK_PREDICT_SERVE_PUBLISHED_H_
