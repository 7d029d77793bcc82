// Manifest: the list of files in a results archive with each file's size and SHA-256, as
// canonical JSON, so that anyone can check an extracted archive file by file.
//
// Canonical form (ManifestToJson): the same files always give byte-identical text, because the
// signature (validate/signature.h) is computed over these exact bytes.
//
//   {
//     "format": "yardstick-manifest",
//     "version": 1,
//     "files": [
//       {
//         "path": "run.json",
//         "size": 1234,
//         "sha256": "<64 lowercase hex digits>"
//       }
//     ]
//   }
//
// followed by one "\n". Keys in that order, two-space indentation, files sorted by path (byte
// order), paths relative with '/' separators. Only regular files are listed; directories are
// implied by the paths, and links or device files are never part of a manifest.
//
// Paths (ValidateRelativePath) are restricted to printable ASCII without backslash, with no
// empty, "." or ".." components, so that a manifest means the same on every system and every
// path stays inside the directory it describes.
//
// Thread safety: all functions are reentrant; no shared state.
#ifndef YARDSTICK_VALIDATE_MANIFEST_H_
#define YARDSTICK_VALIDATE_MANIFEST_H_

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace ys::validate {

inline constexpr std::size_t kMaxPathBytes = 4096;
inline constexpr std::size_t kMaxPathComponentBytes = 255;

// OK when `path` is a relative path as described above; otherwise Invalid saying which rule it
// breaks (the message does not repeat the path; callers name it).
Status ValidateRelativePath(std::string_view path);

// `path` for messages: printable ASCII kept, every other byte (and '"', '\\') as \xNN.
std::string PrintablePath(std::string_view path);
// The same in double quotes, for messages that name an archive entry.
std::string QuotePath(std::string_view path);

// Streaming SHA-256 (OpenSSL EVP). Not copyable; one object per hash.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void Update(std::string_view bytes);
  // Lowercase hex of the digest. Call once: a second call, or any OpenSSL failure, gives "".
  std::string FinalHex();

 private:
  struct Ctx;
  std::unique_ptr<Ctx> ctx_;
};

std::string Sha256Hex(std::string_view bytes);
// SHA-256 of a file's content; also returns its size through `size` when non-null.
Result<std::string> Sha256OfFile(const std::string& path, std::uint64_t* size = nullptr);

struct ManifestEntry {
  std::string path;  // relative, see ValidateRelativePath
  std::uint64_t size = 0;
  std::string sha256;  // 64 lowercase hex digits

  bool operator==(const ManifestEntry&) const = default;
};

struct Manifest {
  static constexpr int kVersion = 1;
  std::vector<ManifestEntry> files;  // sorted by path, paths unique

  // nullptr when absent.
  const ManifestEntry* Find(std::string_view path) const;
};

// Canonical JSON text (see the top of this file). Sorts a copy of the entries first, so the
// output does not depend on the order they were added in.
std::string ManifestToJson(const Manifest& manifest);

// Strict reading: the fields above and no others, version 1, valid paths, sorted and unique,
// sizes as non-negative integers, hashes as 64 lowercase hex digits. `origin` names the text in
// error messages ("run/manifest.json").
Result<Manifest> ParseManifest(std::string_view json_text, const std::string& origin);

// Every regular file below `dir`, recursively, except the relative paths in `exclude`. A
// symbolic link, device file, socket or FIFO anywhere below `dir`, or a path that breaks the
// rules above, is an error naming it: a manifest never follows or hides links.
Result<Manifest> BuildManifest(const std::string& dir, const std::set<std::string>& exclude = {});

// One way in which a directory differs from its manifest.
struct ManifestDifference {
  enum class Kind {
    kMissing,       // listed, absent from the directory
    kExtra,         // in the directory, not listed
    kSizeMismatch,  // listed size differs (content not hashed)
    kHashMismatch,  // same size, different SHA-256
    kNotRegular,    // listed, but a directory, link or special file on disk
    kUnreadable,    // listed, could not be read
  };
  Kind kind;
  std::string path;    // relative to the checked directory
  std::string detail;  // expected and found values

  // "<prefix>run.json: content differs (expected sha256 ab12..., found cd34...)"
  std::string ToString(std::string_view prefix = "") const;
};

const char* DifferenceKindName(ManifestDifference::Kind kind);

// Compares `dir` with `manifest` and returns every difference, sorted by path; an empty vector
// means the directory holds exactly the listed files with the listed content. Paths in
// `exclude` are neither expected nor reported as extra. Anything that is not a regular file and
// not a directory is reported as extra (or kNotRegular when listed); links are not followed.
// An error only when `dir` itself cannot be listed.
Result<std::vector<ManifestDifference>> CheckDirectory(const Manifest& manifest,
                                                       const std::string& dir,
                                                       const std::set<std::string>& exclude = {});

}  // namespace ys::validate

#endif  // YARDSTICK_VALIDATE_MANIFEST_H_
