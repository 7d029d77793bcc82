// Helpers for the manifest, signature and archive tests: a temporary directory per test, small
// file helpers, key pairs in PEM files, and a raw tar.zst reader/writer (libarchive) so that a
// test can take an archive apart, alter one thing and pack it again, or build a hostile one.
#ifndef YARDSTICK_TESTS_UNIT_VALIDATE_ARCHIVE_TEST_UTIL_H_
#define YARDSTICK_TESTS_UNIT_VALIDATE_ARCHIVE_TEST_UTIL_H_

#include <string>
#include <vector>

namespace ys::archive_testing {

// A fresh directory under the system temporary directory, removed with everything in it.
class ScopedTempDir {
 public:
  ScopedTempDir();
  ~ScopedTempDir();
  ScopedTempDir(const ScopedTempDir&) = delete;
  ScopedTempDir& operator=(const ScopedTempDir&) = delete;

  const std::string& path() const { return path_; }
  // path() + "/" + rel
  std::string Sub(const std::string& rel) const { return path_ + "/" + rel; }

 private:
  std::string path_;
};

// Creates parent directories; overwrites.
void WriteFile(const std::string& path, const std::string& content);
std::string ReadFile(const std::string& path);
// Names (not paths) of the entries directly in `dir`, sorted.
std::vector<std::string> ListDir(const std::string& dir);

// A fresh Ed25519 key pair written to <dir>/<stem>.key (PKCS#8) and <dir>/<stem>.pub (SPKI).
struct KeyFiles {
  std::string private_pem;
  std::string public_pem;
};
KeyFiles MakeKeyPair(const std::string& dir, const std::string& stem);

// One raw tar entry. `type` is a libarchive AE_IF* value.
struct TarEntry {
  std::string path;
  unsigned type = 0100000;  // AE_IFREG
  std::string content;      // regular files
  std::string symlink;      // AE_IFLNK target
  std::string hardlink;     // non-empty: a hard link to this path
};

// Every entry of a tar (any libarchive filter), in order. Fails the test on a read error.
std::vector<TarEntry> ReadTar(const std::string& path);
// Writes `entries` as a pax tar compressed with zstd, exactly as given (no checks).
void WriteTarZst(const std::string& path, const std::vector<TarEntry>& entries);

}  // namespace ys::archive_testing

#endif  // YARDSTICK_TESTS_UNIT_VALIDATE_ARCHIVE_TEST_UTIL_H_
