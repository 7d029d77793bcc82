// `yardstick completion bash|zsh`: the shell completion script, generated from the command line
// itself (cli/cli_docs.h). `make install` installs both; by hand:
//   source <(yardstick completion bash)
#include <cstdio>
#include <memory>
#include <string>

#include "cli/cli_docs.h"
#include "cli/command.h"

namespace ys::cli::cmd_completion {
namespace {

Action Setup(CLI::App& sub) {
  auto shell = std::make_shared<std::string>();
  sub.add_option("shell", *shell, "bash or zsh")->required()->check(CLI::IsMember({"bash", "zsh"}));
  const CLI::App* self = &sub;
  return [shell, self]() -> Result<int> {
    const CLI::App& app = *self->get_parent();
    std::string script = *shell == "zsh" ? ZshCompletion(app) : BashCompletion(app);
    std::fputs(script.c_str(), stdout);
    return 0;
  };
}

}  // namespace

YS_REGISTER(CommandOf<Setup>,
            {.id = "completion",
             .summary = "Print the bash or zsh completion script (generated from the commands)"})

}  // namespace ys::cli::cmd_completion
