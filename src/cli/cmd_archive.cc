// `yardstick archive`: validates a suite's runs and packs everything needed to re-derive the
// verdict into a .tar.zst with a SHA-256 manifest, optionally signed (Ed25519).
#include <iostream>

#include "cli/command.h"
#include "core/exit_codes.h"
#include "core/log.h"
#include "validate/validation_archive.h"

namespace ys::cli::cmd_archive {
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
  return [a]() -> Result<int> {
    auto in = validate::ResolveInputs(a->inputs.suite, DataDir(a->inputs.data), a->inputs.baselines,
                                      a->inputs.references, a->inputs.runs);
    if (!in.ok()) return in.status();
    auto result = validate::RunValidation(*in);
    if (!result.ok()) return result.status();
    YS_RETURN_IF_ERROR(validate::WriteValidationArchive(*result, *in, a->output, a->sign));
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

}  // namespace ys::cli::cmd_archive
