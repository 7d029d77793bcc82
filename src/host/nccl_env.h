// NCCL environment variables that a preflight judges (reference: docs/gpu-diagnostics.md
// §nccl-env, NCCL docs/userguide/source/env.rst). Pure functions; no file access.
//
// NCCL_IB_HCA syntax, as NCCL's parseStringList/matchIfList apply it:
//   [^][=]<hca>[:<port>[:<rail>[:<plane>]]][,<hca>...]
// A leading '^' excludes the listed devices instead of selecting them; a '=' after it makes
// names exact, otherwise each name is a PREFIX: "mlx5_1" also matches mlx5_10 .. mlx5_19. A port
// limits the entry to that port; without one every port matches. NCCL reads at most 32 entries.
#ifndef YARDSTICK_HOST_NCCL_ENV_H_
#define YARDSTICK_HOST_NCCL_ENV_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"

namespace ys::host {

inline constexpr size_t kNcclMaxIbHcaEntries = 32;  // MAX_IB_DEVS

struct IbHcaEntry {
  std::string name;         // device name or prefix
  std::optional<int> port;  // nullopt: any port
};

struct IbHcaSpec {
  bool exclude = false;             // leading '^'
  bool exact = false;               // '=' (after the '^' when both)
  std::vector<IbHcaEntry> entries;  // at most kNcclMaxIbHcaEntries; see `ignored`
  size_t ignored = 0;               // entries past the 32nd, which NCCL drops
};

// Invalid, naming the entry, for: an empty list, an empty device name, a port that is not a
// positive number, more than four ':' fields, or whitespace inside an entry (NCCL does not trim,
// so " mlx5_1" matches no device).
Result<IbHcaSpec> ParseNcclIbHca(std::string_view value);

// Whether one entry names (device, port) under the spec's exact/prefix rule.
bool IbHcaEntryMatches(const IbHcaEntry& entry, bool exact, std::string_view device, int port);
// Whether NCCL would use (device, port): listed XOR excluded.
bool IbHcaSelects(const IbHcaSpec& spec, std::string_view device, int port);
// Whole devices: whether an entry names `device` on one of `ports`; with no ports, an entry's
// port is not compared. IbHcaSelectsDevice is that XOR the spec's exclusion.
bool IbHcaListsDevice(const IbHcaSpec& spec, std::string_view device,
                      const std::vector<int>& ports);
bool IbHcaSelectsDevice(const IbHcaSpec& spec, std::string_view device,
                        const std::vector<int>& ports);
// The spec written back in NCCL's syntax (for evidence).
std::string FormatIbHcaSpec(const IbHcaSpec& spec);

// An NCCL configuration file (/etc/nccl.conf, ~/.nccl.conf, $NCCL_CONF_FILE): "NAME=value"
// lines, '#' comments. As NCCL does, lines without '=' are ignored and spaces around the name and
// value are dropped. NCCL applies them with setenv(..., 0): the first occurrence of a name wins,
// and a variable already in the environment wins over every file.
std::vector<std::pair<std::string, std::string>> ParseNcclConf(std::string_view text);

// NCCL's integer parameters (strtoll, base 0). nullopt when NCCL would ignore the value and use
// its default (not a whole number).
std::optional<long long> ParseNcclInt(std::string_view value);

}  // namespace ys::host

#endif  // YARDSTICK_HOST_NCCL_ENV_H_
