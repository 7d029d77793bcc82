// Reading and verifying the results archive (archive.h): safe extraction, then the manifest,
// then the signature.
//
// Extraction does not use archive_write_disk: every entry is checked here and written with
// open(O_CREAT | O_EXCL | O_NOFOLLOW) below a directory this call created, so neither a
// hostile path nor a link can reach outside it, and nothing the archive says about owners,
// modes or times is applied.
#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>

#include "validate/archive.h"
#include "validate/signature.h"

namespace ys::validate {
namespace fs = std::filesystem;

namespace {

struct ArchiveReadFree {
  void operator()(archive* a) const { archive_read_free(a); }
};
using ArchiveReader = std::unique_ptr<archive, ArchiveReadFree>;

std::string ErrnoText(int err) { return std::strerror(err); }

// Removes the destination directory on destruction unless kept: a refused archive leaves
// nothing behind. Only ever applied to a directory this call created.
class DestGuard {
 public:
  explicit DestGuard(std::string dir) : dir_(std::move(dir)) {}
  ~DestGuard() {
    if (!keep_) {
      std::error_code ec;
      fs::remove_all(dir_, ec);  // does not follow links (and none are created)
    }
  }
  DestGuard(const DestGuard&) = delete;
  DestGuard& operator=(const DestGuard&) = delete;
  void Keep() { keep_ = true; }

 private:
  std::string dir_;
  bool keep_ = false;
};

const char* EntryTypeName(unsigned type) {
  switch (type) {
    case AE_IFLNK:
      return "a symbolic link";
    case AE_IFCHR:
      return "a character device";
    case AE_IFBLK:
      return "a block device";
    case AE_IFIFO:
      return "a FIFO";
    case AE_IFSOCK:
      return "a socket";
    default:
      return "an entry of unknown type";
  }
}

// A reader of the zstd-compressed tar at `path` in `*a`; ARCHIVE_OK or libarchive's error code
// (the reader is kept so that the caller can read archive_error_string).
int OpenReader(const std::string& path, ArchiveReader* a) {
  a->reset(archive_read_new());
  if (!*a) return ARCHIVE_FATAL;
  archive_read_support_filter_zstd(a->get());
  archive_read_support_format_tar(a->get());
  return archive_read_open_filename(a->get(), path.c_str(), 1 << 16);
}

// The bytes the archive's own manifest declares (the sum of its files' sizes, plus the manifest
// itself), found by reading the archive once without writing anything; nullopt when there is no
// readable manifest. Any problem is left for the extraction to report in its own words.
std::optional<std::uint64_t> DeclaredContentBytes(const std::string& path,
                                                  const ExtractLimits& limits) {
  ArchiveReader a;
  if (OpenReader(path, &a) != ARCHIVE_OK) return std::nullopt;
  std::string top;
  std::uint64_t count = 0;
  archive_entry* entry = nullptr;
  while (archive_read_next_header(a.get(), &entry) == ARCHIVE_OK) {
    if (++count > limits.max_entries) return std::nullopt;
    const char* raw = archive_entry_pathname(entry);
    std::string name = raw != nullptr ? raw : "";
    std::string first = name.substr(0, name.find('/'));
    if (top.empty()) top = first;
    la_int64_t size = archive_entry_size(entry);
    if (name != top + "/" + kManifestFile || archive_entry_filetype(entry) != AE_IFREG ||
        size < 0 || static_cast<std::uint64_t>(size) > limits.max_manifest_bytes) {
      if (archive_read_data_skip(a.get()) != ARCHIVE_OK) return std::nullopt;
      continue;
    }
    std::string text(static_cast<std::size_t>(size), '\0');
    for (std::size_t got = 0; got < text.size();) {
      la_ssize_t n = archive_read_data(a.get(), text.data() + got, text.size() - got);
      if (n <= 0) return std::nullopt;
      got += static_cast<std::size_t>(n);
    }
    auto m = ParseManifest(text, name);
    if (!m.ok()) return std::nullopt;
    std::uint64_t total = text.size();
    for (const auto& f : m->files) total += std::min<std::uint64_t>(f.size, limits.max_total_bytes);
    return total;
  }
  return std::nullopt;
}

class Extractor {
 public:
  Extractor(const std::string& archive_path, const std::string& dest, const ExtractLimits& limits)
      : path_(archive_path), dest_(dest), limits_(limits) {}

