// Fuzz target: opening a results archive from outside (validate/archive_open.cc OpenArchive):
// libarchive reading of .tar.zst (or any format libarchive detects), the entry checks (paths,
// links, special files, sizes), extraction, the manifest check and the signature check against
// a fixed Ed25519 public key. Extraction goes to a scratch folder removed after each input.
#include <filesystem>

#include "fuzz_target.h"
#include "fuzz_util.h"
#include "validate/archive.h"

namespace {

// A throwaway key: no input is signed by it, but the signature path is exercised.
constexpr char kPublicKey[] =
    "-----BEGIN PUBLIC KEY-----\n"
    "MCowBQYDK2VwAyEAcH8aM4wPMutQGT+QMhjsWINIDtqpDlIKqxL5ol4R2/I=\n"
    "-----END PUBLIC KEY-----\n";

}  // namespace

YS_FUZZ_TARGET(archive) {
  static const std::string key = ys::fuzz::WriteScratch("key.pem", kPublicKey);
  std::string path = ys::fuzz::WriteScratch("in.tar.zst", ys::fuzz::AsText(data, size));
  std::string dest = ys::fuzz::ScratchDir() + "/out";
  ys::validate::ExtractLimits limits;
  limits.max_entries = 1000;  // bounded work per input; the limits' own checks still run
  limits.max_total_bytes = 8 << 20;
  limits.max_manifest_bytes = 1 << 20;
  (void)ys::validate::OpenArchive(path, dest, key, limits);
  std::error_code ec;
  std::filesystem::remove_all(dest, ec);
  return 0;
}
