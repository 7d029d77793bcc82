// `yardstick archive`: validates a suite's runs and packs everything needed to re-derive the
// verdict into a .tar.zst with a SHA-256 manifest, optionally signed (Ed25519).
#include <iostream>

#include "cli/command.h"
#include "core/exit_codes.h"
#include "core/log.h"
#include "validate/validation_archive.h"

namespace ys::cli {
namespace {

struct ArchiveArgs {
  ValidationArgs inputs;
  std::string output, sign;
};

Action Setup(CLI::App& sub) {
  auto a = std::make_shared<ArchiveArgs>();
  AddValidationOptions(sub, a->inputs);
  sub.add_option("-o,--output", a->output, "Archive to write (.tar.zst); never overwritten")
      ->required();
  sub.add_option("--sign", a->sign, "Ed25519 private key (PEM) to sign the manifest with");
  return [a] {
    auto in = validate::ResolveInputs(a->inputs.suite, DataDir(a->inputs.data), a->inputs.baselines,
                                      a->inputs.references, a->inputs.runs);
    if (!in.ok()) {
      Log(LogLevel::kError, "{}", in.status().message());
      return kExitCannotRun;
    }
    auto result = validate::RunValidation(*in);
    if (!result.ok()) {
      Log(LogLevel::kError, "{}", result.status().message());
      return kExitCannotRun;
    }
    if (Status s = validate::WriteValidationArchive(*result, *in, a->output, a->sign); !s.ok()) {
      Log(LogLevel::kError, "{}", s.message());
      return kExitCannotRun;
    }
    std::cout << "archive: " << a->output << (a->sign.empty() ? " (unsigned)" : " (signed)") << "\n"
              << "verdict: " << result->card.verdict << "\n";
    return kExitPass;
  };
}

}  // namespace

YS_REGISTER(
    CommandOf<Setup>,
    {.id = "archive",
     .summary = "Validate a suite's runs and pack a re-derivable, hashed (and signed) archive"})

}  // namespace ys::cli