  Status Run() {
    auto declared = DeclaredContentBytes(path_, limits_);
    cap_ = declared ? std::min(limits_.max_total_bytes,
                               *declared * limits_.declared_multiple + limits_.declared_slack_bytes)
                    : std::min(limits_.max_total_bytes, limits_.max_bytes_without_manifest);
    cap_reason_ = declared ? "bytes, " + std::to_string(limits_.declared_multiple) + " times the " +
                                 std::to_string(*declared) + " its manifest declares plus " +
                                 std::to_string(limits_.declared_slack_bytes) + " (limit)"
                           : "bytes (limit for an archive without a readable manifest)";
    if (declared && cap_ == limits_.max_total_bytes) cap_reason_ = "bytes (limit)";
    if (OpenReader(path_, &a_) != ARCHIVE_OK) {
      if (!a_) return Status::Internal(path_ + ": archive_read_new failed");
      return LibError("cannot open as a zstd-compressed tar");
    }
    while (true) {
      archive_entry* entry = nullptr;
      int rc = archive_read_next_header(a_.get(), &entry);
      if (rc == ARCHIVE_EOF) break;
      if (rc != ARCHIVE_OK) {
        return LibError("cannot read entry " + std::to_string(count_ + 1) + " header");
      }
      YS_RETURN_IF_ERROR(HandleEntry(entry));
    }
    if (top_.empty()) {
      return Status::Invalid(path_ + ": empty archive; expected one top-level directory");
    }
    return Status::Ok();
  }

  const std::string& top() const { return top_; }

 private:
  Status HandleEntry(archive_entry* entry) {
    ++count_;
    if (count_ > limits_.max_entries) {
      return Status::Invalid(path_ + ": more than " + std::to_string(limits_.max_entries) +
                             " entries; refusing to extract (limit)");
    }
    const char* raw_name = archive_entry_pathname(entry);
    if (raw_name == nullptr || *raw_name == '\0') {
      return Status::Invalid(path_ + ": entry " + std::to_string(count_) + " has no path");
    }
    std::string name = raw_name;
    auto refuse = [&](const std::string& why) {
      return Status::Invalid(path_ + ": entry " + QuotePath(name) + ": " + why +
                             "; refusing to extract");
    };
    unsigned type = archive_entry_filetype(entry);
    std::string rel = name;
    if (type == AE_IFDIR && rel.size() > 1 && rel.back() == '/') rel.pop_back();
    if (rel.front() == '/') return refuse("absolute path");
    Status valid = ValidateRelativePath(rel);
    if (!valid.ok()) return refuse(valid.message());
    // Links first: a hard link's type is often "regular file".
    if (const char* target = archive_entry_hardlink(entry)) {
      return refuse(std::string("hard link to ") + QuotePath(target) +
                    "; archives hold regular files and directories only");
    }
    if (type == AE_IFLNK || archive_entry_symlink(entry) != nullptr) {
      const char* target = archive_entry_symlink(entry);
      return refuse(std::string("symbolic link to ") + QuotePath(target ? target : "") +
                    "; archives hold regular files and directories only");
    }
    if (type != AE_IFREG && type != AE_IFDIR) {
      return refuse(std::string(EntryTypeName(type)) +
                    "; archives hold regular files and directories only");
    }
    if (archive_entry_sparse_count(entry) > 0) return refuse("a sparse file");

    std::size_t slash = rel.find('/');
    std::string first = rel.substr(0, slash);
    if (top_.empty()) top_ = first;
    if (first != top_) {
      return refuse("outside the single top-level directory " + QuotePath(top_));
    }
    if (type == AE_IFREG && slash == std::string::npos) {
      return refuse("a file at the top level; expected everything inside " + QuotePath(top_) + "/");
    }

    fs::path target = fs::path(dest_) / rel;
    std::error_code ec;
    if (type == AE_IFDIR) {
      fs::create_directories(target, ec);
      if (ec) return refuse("cannot create directory (" + ec.message() + ")");
      return Status::Ok();
    }
    if (archive_entry_size_is_set(entry) == 0 || archive_entry_size(entry) < 0) {
      return refuse("no size in the header");
    }
    auto size = static_cast<std::uint64_t>(archive_entry_size(entry));
    if (size > cap_ || total_ + size > cap_) {
      return refuse("would bring the extracted size over " + std::to_string(cap_) + " " +
                    cap_reason_);
    }
    fs::create_directories(target.parent_path(), ec);
    if (ec) return refuse("cannot create its directory (" + ec.message() + ")");
    return WriteFile(target, size, refuse);
  }

