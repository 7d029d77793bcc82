// Ed25519 signatures over byte strings (OpenSSL EVP, "pure" Ed25519: the message itself is
// signed, no separate digest), with keys in PEM files:
//   private key: unencrypted PKCS#8, "-----BEGIN PRIVATE KEY-----"
//   public key:  SubjectPublicKeyInfo, "-----BEGIN PUBLIC KEY-----"
// the formats `openssl genpkey -algorithm ed25519` and `openssl pkey -pubout` write, so a
// signature made here verifies with stock OpenSSL and the other way round:
//   openssl pkeyutl -verify -pubin -inkey pub.pem -rawin -in MESSAGE -sigfile SIG.bin
//
// A signature is 64 raw bytes. On disk (a ".sig" file) it is stored as SignatureFileText():
// standard base64 with padding (RFC 4648 §4), 88 characters, then "\n"; `base64 -d` turns it
// back into the raw bytes stock OpenSSL expects.
//
// Keys are movable, not copyable; a const key may be used from several threads at once
// (every operation makes its own EVP_MD_CTX). Loading never prompts: an encrypted key is an
// error.
#ifndef YARDSTICK_VALIDATE_SIGNATURE_H_
#define YARDSTICK_VALIDATE_SIGNATURE_H_

#include <memory>
#include <string>
#include <string_view>

#include "core/status.h"

struct evp_pkey_st;  // OpenSSL's EVP_PKEY, kept out of this header.

namespace ys::validate {

inline constexpr std::size_t kEd25519SignatureBytes = 64;

namespace internal {
struct PkeyFree {
  void operator()(evp_pkey_st* key) const;
};
using PkeyPtr = std::unique_ptr<evp_pkey_st, PkeyFree>;
}  // namespace internal

class PublicKey {
 public:
  // Reads a SubjectPublicKeyInfo PEM file holding an Ed25519 key. Errors name the file and say
  // what was found instead: no such file, no PEM public key (or a private key), another
  // algorithm.
  static Result<PublicKey> LoadPem(const std::string& path);

  // OK when `signature` (64 raw bytes) is this key's signature of `message`. Otherwise Invalid:
  // a wrong length, or "does not verify" for a corrupted signature, an altered message or
  // another key's signature.
  Status Verify(std::string_view message, std::string_view signature) const;

  // "sha256:" + hex SHA-256 of the key's DER SubjectPublicKeyInfo; names the key in reports.
  std::string Fingerprint() const;

  // SubjectPublicKeyInfo PEM text.
  std::string PemText() const;

 private:
  friend class PrivateKey;
  explicit PublicKey(internal::PkeyPtr key) : key_(std::move(key)) {}
  internal::PkeyPtr key_;
};

class PrivateKey {
 public:
  // A fresh Ed25519 key from OpenSSL's default random generator.
  static Result<PrivateKey> Generate();

  // Reads an unencrypted PKCS#8 PEM file holding an Ed25519 key. Errors name the file: no such
  // file, not PEM, an encrypted key, another algorithm.
  static Result<PrivateKey> LoadPem(const std::string& path);

  // Writes the key as unencrypted PKCS#8 PEM to a new file with mode 0600; refuses to
  // overwrite an existing file.
  Status WritePem(const std::string& path) const;

  // The 64-byte Ed25519 signature of `message`.
  Result<std::string> Sign(std::string_view message) const;

  // The matching public key.
  Result<PublicKey> Public() const;

 private:
  explicit PrivateKey(internal::PkeyPtr key) : key_(std::move(key)) {}
  internal::PkeyPtr key_;
};

// Writes `content` to a new file with `mode`; refuses to overwrite an existing file.
Status WriteNewFile(const std::string& path, std::string_view content, unsigned mode = 0644);

// Standard base64 with padding, no line breaks.
std::string Base64Encode(std::string_view bytes);
// Strict: standard alphabet, length a multiple of 4, padding only at the end; no whitespace.
Result<std::string> Base64Decode(std::string_view text);

// The content of a .sig file for `signature` (see the top of this file).
std::string SignatureFileText(std::string_view signature);
// The raw signature from a .sig file's content. Trailing whitespace is ignored; anything else
// that is not base64 of exactly 64 bytes is an error naming `origin`.
Result<std::string> ParseSignatureFile(std::string_view text, const std::string& origin);

}  // namespace ys::validate

#endif  // YARDSTICK_VALIDATE_SIGNATURE_H_
