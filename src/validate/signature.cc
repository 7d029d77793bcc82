#include "validate/signature.h"

#include <fcntl.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/fd_write.h"
#include "core/text.h"
#include "validate/manifest.h"

namespace ys::validate {

void internal::PkeyFree::operator()(evp_pkey_st* key) const { EVP_PKEY_free(key); }

namespace {

// PEM key files are a few hundred bytes; anything much larger is not a key.
constexpr std::size_t kMaxPemBytes = std::size_t{64} * 1024;

struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
using BioPtr = std::unique_ptr<BIO, BioFree>;
struct MdCtxFree {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};
using MdCtxPtr = std::unique_ptr<EVP_MD_CTX, MdCtxFree>;

// Drains OpenSSL's thread-local error queue into one line.
std::string OpenSslErrors() {
  std::string out;
  while (unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof(buf));
    if (!out.empty()) out += "; ";
    out += buf;
  }
  return out.empty() ? "no OpenSSL error recorded" : out;
}

// Refuses to ask for a passphrase: loading is never interactive.
int NoPassphrase(char*, int, int, void*) { return -1; }

Result<std::string> ReadSmallFile(const std::string& path, const char* what) {
  struct FileCloser {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  std::unique_ptr<std::FILE, FileCloser> f(std::fopen(path.c_str(), "rbe"));
  if (!f) {
    int err = errno;
    if (err == ENOENT) return Status::NotFound(path + ": no such " + std::string(what) + " file");
    return Status::Io(path + ": cannot open " + what + " file (" + std::strerror(err) + ")");
  }
  std::string text(kMaxPemBytes + 1, '\0');
  std::size_t n = std::fread(text.data(), 1, text.size(), f.get());
  if (std::ferror(f.get())) {
    return Status::Io(path + ": cannot read " + what + " file (" + std::strerror(errno) + ")");
  }
  text.resize(n);
  if (text.size() > kMaxPemBytes) {
    return Status::Invalid(path + ": larger than " + std::to_string(kMaxPemBytes) +
                           " bytes; expected a PEM " + what + " file");
  }
  return text;
}

Status RequireEd25519(evp_pkey_st* key, const std::string& path) {
  if (EVP_PKEY_is_a(key, "ED25519") != 1) {
    const char* name = EVP_PKEY_get0_type_name(key);
    return Status::Invalid(path + ": a " + std::string(name != nullptr ? name : "non-Ed25519") +
                           " key; expected an Ed25519 key");
  }
  return Status::Ok();
}

}  // namespace

// ---- PublicKey ----

Result<PublicKey> PublicKey::LoadPem(const std::string& path) {
  auto text = ReadSmallFile(path, "public key");
  if (!text.ok()) return text.status();
  if (text->find("-----BEGIN PUBLIC KEY-----") == std::string::npos) {
    std::string found = text->find("PRIVATE KEY-----") != std::string::npos
                            ? "; it holds a private key, pass the public key instead"
                            : "";
    return Status::Invalid(path +
                           ": no PEM public key; expected \"-----BEGIN PUBLIC KEY-----\" "
                           "(SubjectPublicKeyInfo)" +
                           found);
  }
  ERR_clear_error();
  BioPtr bio(BIO_new_mem_buf(text->data(), static_cast<int>(text->size())));
  internal::PkeyPtr key(PEM_read_bio_PUBKEY(bio.get(), nullptr, NoPassphrase, nullptr));
  if (!key) return Status::Invalid(path + ": unreadable PEM public key (" + OpenSslErrors() + ")");
  YS_RETURN_IF_ERROR(RequireEd25519(key.get(), path));
  return PublicKey(std::move(key));
}

Status PublicKey::Verify(std::string_view message, std::string_view signature) const {
  if (signature.size() != kEd25519SignatureBytes) {
    return Status::Invalid("signature is " + std::to_string(signature.size()) +
                           " bytes; expected " + std::to_string(kEd25519SignatureBytes));
  }
  ERR_clear_error();
  MdCtxPtr ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, key_.get()) != 1) {
    return Status::Internal("EVP_DigestVerifyInit failed (" + OpenSslErrors() + ")");
  }
  int rc = EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(signature.data()),
                            signature.size(),
                            reinterpret_cast<const unsigned char*>(message.data()), message.size());
  if (rc == 1) return Status::Ok();
  ERR_clear_error();  // a bad signature leaves no useful detail
  return Status::Invalid("signature does not verify with public key " + Fingerprint() +
                         " (signed by another key, or the signed bytes or the signature were "
                         "altered)");
}

