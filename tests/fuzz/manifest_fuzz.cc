// Fuzz target: the archive's own documents, by selector byte:
//   0 manifest.json (validate/manifest.cc ParseManifest)
//   1 manifest.sig (validate/signature.cc ParseSignatureFile)
//   2 base64 (validate/signature.cc Base64Decode)
//   3 a path named in a manifest (validate/manifest.cc ValidateRelativePath, PrintablePath)
#include <nlohmann/json.hpp>

#include "fuzz_target.h"
#include "fuzz_util.h"
#include "validate/manifest.h"
#include "validate/signature.h"

YS_FUZZ_TARGET(manifest) {
  using namespace ys::validate;
  std::string_view text = ys::fuzz::AsText(data, size);
  std::optional<int> which = ys::fuzz::TakeSelector(&text, 4);
  if (!which) return 0;
  switch (*which) {
    case 0:
      (void)ParseManifest(text, "manifest.json");
      break;
    case 1:
      (void)ParseSignatureFile(text, "manifest.sig");
      break;
    case 2:
      (void)Base64Decode(text);
      break;
    case 3:
      (void)ValidateRelativePath(text);
      (void)QuotePath(text);
      break;
  }
  return 0;
}
