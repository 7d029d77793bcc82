#include "core/run_section.h"

#include <cstdio>
#include <cstdlib>
#include <map>

namespace ys {
namespace {

std::map<std::string, RunSectionCodec, std::less<>>& RunSectionCodecs() {
  static std::map<std::string, RunSectionCodec, std::less<>> codecs;
  return codecs;
}

}  // namespace

bool RegisterRunSection(const std::string& key, RunSectionCodec codec) {
  if (RunSectionCodecs().count(key) || !codec.read || !codec.schema) {
    std::fprintf(stderr, "run document section \"%s\" registered twice or without a codec\n",
                 key.c_str());
    std::abort();
  }
  RunSectionCodecs()[key] = codec;
  return true;
}

const RunSectionCodec* FindRunSection(std::string_view key) {
  auto it = RunSectionCodecs().find(key);
  return it == RunSectionCodecs().end() ? nullptr : &it->second;
}

}  // namespace ys
