#include "burnin/digest.h"

#include <openssl/evp.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <vector>

namespace ys::burnin {
namespace {

struct CtxDeleter {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};

// SHA-256 of what `feed` passes to EVP_DigestUpdate (it returns false when an update failed).
Result<std::string> Hash(const std::function<bool(EVP_MD_CTX*)>& feed) {
  std::unique_ptr<EVP_MD_CTX, CtxDeleter> ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1) {
    return Status::Internal("SHA-256: OpenSSL EVP_DigestInit_ex failed");
  }
  if (!feed(ctx.get())) return Status::Internal("SHA-256: OpenSSL EVP_DigestUpdate failed");
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_DigestFinal_ex(ctx.get(), md, &len) != 1) {
    return Status::Internal("SHA-256: OpenSSL EVP_DigestFinal_ex failed");
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * len);
  for (unsigned int i = 0; i < len; ++i) {
    out += kHex[md[i] >> 4];
    out += kHex[md[i] & 0xf];
  }
  return out;
}

}  // namespace

Result<std::string> Sha256Hex(const void* data, size_t bytes) {
  return Hash([&](EVP_MD_CTX* ctx) { return EVP_DigestUpdate(ctx, data, bytes) == 1; });
}

Result<std::string> Sha256HexRepeated(const void* pattern, size_t pattern_bytes, size_t times) {
  // A block of repeats per update: one EVP call per 8-byte element would be slow.
  constexpr size_t kBlockBytes = 1 << 16;
  const size_t per_block = std::max<size_t>(1, kBlockBytes / std::max<size_t>(1, pattern_bytes));
  std::vector<unsigned char> block;
  const auto* p = static_cast<const unsigned char*>(pattern);
  for (size_t i = 0; i < std::min(per_block, times); ++i) {
    block.insert(block.end(), p, p + pattern_bytes);
  }
  return Hash([&](EVP_MD_CTX* ctx) {
    for (size_t left = times; left > 0;) {
      size_t n = std::min(left, per_block);
      if (EVP_DigestUpdate(ctx, block.data(), n * pattern_bytes) != 1) return false;
      left -= n;
    }
    return true;
  });
}

}  // namespace ys::burnin
