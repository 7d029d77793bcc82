// What the GPU check units share: getting the snapshot (or the skip that replaces it), naming a
// GPU in findings, canonical PCI addresses, and keeping account of NVML answers that carry no
// value so that a unit says what it could not judge instead of guessing.
#ifndef YARDSTICK_CHECKS_GPU_INTERNAL_GPU_COMMON_H_
#define YARDSTICK_CHECKS_GPU_INTERNAL_GPU_COMMON_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "checks/check.h"
#include "gpu/gpu_snapshot.h"

namespace ys::checks {

inline constexpr const char* kNvmlApiReference =
    "NVML API Reference (docs.nvidia.com/deploy/nvml-api/)";
inline constexpr const char* kDcgmHealthReference =
    "DCGM health watches (modules/health/DcgmHealthWatch.cpp) and dcgmi diag";

// "gpu3" (the NVML index); "gpu1 (00000000:1B:00.0)" for a GPU of an nvidia-smi -q dump, whose
// index is the dump's order and whose bus id is what the dump names it by.
std::string GpuEntity(const gpu::GpuDevice& d);
// The GPU's identity for a finding's evidence: name, PCI bus id and UUID.
Evidence GpuIdentity(const gpu::GpuDevice& d);

// "00000000:1B:00.0", "0000:1b:00.0" or "0000:1b:00" (an XID's address, function 0) ->
// "0000:1b:00.0"; nullopt when it is not a PCI address.
std::optional<std::string> CanonicalBdf(std::string_view address);

// Which GPUs gave no value for which NVML answer, noted once per answer and reason:
//   "unavailable: temperature_c" -> "gpu0, gpu1: Not Supported"
class Unanswered {
 public:
  // The value, or nullptr after recording why there is none.
  template <typename T>
  const T* Get(const gpu::GpuDevice& d, const gpu::Field<T>& f, std::string_view what) {
    if (f.has()) return &*f.value;
    Record(d, what, f.error);
    return nullptr;
  }
  void Record(const gpu::GpuDevice& d, std::string_view what, const std::string& why);
  bool empty() const { return missing_.empty(); }
  // Why answers are missing, for a skip reason: each distinct reason once with the first answer
  // that had it ("temperature_c: not supported; fabric: Unknown Error").
  std::string First() const;
  void NoteInto(CheckResult& r) const;

 private:
  std::vector<std::pair<std::string, std::string>> order_;  // (what, why) in first-seen order
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> missing_;
};

// The stance a GPU is held to on a Policy parameter of the running unit ("ecc" of gpu.ecc,
// "persistence" of gpu.persistence): the site's value where its file sets one; else the declared
// default for a data centre GPU, and none (kAny) for a workstation card (RTX A6000 and RTX 6000
// Ada have ECC, off as shipped) or a GeForce card (no ECC to speak of, a desktop part), where the
// default describes a server GPU the card is not.
struct PolicyInForce {
  Policy want = Policy::kAny;
  bool site = false;  // the site file set it
  std::string
      basis;  // "site", "data centre GPU", "GeForce card: no expectation unless the site sets one"
};
PolicyInForce ProductPolicy(const CheckContext& ctx, std::string_view param,
                            const gpu::GpuDevice& d);

// The skip of a unit that could judge no GPU: "<subject> unavailable on every GPU (<first>)".
CheckResult SkipNoneJudged(std::string_view subject, const Unanswered& un);

// The usual end of a GPU unit: a skip (with the unanswered fields noted) when no GPU could be
// judged; otherwise `r` with the unanswered fields noted and, when it has no finding,
// `pass_summary` as its summary.
CheckResult FinishGpuUnit(CheckResult r, int judged, std::string_view subject, const Unanswered& un,
                          std::string pass_summary);

// True when the GPU state is a recording (--nvml-state: a JSON state or an nvidia-smi dump) read on
// the live host: it is of another machine, or of this one at another time, so what this machine
// shows (its PCI bus, its loaded kernel module) says nothing about it. With --root the host is
// the tree the recording belongs with, and the two are compared.
bool RecordingOfAnotherMachine(const CheckContext& ctx, const gpu::GpuSnapshot& s);
inline constexpr const char* kNotThisMachine =
    "the GPU state is a recording, and no --root gives the host tree it was recorded with";

}  // namespace ys::checks

#endif  // YARDSTICK_CHECKS_GPU_INTERNAL_GPU_COMMON_H_