std::string PublicKey::Fingerprint() const {
  unsigned char* der = nullptr;
  int n = i2d_PUBKEY(key_.get(), &der);
  if (n <= 0) {
    ERR_clear_error();
    return "sha256:?";
  }
  std::string hex = Sha256Hex(std::string_view(reinterpret_cast<char*>(der), n));
  OPENSSL_free(der);
  return "sha256:" + hex;
}

std::string PublicKey::PemText() const {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_PUBKEY(bio.get(), key_.get()) != 1) {
    ERR_clear_error();
    return "";
  }
  char* data = nullptr;
  long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(n));
}

// ---- PrivateKey ----

Result<PrivateKey> PrivateKey::Generate() {
  ERR_clear_error();
  internal::PkeyPtr key(EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519"));
  if (!key) return Status::Internal("Ed25519 key generation failed (" + OpenSslErrors() + ")");
  return PrivateKey(std::move(key));
}

Result<PrivateKey> PrivateKey::LoadPem(const std::string& path) {
  auto text = ReadSmallFile(path, "private key");
  if (!text.ok()) return text.status();
  if (text->find("-----BEGIN ENCRYPTED PRIVATE KEY-----") != std::string::npos) {
    return Status::Unsupported(path +
                               ": an encrypted private key; expected an unencrypted PKCS#8 key "
                               "(keep it readable by its owner only)");
  }
  if (text->find("-----BEGIN PRIVATE KEY-----") == std::string::npos) {
    std::string found = text->find("-----BEGIN PUBLIC KEY-----") != std::string::npos
                            ? "; it holds a public key, signing needs the private key"
                            : "";
    return Status::Invalid(path +
                           ": no PEM private key; expected \"-----BEGIN PRIVATE KEY-----\" "
                           "(PKCS#8)" +
                           found);
  }
  ERR_clear_error();
  BioPtr bio(BIO_new_mem_buf(text->data(), static_cast<int>(text->size())));
  internal::PkeyPtr key(PEM_read_bio_PrivateKey(bio.get(), nullptr, NoPassphrase, nullptr));
  if (!key) return Status::Invalid(path + ": unreadable PEM private key (" + OpenSslErrors() + ")");
  YS_RETURN_IF_ERROR(RequireEd25519(key.get(), path));
  return PrivateKey(std::move(key));
}

Status PrivateKey::WritePem(const std::string& path) const {
  ERR_clear_error();
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio ||
      PEM_write_bio_PrivateKey(bio.get(), key_.get(), nullptr, nullptr, 0, nullptr, nullptr) != 1) {
    return Status::Internal(path + ": cannot encode private key (" + OpenSslErrors() + ")");
  }
  char* data = nullptr;
  long n = BIO_get_mem_data(bio.get(), &data);
  return WriteNewFile(path, std::string_view(data, static_cast<std::size_t>(n)), 0600);
}

Result<std::string> PrivateKey::Sign(std::string_view message) const {
  ERR_clear_error();
  MdCtxPtr ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, key_.get()) != 1) {
    return Status::Internal("EVP_DigestSignInit failed (" + OpenSslErrors() + ")");
  }
  std::string sig(kEd25519SignatureBytes, '\0');
  std::size_t len = sig.size();
  if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()), &len,
                     reinterpret_cast<const unsigned char*>(message.data()), message.size()) != 1 ||
      len != kEd25519SignatureBytes) {
    return Status::Internal("Ed25519 signing failed (" + OpenSslErrors() + ")");
  }
  return sig;
}