  template <typename Refuse>
  Status WriteFile(const fs::path& target, std::uint64_t size, const Refuse& refuse) {
    int fd = ::open(target.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
      int err = errno;
      if (err == EEXIST) return refuse("duplicate entry (the path was already extracted)");
      return refuse("cannot create " + target.string() + " (" + ErrnoText(err) + ")");
    }
    struct Closer {
      int fd;
      ~Closer() { ::close(fd); }
    } closer{fd};
    std::string buf(1 << 16, '\0');
    std::uint64_t done = 0;
    while (true) {
      la_ssize_t n = archive_read_data(a_.get(), buf.data(), buf.size());
      if (n == 0) break;
      if (n < 0) return LibError("entry " + QuotePath(target.string()) + ": cannot read data");
      done += static_cast<std::uint64_t>(n);
      if (done > size) return refuse("more data than its header's size");
      for (la_ssize_t off = 0; off < n;) {
        ssize_t w = ::write(fd, buf.data() + off, static_cast<std::size_t>(n - off));
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) return Status::Io(target.string() + ": write failed (" + ErrnoText(errno) + ")");
        off += w;
      }
    }
    if (done != size) return refuse("truncated data");
    total_ += size;
    return Status::Ok();
  }

  Status LibError(const std::string& what) {
    const char* msg = archive_error_string(a_.get());
    return Status::Invalid(path_ + ": " + what + " (libarchive: " + (msg ? msg : "no detail") +
                           ")");
  }

