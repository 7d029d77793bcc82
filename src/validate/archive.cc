// Writing the results archive (archive.h). Reading and verifying is in archive_open.cc.
#include "validate/archive.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <stdio.h>  // renameat2
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <memory>
#include <set>

#include "validate/signature.h"

namespace ys::validate {
namespace fs = std::filesystem;

namespace {

struct ArchiveWriteFree {
  void operator()(archive* a) const { archive_write_free(a); }
};
using ArchiveWriter = std::unique_ptr<archive, ArchiveWriteFree>;
struct EntryFree {
  void operator()(archive_entry* e) const { archive_entry_free(e); }
};
using Entry = std::unique_ptr<archive_entry, EntryFree>;

std::string Errno(int err) { return std::strerror(err); }

class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() { Close(); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  void Reset(int fd) {
    Close();
    fd_ = fd;
  }
  int Close() {
    int rc = fd_ >= 0 ? ::close(fd_) : 0;
    fd_ = -1;
    return rc;
  }

 private:
  int fd_;
};

// The temporary file the archive is written to: removed on destruction unless published.
class TempArchiveFile {
 public:
  TempArchiveFile() = default;
  ~TempArchiveFile() {
    fd_.Close();
    if (!path_.empty() && !published_) ::unlink(path_.c_str());
  }
  TempArchiveFile(const TempArchiveFile&) = delete;
  TempArchiveFile& operator=(const TempArchiveFile&) = delete;

  Status Create(const std::string& final_path) {
    fs::path p(final_path);
    fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
    std::string pattern = (dir / ("." + p.filename().string() + ".tmp-XXXXXX")).string();
    int fd = ::mkostemp(pattern.data(), O_CLOEXEC);
    if (fd < 0) {
      return Status::Io(pattern + ": cannot create temporary archive (" + Errno(errno) + ")");
    }
    path_ = pattern;
    fd_.Reset(fd);
    return Status::Ok();
  }

  int fd() const { return fd_.get(); }
  const std::string& path() const { return path_; }

  // Flushes the data, then moves the file to `final_path` without replacing an existing file.
  Status Publish(const std::string& final_path) {
    if (::fchmod(fd_.get(), 0644) != 0 || ::fsync(fd_.get()) != 0) {
      return Status::Io(path_ + ": cannot flush temporary archive (" + Errno(errno) + ")");
    }
    if (fd_.Close() != 0) return Status::Io(path_ + ": close failed (" + Errno(errno) + ")");
    if (::renameat2(AT_FDCWD, path_.c_str(), AT_FDCWD, final_path.c_str(), RENAME_NOREPLACE) != 0) {
      int err = errno;
      if (err == EEXIST) {
        return Status::Invalid(final_path + ": already exists; refusing to overwrite");
      }
      if (err != EINVAL && err != ENOSYS) {
        return Status::Io(final_path + ": cannot move archive into place (" + Errno(err) + ")");
      }
      // File systems without RENAME_NOREPLACE: link() also fails rather than replace.
      if (::link(path_.c_str(), final_path.c_str()) != 0) {
        err = errno;
        if (err == EEXIST) {
          return Status::Invalid(final_path + ": already exists; refusing to overwrite");
        }
        return Status::Io(final_path + ": cannot move archive into place (" + Errno(err) + ")");
      }
      ::unlink(path_.c_str());
    }
    published_ = true;
    // Make the new directory entry durable too; failure here loses nothing already written.
    fs::path dir =
        fs::path(final_path).has_parent_path() ? fs::path(final_path).parent_path() : fs::path(".");
    Fd dfd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (dfd.get() >= 0) ::fsync(dfd.get());
    return Status::Ok();
  }

