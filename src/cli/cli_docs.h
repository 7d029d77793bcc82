// The man page and the shell completions, generated from the command line itself: every
// subcommand registered on the CLI11 App (cli/app.cc), its description and its options with
// their help text. What `yardstick man` and `yardstick completion bash|zsh` print and
// `make install` installs, so they never drift from the binary.
#ifndef YARDSTICK_CLI_CLI_DOCS_H_
#define YARDSTICK_CLI_CLI_DOCS_H_

#include <CLI/CLI.hpp>
#include <string>

namespace ys::cli {

// yardstick(1) in man(7) roff: NAME, SYNOPSIS, DESCRIPTION, one subsection per command with its
// options, EXIT STATUS, ENVIRONMENT, FILES.
std::string ManPage(const CLI::App& app);

// A bash completion script (complete -F): commands, then each command's options; a file name
// where an option takes a value.
std::string BashCompletion(const CLI::App& app);

// A zsh completion function (#compdef yardstick): commands with their descriptions, each
// command's options with their help.
std::string ZshCompletion(const CLI::App& app);

}  // namespace ys::cli

#endif  // YARDSTICK_CLI_CLI_DOCS_H_
