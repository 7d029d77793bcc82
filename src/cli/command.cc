#include "cli/command.h"

#include <algorithm>

namespace ys::cli {

namespace {
std::vector<CommandInfo>& Registry() {
  static auto* commands = new std::vector<CommandInfo>();
  return *commands;
}
}  // namespace

bool RegisterCommand(CommandInfo info) {
  Registry().push_back(info);
  std::sort(Registry().begin(), Registry().end(),
            [](const CommandInfo& a, const CommandInfo& b) { return a.name < b.name; });
  return true;
}

const std::vector<CommandInfo>& Commands() { return Registry(); }

}  // namespace ys::cli
