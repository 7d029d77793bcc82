// Whether the bandwidth an nccl-tests table shows is what its GPUs' links deliver, judged from
// the log alone: the curve itself (busbw over sizes) and the class of link the ranks talk over,
// told from the GPU model of the device list when every rank is a different GPU of one node.
//
//   - one rank moves no data between GPUs: nothing to judge (nccl-tests then times a local copy);
//   - a placement with a time of 0 or a bandwidth no GPU reaches (over kMaxPlausibleGBps) is not
//     a bandwidth (a one-GPU in-place run prints 0.19 us and 5.7e6 GB/s);
//   - YS-BENCH-005 (warn): busbw at the largest size below half of its peak at 1 MiB and up;
//   - YS-BENCH-004 (warn): the peak busbw below half of the low end of what the link class
//     delivers (NVLink by GPU generation, PCIe by generation x16), stating the range and its
//     source;
//   - not judged (the caller reports INCONCLUSIVE) when the log does not tell the link: several
//     nodes (the network between them is not in the log), ranks sharing a GPU, no device list or
//     a shortened one, a GPU model without a known class, or a sweep that stops below 64 MiB.
#ifndef YARDSTICK_VALIDATE_NCCL_TESTS_VERDICT_H_
#define YARDSTICK_VALIDATE_NCCL_TESTS_VERDICT_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/run_document.h"
#include "validate/nccl_tests_log.h"

namespace ys::validate {

// Above any GPU's memory or link rate (B300 HBM3e is 8 TB/s): a printed bandwidth over it is an
// artefact of a time rounded towards 0, not a measurement.
inline constexpr double kMaxPlausibleGBps = 20000;

// Whether a placement's figures are a measured bandwidth.
bool PlausibleNcclTestsPlace(const NcclTestsPlace& p);

struct NcclTestsLinkClass {
  std::string name;  // "NVLink 4 (H100 SXM)", "PCIe Gen3 x16"
  double low_gbps;   // busbw reached in practice, low end
  double high_gbps;  // the link's rate each way
  std::string source;
};

// The class of link between GPUs of this model inside one node; nullopt when the name does not
// say (a board sold with and without NVLink bridges, an unknown model).
std::optional<NcclTestsLinkClass> NcclTestsLinkClassOf(std::string_view gpu);

struct NcclTestsBandwidthVerdict {
  bool judged = false;
  std::string reason;             // what was judged, or why the bandwidth could not be
  std::vector<Finding> findings;  // YS-BENCH-004, YS-BENCH-005 (warn)
};

NcclTestsBandwidthVerdict JudgeNcclTestsBandwidth(const NcclTestsLog& log, const NcclTestsTable& t,
                                                  const std::string& id, int nranks);

}  // namespace ys::validate

#endif  // YARDSTICK_VALIDATE_NCCL_TESTS_VERDICT_H_
