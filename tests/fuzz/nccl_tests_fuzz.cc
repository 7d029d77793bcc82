// Fuzz target: the nccl-tests log reader (validate/nccl_tests_log.cc) and the run document made
// from it (validate/nccl_tests_run.cc), the path `yardstick ingest` takes over an nccl-tests log:
// content detection, launcher prefixes, the table layouts, the footer lines and the collective
// told from the columns. Selector byte: 0 the collective from the log, 1 all_reduce given.
#include "fuzz_target.h"
#include "fuzz_util.h"
#include "validate/nccl_tests_log.h"
#include "validate/nccl_tests_run.h"

YS_FUZZ_TARGET(nccl_tests) {
  using namespace ys::validate;
  std::string_view text = ys::fuzz::AsText(data, size);
  std::optional<int> which = ys::fuzz::TakeSelector(&text, 2);
  if (!which) return 0;
  (void)LooksLikeNcclTests(text);
  (void)IngestNcclTestsText(text, "fuzz.log", *which == 1 ? "all_reduce" : "");
  return 0;
}
