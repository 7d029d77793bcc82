// `yardstick verify ARCHIVE`: checks every hash and the signature, re-parses the raw logs,
// recomputes every score and the verdict, and reports any difference from what the archive's
// validation document claims. Exit 0 only when everything agrees.
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "cli/command.h"
#include "core/exit_codes.h"
#include "core/log.h"
#include "validate/validation_archive.h"

namespace ys::cli {
namespace {

struct VerifyArgs {
  std::string archive, pubkey;
};

Action Setup(CLI::App& sub) {
  auto a = std::make_shared<VerifyArgs>();
  sub.add_option("ARCHIVE", a->archive, "The .tar.zst written by `yardstick archive`")->required();
  sub.add_option("--pubkey", a->pubkey, "Ed25519 public key (PEM) the manifest must be signed with");
  return [a] {
    std::string work = (std::filesystem::temp_directory_path() /
                        ("yardstick-verify-" + std::to_string(::getpid()))).string();
    auto rep = validate::VerifyValidationArchive(a->archive, a->pubkey, work);
    if (!rep.ok()) {
      Log(LogLevel::kError, "{}: {}", a->archive, rep.status().message());
      return kExitCannotRun;
    }
    std::cout << "archive:    " << a->archive << "\n"
              << "files:      " << rep->files_checked << " listed in the manifest\n"
              << "signature:  " << rep->signature << "\n";
    for (const auto& p : rep->problems) std::cout << "PROBLEM     " << p << "\n";
    if (!rep->recomputed_verdict.empty()) std::cout << "recomputed: " << rep->recomputed_verdict << "\n";
    for (const auto& d : rep->differences) std::cout << "DIFFERS     " << d << "\n";
    std::cout << (rep->ok() ? "verified: hashes, signature and every score re-derived from the raw logs agree\n"
                            : "NOT VERIFIED\n");
    return rep->ok() ? kExitPass : kExitFail;
  };
}

}  // namespace

YS_REGISTER_COMMAND("verify", "Check an archive's hashes and signature and re-derive its verdict from the raw logs",
                    Setup)

}  // namespace ys::cli
