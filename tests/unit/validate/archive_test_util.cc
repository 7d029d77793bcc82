#include "validate/archive_test_util.h"

#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "validate/signature.h"

namespace ys::archive_testing {
namespace fs = std::filesystem;

ScopedTempDir::ScopedTempDir() {
  std::string pattern = (fs::temp_directory_path() / "ys-archive-test-XXXXXX").string();
  char* made = ::mkdtemp(pattern.data());
  if (made == nullptr) {
    ADD_FAILURE() << "mkdtemp failed for " << pattern;
    return;
  }
  path_ = made;
}

ScopedTempDir::~ScopedTempDir() {
  if (path_.empty()) return;
  std::error_code ec;
  // Tests may leave read-only directories behind; make them writable again first.
  for (auto it = fs::recursive_directory_iterator(path_, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_directory(ec) && !it->is_symlink(ec)) {
      fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
    }
  }
  fs::remove_all(path_, ec);
}

void WriteFile(const std::string& path, const std::string& content) {
  fs::path p(path);
  if (p.has_parent_path()) fs::create_directories(p.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
  ASSERT_TRUE(out.good()) << "cannot write " << path;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) names.push_back(e.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

KeyFiles MakeKeyPair(const std::string& dir, const std::string& stem) {
  KeyFiles files{dir + "/" + stem + ".key", dir + "/" + stem + ".pub"};
  auto key = validate::PrivateKey::Generate();
  EXPECT_TRUE(key.ok()) << key.status().ToString();
  if (!key.ok()) return files;
  Status w = key->WritePem(files.private_pem);
  EXPECT_TRUE(w.ok()) << w.ToString();
  auto pub = key->Public();
  EXPECT_TRUE(pub.ok()) << pub.status().ToString();
  if (!pub.ok()) return files;
  w = validate::WriteNewFile(files.public_pem, pub->PemText());
  EXPECT_TRUE(w.ok()) << w.ToString();
  return files;
}

namespace {
struct ReadFree {
  void operator()(archive* a) const { archive_read_free(a); }
};
struct WriteFree {
  void operator()(archive* a) const { archive_write_free(a); }
};
struct EntryFree {
  void operator()(archive_entry* e) const { archive_entry_free(e); }
};
}  // namespace

std::vector<TarEntry> ReadTar(const std::string& path) {
  std::vector<TarEntry> entries;
  std::unique_ptr<archive, ReadFree> a(archive_read_new());
  archive_read_support_filter_all(a.get());
  archive_read_support_format_tar(a.get());
  if (archive_read_open_filename(a.get(), path.c_str(), 1 << 16) != ARCHIVE_OK) {
    ADD_FAILURE() << path << ": " << archive_error_string(a.get());
    return entries;
  }
  archive_entry* e = nullptr;
  int rc;
  while ((rc = archive_read_next_header(a.get(), &e)) == ARCHIVE_OK) {
    TarEntry t;
    t.path = archive_entry_pathname(e);
    t.type = archive_entry_filetype(e);
    if (const char* s = archive_entry_symlink(e)) t.symlink = s;
    if (const char* h = archive_entry_hardlink(e)) t.hardlink = h;
    char buf[8192];
    la_ssize_t n;
    while ((n = archive_read_data(a.get(), buf, sizeof(buf))) > 0) t.content.append(buf, n);
    EXPECT_EQ(n, 0) << path << ": " << t.path;
    entries.push_back(std::move(t));
  }
  EXPECT_EQ(rc, ARCHIVE_EOF) << path << ": " << archive_error_string(a.get());
  return entries;
}

void WriteTarZst(const std::string& path, const std::vector<TarEntry>& entries) {
  std::unique_ptr<archive, WriteFree> a(archive_write_new());
  ASSERT_EQ(archive_write_set_format_pax_restricted(a.get()), ARCHIVE_OK);
  ASSERT_EQ(archive_write_add_filter_zstd(a.get()), ARCHIVE_OK);
  ASSERT_EQ(archive_write_open_filename(a.get(), path.c_str()), ARCHIVE_OK)
      << archive_error_string(a.get());
  for (const auto& t : entries) {
    std::unique_ptr<archive_entry, EntryFree> e(archive_entry_new());
    archive_entry_copy_pathname(e.get(), t.path.c_str());
    archive_entry_set_filetype(e.get(), t.type);
    archive_entry_set_perm(e.get(), t.type == AE_IFDIR ? 0755 : 0644);
    archive_entry_set_mtime(e.get(), 1700000000, 0);
    if (!t.symlink.empty()) archive_entry_copy_symlink(e.get(), t.symlink.c_str());
    if (!t.hardlink.empty()) archive_entry_copy_hardlink(e.get(), t.hardlink.c_str());
    bool has_data = t.type == AE_IFREG && t.hardlink.empty();
    archive_entry_set_size(e.get(), has_data ? static_cast<la_int64_t>(t.content.size()) : 0);
    ASSERT_EQ(archive_write_header(a.get(), e.get()), ARCHIVE_OK)
        << t.path << ": " << archive_error_string(a.get());
    if (has_data && !t.content.empty()) {
      ASSERT_EQ(archive_write_data(a.get(), t.content.data(), t.content.size()),
                static_cast<la_ssize_t>(t.content.size()));
    }
  }
  ASSERT_EQ(archive_write_close(a.get()), ARCHIVE_OK) << archive_error_string(a.get());
}

}  // namespace ys::archive_testing
