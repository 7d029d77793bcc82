// YS_FUZZ_TARGET(name) { ... }: the entry of the fuzz target tests/fuzz/<name>_fuzz.cc, called
// with one input (data, size) and returning 0.
//
// Under libFuzzer (YS_FUZZ=ON, the sanitize preset) each target is a binary of its own and the
// macro defines LLVMFuzzerTestOneInput. In an ordinary build every target is compiled into one
// replay binary, fuzz_replay (replay_main.cc, YS_FUZZ_REPLAY defined), which picks the target by
// name: the targets then share their translation units (CMake unity build), so that `make test`
// does not compile the readers' headers once per target.
#ifndef YARDSTICK_TESTS_FUZZ_FUZZ_TARGET_H_
#define YARDSTICK_TESTS_FUZZ_FUZZ_TARGET_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

namespace ys::fuzz {

using TargetFn = int (*)(const uint8_t* data, size_t size);

// The targets linked into the replay binary, by name.
inline std::map<std::string, TargetFn>& Targets() {
  static std::map<std::string, TargetFn> targets;
  return targets;
}

inline bool RegisterTarget(const char* name, TargetFn fn) {
  return Targets().emplace(name, fn).second;
}

}  // namespace ys::fuzz

#if defined(YS_FUZZ_REPLAY)
#define YS_FUZZ_TARGET(name)                                        \
  static int YsFuzzTarget_##name(const uint8_t* data, size_t size); \
  [[maybe_unused]] static const bool ys_fuzz_registered_##name =    \
      ::ys::fuzz::RegisterTarget(#name, &YsFuzzTarget_##name);      \
  static int YsFuzzTarget_##name(const uint8_t* data, size_t size)
#else
#define YS_FUZZ_TARGET(name) extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
#endif

#endif  // YARDSTICK_TESTS_FUZZ_FUZZ_TARGET_H_
