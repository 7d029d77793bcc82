// Fuzz target: the published serving table reader (predict/serve_published.cc
// ParseServePublishedTable), the whole input as one table.
#include "fuzz_target.h"
#include "fuzz_util.h"
#include "predict/serve_published.h"

YS_FUZZ_TARGET(serve_published) {
  (void)ys::predict::ParseServePublishedTable(ys::fuzz::AsText(data, size), "fuzz.tsv");
  return 0;
}