  std::string path_, dest_;
  ExtractLimits limits_;
  ArchiveReader a_;
  std::uint64_t count_ = 0;
  std::uint64_t total_ = 0;
  std::uint64_t cap_ = 0;  // bytes this archive may extract (ExtractLimits)
  std::string cap_reason_;
  std::string top_;
};

// The content of a regular file known to exist, up to `max` bytes.
Result<std::string> ReadBounded(const std::string& path, std::uint64_t max) {
  std::error_code ec;
  std::uint64_t size = fs::file_size(path, ec);
  if (ec) return Status::Io(path + ": cannot stat (" + ec.message() + ")");
  if (size > max) {
    return Status::Invalid(path + ": " + std::to_string(size) + " bytes; more than the " +
                           std::to_string(max) + " allowed");
  }
  std::string text(size, '\0');
  struct FileCloser {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  std::unique_ptr<std::FILE, FileCloser> f(std::fopen(path.c_str(), "rbe"));
  if (!f) return Status::Io(path + ": cannot open (" + ErrnoText(errno) + ")");
  if (std::fread(text.data(), 1, text.size(), f.get()) != text.size()) {
    return Status::Io(path + ": short read");
  }
  return text;
}

bool IsRegular(const fs::path& p) {
  std::error_code ec;
  return fs::symlink_status(p, ec).type() == fs::file_type::regular;
}

// The signature's verdict: absent, present but not checked, valid or not against the manifest.
void JudgeSignature(const std::optional<PublicKey>& key, const fs::path& sig_path,
                    const std::string& shown_sig, const std::string* manifest_text,
                    VerifiedArchive& v) {
  v.is_signed = IsRegular(sig_path);
  if (key) v.key_fingerprint = key->Fingerprint();
  if (!v.is_signed) {
    v.signature_summary = "unsigned";
    if (key) {
      v.problems.push_back(shown_sig + ": missing; the archive is unsigned but public key " +
                           v.key_fingerprint + " was given");
    }
  } else if (!key) {
    v.signature_summary = "signed, not checked (no public key given)";
  } else {
    v.signature_checked = true;
    v.signature_summary = "signature invalid";
    auto sig_text = ReadBounded(sig_path.string(), 4096);
    if (!sig_text.ok()) {
      v.problems.push_back(shown_sig + ": " + sig_text.status().message());
    } else if (auto sig = ParseSignatureFile(*sig_text, shown_sig); !sig.ok()) {
      v.problems.push_back(sig.status().message());
    } else if (manifest_text == nullptr) {
      v.signature_summary = "signature not checked (no readable manifest)";
      v.problems.push_back(shown_sig + ": not checked, there is no readable manifest to check");
    } else if (Status ok = key->Verify(*manifest_text, *sig); !ok.ok()) {
      v.problems.push_back(shown_sig + ": " + ok.message());
    } else {
      v.signature_ok = true;
      v.signature_summary = "signature valid (key " + v.key_fingerprint + ")";
    }
  }
}

}  // namespace

Result<VerifiedArchive> OpenArchive(const std::string& path, const std::string& dest_dir,
                                    const std::string& pubkey_pem_path,
                                    const ExtractLimits& limits) {
  // Everything that can be refused without touching the disk comes first.
  std::optional<PublicKey> key;
  if (!pubkey_pem_path.empty()) {
    auto loaded = PublicKey::LoadPem(pubkey_pem_path);
    if (!loaded.ok()) return loaded.status();
    key.emplace(std::move(loaded).value());
  }
  std::error_code ec;
  if (!IsRegular(path)) {
    if (fs::symlink_status(path, ec).type() == fs::file_type::not_found) {
      return Status::NotFound(path + ": no such archive");
    }
    if (!fs::is_regular_file(path, ec)) return Status::Invalid(path + ": not a regular file");
  }
  if (::mkdir(dest_dir.c_str(), 0755) != 0) {
    int err = errno;
    if (err == EEXIST) {
      return Status::Invalid(dest_dir +
                             ": already exists; expected a fresh directory to "
                             "extract into");
    }
    return Status::Io(dest_dir + ": cannot create (" + ErrnoText(err) + ")");
  }
  DestGuard guard(dest_dir);
  Extractor extractor(path, dest_dir, limits);
  YS_RETURN_IF_ERROR(extractor.Run());

  VerifiedArchive v;
  v.name = extractor.top();
  v.root_dir = (fs::path(dest_dir) / v.name).string();
  fs::path manifest_path = fs::path(v.root_dir) / kManifestFile;
  fs::path sig_path = fs::path(v.root_dir) / kSignatureFile;
  const std::string shown_manifest = v.name + "/" + kManifestFile;
  const std::string shown_sig = v.name + "/" + kSignatureFile;

  std::string manifest_text;
  bool have_manifest = false;
  if (!IsRegular(manifest_path)) {
    v.problems.push_back(shown_manifest + ": missing; the archive cannot be verified");
  } else if (auto text = ReadBounded(manifest_path.string(), limits.max_manifest_bytes);
             !text.ok()) {
    v.problems.push_back(shown_manifest + ": " + text.status().message());
  } else if (auto m = ParseManifest(*text, shown_manifest); !m.ok()) {
    v.problems.push_back(m.status().message());
  } else {
    manifest_text = std::move(text).value();
    v.manifest = std::move(m).value();
    have_manifest = true;
    auto diffs = CheckDirectory(v.manifest, v.root_dir, {kManifestFile, kSignatureFile});
    if (!diffs.ok()) return diffs.status();
    v.differences = std::move(diffs).value();
    for (const auto& d : v.differences) v.problems.push_back(d.ToString(v.name + "/"));
  }

  JudgeSignature(key, sig_path, shown_sig, have_manifest ? &manifest_text : nullptr, v);
  guard.Keep();
  return v;
}

}  // namespace ys::validate
