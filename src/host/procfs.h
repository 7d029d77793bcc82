// Parsers for the common /proc and /sys text formats (reference: docs/node-checks.md §parsing).
// Each takes the file's text and returns values or an Invalid status naming what was expected; the
// caller adds the path. None of them touches the file system.
#ifndef YARDSTICK_HOST_PROCFS_H_
#define YARDSTICK_HOST_PROCFS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace ys::host {

// "Key:   value" lines (/proc/<pid>/status, /proc/meminfo, driver information files). Split on
// the first ':' and trimmed; lines without ':' are ignored. Later duplicates win.
std::map<std::string, std::string> ParseColonPairs(std::string_view text);

// /proc/meminfo and node<N>/meminfo ("Node 0 MemTotal:  4024540 kB"): values in kB, except the
// HugePages_* counts, which are page counts. Invalid when a value is not a number.
Result<std::map<std::string, uint64_t>> ParseMeminfo(std::string_view text);

// "always [madvise] never" -> "madvise". Invalid when there is no bracketed token.
Result<std::string> ParseSelector(std::string_view text);

// "4: ACTIVE" -> {4, "ACTIVE"} (InfiniBand state, phys_state).
struct NumberedState {
  int number = 0;
  std::string name;
};
Result<NumberedState> ParseNumberedState(std::string_view text);

// The kernel command line: whitespace-separated tokens, double quotes honoured, everything after
// a standalone "--" belongs to init and is dropped.
class KernelCmdline {
 public:
  static KernelCmdline Parse(std::string_view text);

  const std::vector<std::string>& tokens() const { return tokens_; }
  // Whole-token match: Has("idle=poll") is false for "idle=poll2".
  bool Has(std::string_view token) const;
  // Value of the last "key=value" token; nullopt when the key is absent, "" for a bare "key".
  std::optional<std::string> Value(std::string_view key) const;

 private:
  std::vector<std::string> tokens_;
};

// One processor block of /proc/cpuinfo.
struct CpuInfoEntry {
  int processor = -1;
  std::map<std::string, std::string> fields;
};
// Blocks separated by blank lines. Invalid when a block lacks a numeric "processor" field on
// x86; Arm's cpuinfo also uses "processor", so the rule holds for both.
Result<std::vector<CpuInfoEntry>> ParseCpuInfo(std::string_view text);

// Rated frequency in the x86 model name ("... CPU @ 2.00GHz") in MHz; nullopt when absent.
std::optional<double> ModelNameMhz(std::string_view model_name);

// /proc/<pid>/limits row for `resource` ("Max locked memory"): soft and hard as unsigned 64-bit
// values, nullopt meaning "unlimited": the word "unlimited" (or "infinity"), or any number at or
// above 2^63, as RLIM_INFINITY (2^64-1) and its near neighbours print when a runtime set them as
// numbers.
inline constexpr uint64_t kLimitUnlimitedFrom = uint64_t{1} << 63;
struct Limit {
  std::optional<uint64_t> soft;
  std::optional<uint64_t> hard;
  std::string unit;
};
Result<Limit> ParseLimit(std::string_view limits_text, std::string_view resource);

}  // namespace ys::host

#endif  // YARDSTICK_HOST_PROCFS_H_
