// Format unit: nccl-tests logs (all_reduce_perf and the other *_perf binaries, any launcher's
// prefixes), read as the run document `yardstick bench` writes for its coll.* units.
#include "formats/format_text.h"
#include "validate/nccl_tests_log.h"
#include "validate/nccl_tests_run.h"

namespace ys::formats {
namespace {

FormatSniff SniffNcclTests(std::string_view head) {
  if (validate::LooksLikeNcclTests(head)) {
    auto line = FirstLine(head, [](std::string_view l) {
      return l.find("nThread") != std::string_view::npos ||
             l.find("Collective test starting") != std::string_view::npos ||
             l.find("redop") != std::string_view::npos;
    });
    return Whole(line ? Clip(*line) : "the size/count/type table header");
  }
  if (FirstLine(head, [](std::string_view l) {
        return l.find("Avg bus bandwidth") != std::string_view::npos ||
               l.find("busbw") != std::string_view::npos;
      })) {
    return Near(0.4, "the '# nThread ... nGpus' line or the 'size count type' table header");
  }
  return {};
}

Result<std::any> ReadNcclTests(const FormatRequest& r) {
  auto doc = validate::IngestNcclTestsFile(r.path, /*forced=*/true, r.collective);
  if (!doc.ok()) return doc.status();
  if (!doc->has_value()) return Status::Invalid(r.path + ": not an nccl-tests log");
  return std::any(std::move(**doc));
}

}  // namespace

YS_FORMAT(SniffNcclTests, ReadNcclTests,
          {.name = "nccl-tests",
           .produces = FormatProduct::kRunDocument,
           .summary = "nccl-tests logs (all_reduce_perf, all_gather_perf, alltoall_perf, ...): the "
                      "size sweep as coll.* bus and algorithm bandwidth",
           .example = "#       size         count      type   redop    root     time   algbw   "
                      "busbw #wrong"})

}  // namespace ys::formats
