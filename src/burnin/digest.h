// SHA-256 (OpenSSL EVP) of a load's reference output, in lower-case hex: what makes a result
// comparable across workers, GPUs, ranks, nodes and a resumed burn-in.
#ifndef YARDSTICK_BURNIN_DIGEST_H_
#define YARDSTICK_BURNIN_DIGEST_H_

#include <cstddef>
#include <string>

#include "core/status.h"

namespace ys::burnin {

// 64 hex digits of SHA-256 over `bytes` bytes at `data`. Internal when OpenSSL fails.
Result<std::string> Sha256Hex(const void* data, size_t bytes);

// SHA-256 of `pattern` (of `pattern_bytes`) repeated `times` times, without building the whole
// buffer: the digest of an array every element of which holds the same value.
Result<std::string> Sha256HexRepeated(const void* pattern, size_t pattern_bytes, size_t times);

}  // namespace ys::burnin

#endif  // YARDSTICK_BURNIN_DIGEST_H_