Result<PublicKey> PrivateKey::Public() const {
  // Round trip through DER SubjectPublicKeyInfo: yields a key object holding the public half
  // only.
  ERR_clear_error();
  unsigned char* der = nullptr;
  int n = i2d_PUBKEY(key_.get(), &der);
  if (n <= 0) return Status::Internal("cannot encode public key (" + OpenSslErrors() + ")");
  const unsigned char* p = der;
  internal::PkeyPtr pub(d2i_PUBKEY(nullptr, &p, n));
  OPENSSL_free(der);
  if (!pub) return Status::Internal("cannot decode public key (" + OpenSslErrors() + ")");
  return PublicKey(std::move(pub));
}

// ---- Files and encodings ----

Status WriteNewFile(const std::string& path, std::string_view content, unsigned mode) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) {
    int err = errno;
    if (err == EEXIST) return Status::Invalid(path + ": already exists; refusing to overwrite");
    return Status::Io(path + ": cannot create (" + std::strerror(err) + ")");
  }
  if (Status s = WriteAll(fd, content, path); !s.ok()) {
    ::close(fd);
    ::unlink(path.c_str());
    return s;
  }
  if (::close(fd) != 0) {
    int err = errno;
    ::unlink(path.c_str());
    return Status::Io(path + ": close failed (" + std::strerror(err) + ")");
  }
  return Status::Ok();
}

namespace {
constexpr char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int Base64Value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}
}  // namespace

std::string Base64Encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    std::uint32_t v = static_cast<unsigned char>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) v |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    if (i + 2 < bytes.size()) v |= static_cast<unsigned char>(bytes[i + 2]);
    out += kBase64[(v >> 18) & 63];
    out += kBase64[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? kBase64[(v >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kBase64[v & 63] : '=';
  }
  return out;
}

Result<std::string> Base64Decode(std::string_view text) {
  if (text.size() % 4 != 0) {
    return Status::Invalid("base64: length " + std::to_string(text.size()) +
                           " is not a multiple of 4");
  }
  std::string out;
  for (std::size_t i = 0; i < text.size(); i += 4) {
    std::string_view group = text.substr(i, 4);
    // Padding: only in the last group, as "xx==" or "xxx=".
    std::size_t pad = 0;
    if (i + 4 == text.size()) {
      if (group[3] == '=') pad = group[2] == '=' ? 2 : 1;
    }
    std::uint32_t v = 0;
    for (std::size_t j = 0; j < 4; ++j) {
      if (j >= 4 - pad) {
        v <<= 6;
        continue;
      }
      int d = Base64Value(group[j]);
      if (d < 0) {
        return Status::Invalid("base64: unexpected character at offset " + std::to_string(i + j));
      }
      v = (v << 6) | static_cast<std::uint32_t>(d);
    }
    // The bits that padding leaves over must be zero, so that each byte string has one encoding.
    if ((pad == 1 && (v & 0xff) != 0) || (pad == 2 && (v & 0xffff) != 0)) {
      return Status::Invalid("base64: non-zero bits before the padding");
    }
    out += static_cast<char>((v >> 16) & 0xff);
    if (pad < 2) out += static_cast<char>((v >> 8) & 0xff);
    if (pad < 1) out += static_cast<char>(v & 0xff);
  }
  return out;
}

std::string SignatureFileText(std::string_view signature) { return Base64Encode(signature) + "\n"; }

Result<std::string> ParseSignatureFile(std::string_view text, const std::string& origin) {
  std::string_view body = text;
  while (!body.empty() && (body.back() == '\n' || body.back() == '\r' || body.back() == ' ' ||
                           body.back() == '\t')) {
    body.remove_suffix(1);
  }
  auto raw = Base64Decode(body);
  if (!raw.ok()) {
    return Status::Invalid(origin + ": " + raw.status().message() +
                           "; expected the base64 of a 64-byte Ed25519 signature");
  }
  if (raw->size() != kEd25519SignatureBytes) {
    return Status::Invalid(origin + ": decodes to " + std::to_string(raw->size()) +
                           " bytes; expected a 64-byte Ed25519 signature");
  }
  return *raw;
}

}  // namespace ys::validate
