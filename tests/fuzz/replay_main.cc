// The replay binary of an ordinary (non-libFuzzer) build, fuzz_replay: every fuzz target is linked
// into it (fuzz_target.h), and `fuzz_replay TARGET PATH...` calls that target once on every file
// of the folders (or files) given, in sorted order, so that ctest replays the committed corpus
// and crash inputs cheaply and deterministically. An unknown target, or a folder that does not
// exist, is an error (a misspelt corpus path must not pass as empty).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz_target.h"

namespace {

bool ReadFile(const std::filesystem::path& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  out->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return !in.bad();
}

}  // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  const auto& targets = ys::fuzz::Targets();
  auto target = argc > 1 ? targets.find(argv[1]) : targets.end();
  if (target == targets.end()) {
    std::fprintf(stderr, "replay: usage: fuzz_replay TARGET PATH...; TARGET is one of:");
    for (const auto& [name, fn] : targets) std::fprintf(stderr, " %s", name.c_str());
    std::fprintf(stderr, "\n");
    return 2;
  }
  std::vector<fs::path> files;
  for (int i = 2; i < argc; ++i) {
    fs::path arg(argv[i]);
    std::error_code ec;
    if (fs::is_directory(arg, ec)) {
      for (const auto& entry : fs::recursive_directory_iterator(arg, ec)) {
        if (entry.is_regular_file()) files.push_back(entry.path());
      }
    } else if (fs::is_regular_file(arg, ec)) {
      files.push_back(arg);
    } else {
      std::fprintf(stderr, "replay: %s: no such file or folder\n", argv[i]);
      return 2;
    }
  }
  std::sort(files.begin(), files.end());
  for (const auto& path : files) {
    std::string data;
    if (!ReadFile(path, &data)) {
      std::fprintf(stderr, "replay: %s: cannot read\n", path.c_str());
      return 2;
    }
    target->second(reinterpret_cast<const uint8_t*>(data.data()), data.size());
  }
  std::printf("replay: %s: %zu inputs, no crash\n", argv[1], files.size());
  return 0;
}
