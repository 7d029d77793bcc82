// Helpers shared by the fuzz targets (tests/fuzz/*_fuzz.cc): the input as text, a selector byte
// that picks one of several readers, JSON parsed without exceptions, and a scratch folder for the
// readers that take only a path.
#ifndef YARDSTICK_TESTS_FUZZ_FUZZ_UTIL_H_
#define YARDSTICK_TESTS_FUZZ_FUZZ_UTIL_H_

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace ys::fuzz {

inline std::string_view AsText(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Splits off the first byte: which reader of a multi-reader target gets the rest (`count` readers;
// the byte is taken modulo `count`). An empty input selects nothing.
inline std::optional<int> TakeSelector(std::string_view* text, int count) {
  if (text->empty()) return std::nullopt;
  int which = static_cast<unsigned char>(text->front()) % count;
  text->remove_prefix(1);
  return which;
}

// The JSON value of `text`, or nullopt when it is not JSON (the readers take parsed documents).
// A template so that this header needs only json_fwd.hpp: the targets that call it include
// nlohmann/json.hpp.
template <typename J = nlohmann::json>
std::optional<J> ParseJson(std::string_view text) {
  J j = J::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return std::nullopt;
  return j;
}

// A folder of this process's own under $TMPDIR, created on first use and removed at a normal
// exit (a crash leaves it, with the input that caused it).
inline const std::string& ScratchDir() {
  static const std::string dir = [] {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/ys-fuzz-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) std::abort();
    return pattern;
  }();
  static const bool cleanup = [] {
    return std::atexit([] {
             std::error_code ec;
             std::filesystem::remove_all(dir, ec);
           }) == 0;
  }();
  (void)cleanup;
  return dir;
}

// Writes `content` to `name` in the scratch folder; returns the path.
inline std::string WriteScratch(const std::string& name, std::string_view content) {
  std::string path = ScratchDir() + "/" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  if (!out) std::abort();
  return path;
}

}  // namespace ys::fuzz

#endif  // YARDSTICK_TESTS_FUZZ_FUZZ_UTIL_H_
