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
  std::string suite, runs, data, baselines, output, sign;
  std::vector<std::string> references;
};

Action Setup(CLI::App& sub) {
  auto a = std::make_shared<ArchiveArgs>();
  sub.add_option("--suite", a->suite, "Suite: a chip name or a .toml")->required();
  sub.add_option("--runs", a->runs, "Runs directory (as for validate)")->required();
  sub.add_option("-o,--output", a->output, "Archive to write (.tar.zst); never overwritten")->required();
  sub.add_option("--sign", a->sign, "Ed25519 private key (PEM) to sign the manifest with");
  sub.add_option("--data", a->data, "Directory holding suites/, baselines/, specs/");
  sub.add_option("--baselines", a->baselines, "Reference directory (default <data>/baselines/<chip>)");
  sub.add_option("--reference", a->references, "Additional reference file (repeatable)");
  return [a] {
    auto in = validate::ResolveInputs(a->suite, DataDir(a->data), a->baselines, a->references, a->runs);
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

YS_REGISTER_COMMAND("archive", "Validate a suite's runs and pack a re-derivable, hashed (and signed) archive",
                    Setup)

}  // namespace ys::cli
