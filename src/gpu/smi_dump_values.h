// Looking up and interpreting entries of an nvidia-smi -q dump tree (smi_dump_tree.h), for
// smi_dump.cc. A path is segments joined by '/', each segment one or more spellings joined by
// '|' (the text key and the XML tag, and the names older drivers used), tried in order.
#ifndef YARDSTICK_GPU_SMI_DUMP_VALUES_H_
#define YARDSTICK_GPU_SMI_DUMP_VALUES_H_

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "gpu/gpu_snapshot.h"
#include "gpu/smi_dump_tree.h"

namespace ys::gpu::smi {

// The entry at `path` under `at`, or nullptr. A section nvidia-smi printed as a single value
// ("Remapped Rows : N/A") answers for every path below it.
const SmiEntry* Find(const SmiEntry& at, std::string_view path);
// The first of `paths` present.
const SmiEntry* FindAny(const SmiEntry& at, std::initializer_list<std::string_view> paths);
// The first entry anywhere below `at` spelled as `names` (one segment).
const SmiEntry* FindBelow(const SmiEntry& at, std::string_view names);

// Why there is no value: the reason Field::Missing carries.
std::string NotReported(std::string_view path);

// A value nvidia-smi prints instead of a number ("N/A", "[Not Supported]", "Unknown Error"):
// the Field error for it, or nullopt for a value to parse.
std::optional<std::string> NoValueReason(std::string_view value);

// Parsers of one printed value; nullopt when the text is not one.
std::optional<uint64_t> LeadingUint(std::string_view v);  // "1980 MHz", "16x", "0"
std::optional<uint32_t> Milliwatts(std::string_view v);   // "100.89 W"
std::optional<uint64_t> MibBytes(std::string_view v);     // "1234 MiB"
std::optional<bool> OnOff(std::string_view v);            // Enabled/Yes/Active; Disabled/No/...
std::optional<int> Pstate(std::string_view v);            // "P0"
std::optional<int> CudaVersion(std::string_view v);       // "12.7" -> 12070

// The field at the first of `paths`: Missing with the reason when absent, N/A, or unreadable.
template <typename T, typename P>
Field<T> Read(const SmiEntry& at, std::initializer_list<std::string_view> paths, P parse) {
  const SmiEntry* e = FindAny(at, paths);
  if (e == nullptr) return Field<T>::Missing(NotReported(*paths.begin()));
  if (auto why = NoValueReason(e->value)) return Field<T>::Missing(*why);
  auto v = parse(e->value);
  bool fits = true;
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    fits = v && std::in_range<T>(*v);
  }
  if (!v || !fits) {
    return Field<T>::Missing("unreadable: line " + std::to_string(e->line) + " \"" + e->key +
                             "\" is \"" + e->value.substr(0, 40) + "\"");
  }
  return Field<T>::Of(static_cast<T>(*v));
}

}  // namespace ys::gpu::smi

#endif  // YARDSTICK_GPU_SMI_DUMP_VALUES_H_
