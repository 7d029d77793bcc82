// Making values safe to place in a generated sbatch script. Two tools, nothing else:
//  - ShellQuote: POSIX single quoting, for values in the script's shell body. Inside single
//    quotes the shell interprets nothing, so the only character to handle is the quote itself,
//    written as '\'' (close, escaped quote, reopen). A NUL cannot be carried by any shell word
//    and is rejected.
//  - Validated tokens, for #SBATCH lines, which sbatch reads itself before any shell and where
//    quoting does not apply: those values must match a conservative character set, else the
//    caller gets an error naming the value and the characters allowed.
#ifndef YARDSTICK_SLURM_SHELL_QUOTE_H_
#define YARDSTICK_SLURM_SHELL_QUOTE_H_

#include <string>
#include <string_view>

#include "core/status.h"

namespace ys::slurm {

// 'value' with every ' written as '\''. Errors only for a NUL byte.
Result<std::string> ShellQuote(std::string_view value);

// A value for an #SBATCH line or a path sbatch expands (--output): letters, digits and
// ._-/:=,+@ only; no whitespace, quotes, '%', '$', '#', '\\' or control characters; 1..4096
// characters. `what` names the value in the error ("cluster.toml [slurm] partition").
Status ValidateSbatchToken(std::string_view what, std::string_view value);

// An environment variable name: [A-Za-z_][A-Za-z0-9_]*.
Status ValidateEnvName(std::string_view what, std::string_view value);

}  // namespace ys::slurm

#endif  // YARDSTICK_SLURM_SHELL_QUOTE_H_
