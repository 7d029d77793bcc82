// The command line: every registered subcommand (cli/command.h) on one CLI11 App, parsed and run.
// main.cc only calls Main, so that the program's own translation unit does not pay for CLI11.
#ifndef YARDSTICK_CLI_APP_H_
#define YARDSTICK_CLI_APP_H_

namespace ys::cli {

// Parses argv, runs the chosen subcommand and returns the process's exit code (core/exit_codes.h).
int Main(int argc, char** argv);

}  // namespace ys::cli

#endif  // YARDSTICK_CLI_APP_H_
