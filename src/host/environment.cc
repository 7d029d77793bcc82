#include "host/environment.h"

extern char** environ;

namespace ys::host {

Environment Environment::FromProcess() {
  Environment env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view rec(*e);
    size_t eq = rec.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    env.vars_[std::string(rec.substr(0, eq))] = std::string(rec.substr(eq + 1));
  }
  return env;
}

Environment Environment::FromEnvironBlock(std::string_view block) {
  Environment env;
  size_t start = 0;
  while (start < block.size()) {
    size_t end = block.find_first_of(std::string_view("\0\n", 2), start);
    if (end == std::string_view::npos) end = block.size();
    std::string_view rec = block.substr(start, end - start);
    size_t eq = rec.find('=');
    if (eq != std::string_view::npos && eq > 0) {
      env.vars_[std::string(rec.substr(0, eq))] = std::string(rec.substr(eq + 1));
    }
    start = end + 1;
  }
  return env;
}

std::optional<std::string> Environment::Get(std::string_view name) const {
  auto it = vars_.find(name);
  if (it == vars_.end()) return std::nullopt;
  return it->second;
}

std::string Environment::ToEnvironBlock() const {
  std::string out;
  for (const auto& [k, v] : vars_) {
    out += k;
    out += '=';
    out += v;
    out.push_back('\0');
  }
  return out;
}

}  // namespace ys::host