 private:
  std::string path_;
  Fd fd_;
  bool published_ = false;
};

struct Source {
  const std::string* disk_path = nullptr;  // one of these two
  const std::string* content = nullptr;
};

Status CheckInput(const ArchiveInput& in, std::map<std::string, Source>* files) {
  Status name_ok = ValidateRelativePath(in.name);
  if (!name_ok.ok() || in.name.find('/') != std::string::npos) {
    return Status::Invalid("archive name " + QuotePath(in.name) +
                           ": expected one printable-ASCII path component" +
                           (name_ok.ok() ? "" : " (" + name_ok.message() + ")"));
  }
  auto add = [&](const std::string& path, Source src) -> Status {
    Status ok = ValidateRelativePath(path);
    if (!ok.ok()) return Status::Invalid("archive path " + QuotePath(path) + ": " + ok.message());
    if (path == kManifestFile || path == kSignatureFile) {
      return Status::Invalid("archive path " + QuotePath(path) +
                             ": reserved for the archive's own manifest and signature");
    }
    if (!files->emplace(path, src).second) {
      return Status::Invalid("archive path " + QuotePath(path) +
                             ": given both as a file from disk and as inline content");
    }
    return Status::Ok();
  };
  for (const auto& [path, source] : in.files_from_disk) {
    YS_RETURN_IF_ERROR(add(path, Source{&source, nullptr}));
  }
  for (const auto& [path, content] : in.files_inline) {
    YS_RETURN_IF_ERROR(add(path, Source{nullptr, &content}));
  }
  for (const auto& [path, src] : *files) {
    for (std::size_t slash = path.find('/'); slash != std::string::npos;
         slash = path.find('/', slash + 1)) {
      if (files->count(path.substr(0, slash)) != 0) {
        return Status::Invalid("archive path " + QuotePath(path.substr(0, slash)) +
                               ": used both as a file and as the directory of " + QuotePath(path));
      }
    }
  }
  return Status::Ok();
}

class TarWriter {
 public:
  TarWriter(const std::string& shown_path, std::int64_t mtime)
      : shown_(shown_path), mtime_(mtime) {}

  Status Open(int fd) {
    a_.reset(archive_write_new());
    if (!a_) return Status::Internal(shown_ + ": archive_write_new failed");
    if (archive_write_set_format_pax_restricted(a_.get()) != ARCHIVE_OK ||
        archive_write_add_filter_zstd(a_.get()) != ARCHIVE_OK ||
        archive_write_open_fd(a_.get(), fd) != ARCHIVE_OK) {
      return Error("cannot start a zstd-compressed tar");
    }
    return Status::Ok();
  }

  Status Directory(const std::string& path) {
    Entry e = NewEntry(path + "/", AE_IFDIR, 0755, 0);
    return Header(e.get(), path);
  }

  Status InlineFile(const std::string& path, std::string_view content, Sha256* hash) {
    Entry e = NewEntry(path, AE_IFREG, 0644, static_cast<std::int64_t>(content.size()));
    YS_RETURN_IF_ERROR(Header(e.get(), path));
    if (hash != nullptr) hash->Update(content);
    return Data(path, content);
  }

