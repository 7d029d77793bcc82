// `yardstick man`: the manual page yardstick(1) in roff, generated from the command line itself
// (cli/cli_docs.h). `make install` installs it; by hand: yardstick man | man -l -
#include <cstdio>
#include <string>

#include "cli/cli_docs.h"
#include "cli/command.h"

namespace ys::cli::cmd_man {
namespace {

Action Setup(CLI::App& sub) {
  const CLI::App* self = &sub;
  return [self]() -> Result<int> {
    std::string page = ManPage(*self->get_parent());
    std::fputs(page.c_str(), stdout);
    return 0;
  };
}

}  // namespace

YS_REGISTER(CommandOf<Setup>,
            {.id = "man", .summary = "Print the manual page yardstick(1) in roff (man -l -)"})

}  // namespace ys::cli::cmd_man
