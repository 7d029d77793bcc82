#include "validate/signature.h"

#include <gtest/gtest.h>
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <sys/stat.h>

#include <memory>

#include "validate/archive_test_util.h"

namespace ys::validate {
namespace {

using archive_testing::MakeKeyPair;
using archive_testing::ReadFile;
using archive_testing::ScopedTempDir;
using archive_testing::WriteFile;

struct PkeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
using Pkey = std::unique_ptr<EVP_PKEY, PkeyFree>;
struct CtxFree {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};

// PEM text of a key generated directly with OpenSSL, outside the code under test.
std::string PemOf(EVP_PKEY* key, bool private_part) {
  std::unique_ptr<BIO, int (*)(BIO*)> bio(BIO_new(BIO_s_mem()), BIO_free);
  int rc = private_part
               ? PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr)
               : PEM_write_bio_PUBKEY(bio.get(), key);
  EXPECT_EQ(rc, 1);
  char* data = nullptr;
  long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, n);
}

TEST(ArchiveSignatureTest, SignAndVerifyRoundTripThroughPemFiles) {
  ScopedTempDir tmp;
  auto files = MakeKeyPair(tmp.path(), "k");
  EXPECT_NE(ReadFile(files.private_pem).find("-----BEGIN PRIVATE KEY-----"), std::string::npos);
  EXPECT_NE(ReadFile(files.public_pem).find("-----BEGIN PUBLIC KEY-----"), std::string::npos);
  struct stat st {};
  ASSERT_EQ(::stat(files.private_pem.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  auto priv = PrivateKey::LoadPem(files.private_pem);
  ASSERT_TRUE(priv.ok()) << priv.status().ToString();
  auto pub = PublicKey::LoadPem(files.public_pem);
  ASSERT_TRUE(pub.ok()) << pub.status().ToString();
  EXPECT_EQ(pub->Fingerprint(), priv->Public()->Fingerprint());
  EXPECT_EQ(pub->Fingerprint().size(), 7u + 64u);

  const std::string message("manifest bytes\n\0with a NUL", 26);
  auto sig = priv->Sign(message);
  ASSERT_TRUE(sig.ok()) << sig.status().ToString();
  EXPECT_EQ(sig->size(), kEd25519SignatureBytes);
  EXPECT_EQ(*priv->Sign(message), *sig);  // Ed25519 is deterministic
  EXPECT_TRUE(pub->Verify(message, *sig).ok());
  EXPECT_TRUE(pub->Verify("", *priv->Sign("")).ok());

  // Writing a key never replaces a file.
  Status again = priv->WritePem(files.private_pem);
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.message().find("already exists"), std::string::npos);
}

TEST(ArchiveSignatureTest, InteroperatesWithPlainOpenSsl) {
  ScopedTempDir tmp;
  Pkey key(EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519"));
  ASSERT_NE(key, nullptr);
  WriteFile(tmp.Sub("raw.key"), PemOf(key.get(), true));
  WriteFile(tmp.Sub("raw.pub"), PemOf(key.get(), false));
  auto priv = PrivateKey::LoadPem(tmp.Sub("raw.key"));
  ASSERT_TRUE(priv.ok()) << priv.status().ToString();
  auto pub = PublicKey::LoadPem(tmp.Sub("raw.pub"));
  ASSERT_TRUE(pub.ok()) << pub.status().ToString();

  const std::string message = "run.json sha256 ...";
  // Ours signs, plain OpenSSL verifies.
  auto sig = priv->Sign(message);
  ASSERT_TRUE(sig.ok());
  std::unique_ptr<EVP_MD_CTX, CtxFree> v(EVP_MD_CTX_new());
  ASSERT_EQ(EVP_DigestVerifyInit(v.get(), nullptr, nullptr, nullptr, key.get()), 1);
  EXPECT_EQ(
      EVP_DigestVerify(v.get(), reinterpret_cast<const unsigned char*>(sig->data()), sig->size(),
                       reinterpret_cast<const unsigned char*>(message.data()), message.size()),
      1);
  // Plain OpenSSL signs, ours verifies.
  std::unique_ptr<EVP_MD_CTX, CtxFree> s(EVP_MD_CTX_new());
  ASSERT_EQ(EVP_DigestSignInit(s.get(), nullptr, nullptr, nullptr, key.get()), 1);
  std::string raw_sig(64, '\0');
  size_t len = raw_sig.size();
  ASSERT_EQ(EVP_DigestSign(s.get(), reinterpret_cast<unsigned char*>(raw_sig.data()), &len,
                           reinterpret_cast<const unsigned char*>(message.data()), message.size()),
            1);
  EXPECT_TRUE(pub->Verify(message, raw_sig).ok());
}

TEST(ArchiveSignatureTest, WrongKeyCorruptedSignatureOrAlteredMessageFail) {
  ScopedTempDir tmp;
  auto a = MakeKeyPair(tmp.path(), "a");
  auto b = MakeKeyPair(tmp.path(), "b");
  auto priv = PrivateKey::LoadPem(a.private_pem);
  auto pub_a = PublicKey::LoadPem(a.public_pem);
  auto pub_b = PublicKey::LoadPem(b.public_pem);
  ASSERT_TRUE(priv.ok() && pub_a.ok() && pub_b.ok());
  const std::string message = "the manifest";
  std::string sig = *priv->Sign(message);

  Status wrong_key = pub_b->Verify(message, sig);
  ASSERT_FALSE(wrong_key.ok());
  EXPECT_EQ(wrong_key.code(), StatusCode::kInvalidInput);
  EXPECT_NE(wrong_key.message().find("does not verify with public key " + pub_b->Fingerprint()),
            std::string::npos)
      << wrong_key.message();

  for (std::size_t i : {0, 1, 31, 32, 63}) {
    std::string bad = sig;
    bad[i] ^= 0x01;
    EXPECT_FALSE(pub_a->Verify(message, bad).ok()) << "byte " << i;
  }
  EXPECT_FALSE(pub_a->Verify("the manifesT", sig).ok());
  EXPECT_FALSE(pub_a->Verify(message + "\n", sig).ok());
  Status short_sig = pub_a->Verify(message, sig.substr(0, 63));
  ASSERT_FALSE(short_sig.ok());
  EXPECT_NE(short_sig.message().find("63 bytes; expected 64"), std::string::npos);
  EXPECT_FALSE(pub_a->Verify(message, "").ok());
}

TEST(ArchiveSignatureTest, NonEd25519KeysRefused) {
  ScopedTempDir tmp;
  Pkey ec(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
  Pkey x25519(EVP_PKEY_Q_keygen(nullptr, nullptr, "X25519"));
  ASSERT_NE(ec, nullptr);
  ASSERT_NE(x25519, nullptr);
  WriteFile(tmp.Sub("ec.key"), PemOf(ec.get(), true));
  WriteFile(tmp.Sub("ec.pub"), PemOf(ec.get(), false));
  WriteFile(tmp.Sub("x.key"), PemOf(x25519.get(), true));
  WriteFile(tmp.Sub("x.pub"), PemOf(x25519.get(), false));

  auto ec_priv = PrivateKey::LoadPem(tmp.Sub("ec.key"));
  ASSERT_FALSE(ec_priv.ok());
  EXPECT_NE(ec_priv.status().message().find("ec.key: a EC key; expected an Ed25519 key"),
            std::string::npos)
      << ec_priv.status().message();
  auto ec_pub = PublicKey::LoadPem(tmp.Sub("ec.pub"));
  ASSERT_FALSE(ec_pub.ok());
  EXPECT_NE(ec_pub.status().message().find("expected an Ed25519 key"), std::string::npos);
  auto x_priv = PrivateKey::LoadPem(tmp.Sub("x.key"));
  ASSERT_FALSE(x_priv.ok());
  EXPECT_NE(x_priv.status().message().find("X25519"), std::string::npos)
      << x_priv.status().message();
  EXPECT_FALSE(PublicKey::LoadPem(tmp.Sub("x.pub")).ok());
}

TEST(ArchiveSignatureTest, MissingGarbageAndMisplacedPemFilesGiveClearErrors) {
  ScopedTempDir tmp;
  auto keys = MakeKeyPair(tmp.path(), "k");
  WriteFile(tmp.Sub("garbage"), "this is not a key\n");
  WriteFile(tmp.Sub("bad_body.pem"),
            "-----BEGIN PUBLIC KEY-----\nnot*base64*at*all\n-----END PUBLIC KEY-----\n");
  WriteFile(tmp.Sub("bad_body.key"),
            "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n");
  WriteFile(tmp.Sub("empty"), "");
  WriteFile(tmp.Sub("huge"), std::string(100 * 1024, 'A'));

  struct Case {
    std::string path;
    bool private_key;
    StatusCode code;
    std::string want;
  };
  const Case cases[] = {
      {tmp.Sub("missing.pub"), false, StatusCode::kNotFound,
       "missing.pub: no such public key file"},
      {tmp.Sub("missing.key"), true, StatusCode::kNotFound,
       "missing.key: no such private key file"},
      {tmp.Sub("garbage"), false, StatusCode::kInvalidInput, "garbage: no PEM public key"},
      {tmp.Sub("garbage"), true, StatusCode::kInvalidInput, "garbage: no PEM private key"},
      {tmp.Sub("empty"), true, StatusCode::kInvalidInput, "empty: no PEM private key"},
      {tmp.Sub("huge"), false, StatusCode::kInvalidInput, "huge: larger than 65536 bytes"},
      {tmp.Sub("bad_body.pem"), false, StatusCode::kInvalidInput,
       "bad_body.pem: unreadable PEM public key"},
      {tmp.Sub("bad_body.key"), true, StatusCode::kInvalidInput,
       "bad_body.key: unreadable PEM private key"},
      {keys.private_pem, false, StatusCode::kInvalidInput,
       "it holds a private key, pass the public key instead"},
      {keys.public_pem, true, StatusCode::kInvalidInput,
       "it holds a public key, signing needs the private key"},
      {tmp.path(), true, StatusCode::kIoError, "cannot read private key file"},
  };
  for (const auto& c : cases) {
    Status s =
        c.private_key ? PrivateKey::LoadPem(c.path).status() : PublicKey::LoadPem(c.path).status();
    ASSERT_FALSE(s.ok()) << c.path;
    EXPECT_EQ(s.code(), c.code) << s.ToString();
    EXPECT_NE(s.message().find(c.want), std::string::npos) << "got: " << s.message();
  }
}

TEST(ArchiveSignatureTest, EncryptedPrivateKeyRefusedWithoutPrompting) {
  ScopedTempDir tmp;
  Pkey key(EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519"));
  std::unique_ptr<BIO, int (*)(BIO*)> bio(BIO_new(BIO_s_mem()), BIO_free);
  char pass[] = "secret";
  ASSERT_EQ(PEM_write_bio_PKCS8PrivateKey(bio.get(), key.get(), EVP_aes_256_cbc(), pass, 6, nullptr,
                                          nullptr),
            1);
  char* data = nullptr;
  long n = BIO_get_mem_data(bio.get(), &data);
  WriteFile(tmp.Sub("enc.key"), std::string(data, n));
  auto loaded = PrivateKey::LoadPem(tmp.Sub("enc.key"));
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(loaded.status().message().find("enc.key: an encrypted private key"), std::string::npos);
}

TEST(ArchiveSignatureTest, Base64AndSignatureFileFormat) {
  EXPECT_EQ(Base64Encode(""), "");
  EXPECT_EQ(Base64Encode("f"), "Zg==");
  EXPECT_EQ(Base64Encode("fo"), "Zm8=");
  EXPECT_EQ(Base64Encode("foo"), "Zm9v");
  EXPECT_EQ(Base64Encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(Base64Encode(std::string("\xff\xfe\x00", 3)), "//4A");
  for (std::string s : {"", "f", "fo", "foo", "foob", "fooba", "foobar"}) {
    auto d = Base64Decode(Base64Encode(s));
    ASSERT_TRUE(d.ok()) << s;
    EXPECT_EQ(*d, s);
  }
  for (const char* bad : {"Zg=", "Zg=a", "Z===", "=Zg=", "Zm9v\n", "Zh==", "Zm9=", "Zm 9"}) {
    EXPECT_FALSE(Base64Decode(bad).ok()) << bad;
  }

  std::string sig(64, '\0');
  for (int i = 0; i < 64; ++i) sig[i] = static_cast<char>(i * 7);
  std::string text = SignatureFileText(sig);
  EXPECT_EQ(text.size(), 89u);
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(*ParseSignatureFile(text, "x.sig"), sig);
  EXPECT_EQ(*ParseSignatureFile(text.substr(0, 88) + "\r\n", "x.sig"), sig);
  auto short_sig = ParseSignatureFile(SignatureFileText(sig.substr(0, 32)), "x.sig");
  ASSERT_FALSE(short_sig.ok());
  EXPECT_NE(short_sig.status().message().find("x.sig: decodes to 32 bytes"), std::string::npos);
  auto junk = ParseSignatureFile("not base64!\n", "x.sig");
  ASSERT_FALSE(junk.ok());
  EXPECT_NE(junk.status().message().find("x.sig: base64"), std::string::npos);
}

}  // namespace
}  // namespace ys::validate
