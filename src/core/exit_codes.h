// Process exit codes, as in docs/design.md §outputs.
#ifndef YARDSTICK_CORE_EXIT_CODES_H_
#define YARDSTICK_CORE_EXIT_CODES_H_

namespace ys {

inline constexpr int kExitPass = 0;       // everything passed
inline constexpr int kExitFail = 1;       // a check failed or the verdict is fail
inline constexpr int kExitCannotRun = 2;  // bad input, missing file, unreachable backend
// The verdict is INCONCLUSIVE (docs/verdict.md): the node could not be judged. The same code as
// "cannot run": in both cases nothing says whether the node is fine.
inline constexpr int kExitInconclusive = kExitCannotRun;
inline constexpr int kExitUsage = 64;  // usage error (EX_USAGE)

}  // namespace ys

#endif  // YARDSTICK_CORE_EXIT_CODES_H_