  // Copies an open regular file of `size` bytes, hashing what it copies.
  Status DiskFile(const std::string& path, const std::string& source, int fd, std::uint64_t size,
                  Sha256* hash) {
    Entry e = NewEntry(path, AE_IFREG, 0644, static_cast<std::int64_t>(size));
    YS_RETURN_IF_ERROR(Header(e.get(), path));
    std::string buf(1 << 16, '\0');
    std::uint64_t done = 0;
    while (true) {
      ssize_t n = ::read(fd, buf.data(), buf.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return Status::Io(source + ": read failed (" + Errno(errno) + ")");
      if (n == 0) break;
      if (done + static_cast<std::uint64_t>(n) > size) {
        return Status::Io(source + ": grew while being archived (expected " + std::to_string(size) +
                          " bytes)");
      }
      std::string_view chunk(buf.data(), static_cast<std::size_t>(n));
      hash->Update(chunk);
      YS_RETURN_IF_ERROR(Data(path, chunk));
      done += static_cast<std::uint64_t>(n);
    }
    if (done != size) {
      return Status::Io(source + ": shrank while being archived (expected " + std::to_string(size) +
                        " bytes, read " + std::to_string(done) + ")");
    }
    return Status::Ok();
  }

  // Flushes the compressor and the last tar blocks.
  Status Close() {
    if (archive_write_close(a_.get()) != ARCHIVE_OK) return Error("cannot finish the archive");
    return Status::Ok();
  }

 private:
  Entry NewEntry(const std::string& path, unsigned type, unsigned perm, std::int64_t size) {
    Entry e(archive_entry_new());
    archive_entry_copy_pathname(e.get(), path.c_str());
    archive_entry_set_filetype(e.get(), type);
    archive_entry_set_perm(e.get(), perm);
    archive_entry_set_size(e.get(), size);
    archive_entry_set_mtime(e.get(), mtime_, 0);
    archive_entry_set_uid(e.get(), 0);
    archive_entry_set_gid(e.get(), 0);
    return e;
  }

  Status Header(archive_entry* e, const std::string& path) {
    if (archive_write_header(a_.get(), e) != ARCHIVE_OK) return Error("entry " + QuotePath(path));
    return Status::Ok();
  }

  Status Data(const std::string& path, std::string_view bytes) {
    if (bytes.empty()) return Status::Ok();
    la_ssize_t n = archive_write_data(a_.get(), bytes.data(), bytes.size());
    if (n < 0 || static_cast<std::size_t>(n) != bytes.size()) {
      return Error("entry " + QuotePath(path) + ": writing data");
    }
    return Status::Ok();
  }

  Status Error(const std::string& what) {
    const char* msg = archive_error_string(a_.get());
    return Status::Io(shown_ + ": " + what + " (libarchive: " + (msg ? msg : "no detail") + ")");
  }

  std::string shown_;
  std::int64_t mtime_;
  ArchiveWriter a_;
};

}  // namespace

Status WriteArchive(const ArchiveInput& input, const std::string& out_path,
                    const std::string& sign_key_pem_path) {
  std::map<std::string, Source> files;
  YS_RETURN_IF_ERROR(CheckInput(input, &files));
  std::error_code ec;
  if (fs::symlink_status(out_path, ec).type() != fs::file_type::not_found) {
    return Status::Invalid(out_path + ": already exists; refusing to overwrite");
  }
  fs::path out_dir =
      fs::path(out_path).has_parent_path() ? fs::path(out_path).parent_path() : fs::path(".");
  if (!fs::is_directory(out_dir, ec)) {
    return Status::NotFound(out_path + ": destination directory " + out_dir.string() +
                            " does not exist");
  }
  std::optional<PrivateKey> key;
  if (!sign_key_pem_path.empty()) {
    auto loaded = PrivateKey::LoadPem(sign_key_pem_path);
    if (!loaded.ok()) return loaded.status();
    key.emplace(std::move(loaded).value());
  }

  TempArchiveFile tmp;
  YS_RETURN_IF_ERROR(tmp.Create(out_path));
  TarWriter tar(out_path, input.mtime.value_or(static_cast<std::int64_t>(std::time(nullptr))));
  YS_RETURN_IF_ERROR(tar.Open(tmp.fd()));

  const std::string& root = input.name;
  YS_RETURN_IF_ERROR(tar.Directory(root));
  std::set<std::string> dirs_written;
  Manifest manifest;
  for (const auto& [path, src] : files) {
    // Directory entries first, in path order, so that plain `tar -x` restores their modes.
    for (std::size_t slash = path.find('/'); slash != std::string::npos;
         slash = path.find('/', slash + 1)) {
      std::string dir = path.substr(0, slash);
      if (dirs_written.insert(dir).second) YS_RETURN_IF_ERROR(tar.Directory(root + "/" + dir));
    }
    Sha256 hash;
    ManifestEntry entry{path, 0, ""};
    if (src.content != nullptr) {
      entry.size = src.content->size();
      YS_RETURN_IF_ERROR(tar.InlineFile(root + "/" + path, *src.content, &hash));
    } else {
      const std::string& source = *src.disk_path;
      // O_NONBLOCK: a FIFO given as a source is refused below instead of blocking here.
      Fd fd(::open(source.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
      if (fd.get() < 0) {
        int err = errno;
        std::string what = "source of " + QuotePath(path);
        if (err == ENOENT) return Status::NotFound(source + ": " + what + " does not exist");
        return Status::Io(source + ": cannot open " + what + " (" + Errno(err) + ")");
      }
      struct stat st {};
      if (::fstat(fd.get(), &st) != 0) {
        return Status::Io(source + ": cannot stat (" + Errno(errno) + ")");
      }
      if (!S_ISREG(st.st_mode)) {
        return Status::Invalid(source + ": source of " + QuotePath(path) +
                               " is not a regular file");
      }
      entry.size = static_cast<std::uint64_t>(st.st_size);
      YS_RETURN_IF_ERROR(tar.DiskFile(root + "/" + path, source, fd.get(), entry.size, &hash));
    }
    entry.sha256 = hash.FinalHex();
    if (entry.sha256.empty()) return Status::Internal(path + ": OpenSSL SHA-256 failed");
    manifest.files.push_back(std::move(entry));
  }

  std::string manifest_json = ManifestToJson(manifest);
  YS_RETURN_IF_ERROR(tar.InlineFile(root + "/" + kManifestFile, manifest_json, nullptr));
  if (key) {
    auto sig = key->Sign(manifest_json);
    if (!sig.ok()) return Status(sig.status().code(), out_path + ": " + sig.status().message());
    YS_RETURN_IF_ERROR(
        tar.InlineFile(root + "/" + kSignatureFile, SignatureFileText(*sig), nullptr));
  }
  YS_RETURN_IF_ERROR(tar.Close());
  return tmp.Publish(out_path);
}

}  // namespace ys::validate
