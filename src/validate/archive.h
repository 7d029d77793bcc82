// The results archive: a `.tar.zst` that anyone can check file by file and, when it is signed,
// trace to the key that signed it.
//
// Layout. A POSIX tar (pax restricted format; plain ustar headers unless a field needs pax)
// compressed with zstd, holding exactly one top-level directory `<name>/`:
//
//   <name>/                 directory entries for <name>/ and every directory below it
//   <name>/<path>...        the files, in path order, mode 0644 (directories 0755)
//   <name>/manifest.json    validate/manifest.h: size and SHA-256 of every file above
//   <name>/manifest.sig     only when signed: validate/signature.h SignatureFileText(), i.e.
//                           base64 of the 64-byte Ed25519 signature of manifest.json's exact
//                           bytes, then "\n"
//
// manifest.json does not list itself or manifest.sig. No links, devices or other special
// entries are ever written. Verifying by hand, without yardstick:
//   tar --zstd -xf run.tar.zst && cd <name>
//   python3 -c 'import json,hashlib; [print(f["sha256"]+"  "+f["path"]) for f in
//     json.load(open("manifest.json"))["files"]]' | sha256sum -c
//   base64 -d manifest.sig > /tmp/sig.bin
//   openssl pkeyutl -verify -pubin -inkey pub.pem -rawin -in manifest.json -sigfile /tmp/sig.bin
//
// Thread safety: the functions share no state; concurrent calls must use different paths.
#ifndef YARDSTICK_VALIDATE_ARCHIVE_H_
#define YARDSTICK_VALIDATE_ARCHIVE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "validate/manifest.h"

namespace ys::validate {

inline constexpr char kManifestFile[] = "manifest.json";
inline constexpr char kSignatureFile[] = "manifest.sig";

struct ArchiveInput {
  // The top-level directory: one path component ("2026-05-01T10:00Z-node17"), printable ASCII.
  std::string name;
  // Archive path (relative to <name>/, ValidateRelativePath rules) -> file to copy. The source
  // must be a regular file (links to one are followed); it must not change while it is copied.
  std::map<std::string, std::string> files_from_disk;
  // Archive path -> content.
  std::map<std::string, std::string> files_inline;
  // Modification time of every entry, seconds since the epoch; unset: the time of writing.
  // Set it to make the archive bytes reproducible (the manifest bytes always are).
  std::optional<std::int64_t> mtime;
};

// Writes `input` as an archive at `out_path` (conventionally "<name>.tar.zst"), signing the
// manifest with the Ed25519 private key in `sign_key_pem_path` unless that is empty.
//
// Refused before anything is written: an invalid name or path, a path given twice (in both
// maps) or used both as a file and as a directory, the reserved paths manifest.json and
// manifest.sig, an unreadable signing key, an `out_path` that already exists (never
// overwritten), a destination directory that does not exist.
//
// The archive is written to a temporary file (".<file name>.tmp-XXXXXX") in the destination
// directory, flushed to disk, and only then moved to `out_path` without replacing anything; on
// any error (a source file missing, unreadable or changed while copied, a full disk) the
// temporary file is removed and nothing exists under `out_path`.
Status WriteArchive(const ArchiveInput& input, const std::string& out_path,
                    const std::string& sign_key_pem_path);

// Bounds on what OpenArchive extracts, against archives built to exhaust the disk or inodes.
// Before anything is written, the archive is read once without extracting to find its
// manifest.json; the files then extracted may total at most `declared_multiple` times the sizes
// the manifest lists plus `declared_slack_bytes` (what a manifest does not list, it and the
// signature included, counts against that slack). Without a readable manifest (which fails the
// verification anyway) at most `max_bytes_without_manifest` are extracted, to report what is there.
struct ExtractLimits {
  std::uint64_t max_entries = 100'000;          // tar entries, directories included
  std::uint64_t max_total_bytes = 16ULL << 30;  // sum of file sizes (16 GiB), whatever is declared
  std::uint64_t max_manifest_bytes = 64ULL << 20;  // manifest.json is read into memory
  std::uint64_t declared_multiple = 2;
  std::uint64_t declared_slack_bytes = 1ULL << 20;
  std::uint64_t max_bytes_without_manifest = 16ULL << 20;
};

struct VerifiedArchive {
  std::string name;      // the top-level directory's name
  std::string root_dir;  // <dest_dir>/<name>: the extracted files
  Manifest manifest;     // empty when manifest.json is missing or malformed

  bool is_signed = false;          // manifest.sig is present
  bool signature_checked = false;  // a public key was given and the archive is signed
  bool signature_ok = false;       // checked and valid
  std::string key_fingerprint;     // of the public key given, "sha256:<hex>"; empty when none
  // "unsigned" | "signed, not checked (no public key given)" |
  // "signature valid (key sha256:...)" | "signature invalid" |
  // "signature not checked (no readable manifest)"
  std::string signature_summary;

  std::vector<ManifestDifference> differences;  // manifest vs extracted files, every one
  // Every reason not to trust the archive, one line each, naming the file: a missing or
  // malformed manifest, every manifest difference, a missing (when a key was given),
  // malformed or non-verifying signature. Empty means verified.
  std::vector<std::string> problems;

  bool verified() const { return problems.empty(); }
};

// Extracts the archive at `path` into `dest_dir`, which must not exist yet (its parent must),
// then checks the files against manifest.json and, when `pubkey_pem_path` is not empty, the
// signature against that Ed25519 public key.
//
// An error (and `dest_dir` removed again, nothing left behind) when the archive cannot be
// read, or is refused because an entry is unsafe; the message names the entry:
//   an absolute path, a '..' or '.' component, a path outside printable ASCII; a symbolic or
//   hard link (any target); a device, FIFO or other special file; a sparse file; an entry
//   outside the single top-level directory or a file at the top level; a duplicate entry;
//   more entries or more bytes than `limits` allow (bytes: see ExtractLimits).
// Also an error: `dest_dir` exists, or the public key file is missing, not PEM or not Ed25519.
//
// Otherwise the archive is extracted (files 0644, directories 0755, less the umask, whatever
// the archive says; owners and times are not restored)
// and the result lists what was found; integrity failures are in `problems`, not the Status.
Result<VerifiedArchive> OpenArchive(const std::string& path, const std::string& dest_dir,
                                    const std::string& pubkey_pem_path,
                                    const ExtractLimits& limits = {});

}  // namespace ys::validate

#endif  // YARDSTICK_VALIDATE_ARCHIVE_H_
