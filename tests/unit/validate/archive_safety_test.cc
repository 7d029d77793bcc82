// What archives are refused, and what is left on disk when they are: hostile entries, size and
// count limits, destinations that exist, bad input to WriteArchive, and the
// write-to-a-temporary-then-rename contract.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "validate/archive.h"
#include "validate/archive_test_util.h"

namespace ys::validate {
// A namespace of the file's own: its file-local names stay its own in a unity batch.
namespace archive_safety_test {
namespace {

namespace fs = std::filesystem;
using archive_testing::ListDir;
using archive_testing::MakeKeyPair;
using archive_testing::ReadFile;
using archive_testing::ScopedTempDir;
using archive_testing::TarEntry;
using archive_testing::WriteFile;
using archive_testing::WriteTarZst;

constexpr unsigned kReg = 0100000;   // AE_IFREG
constexpr unsigned kDir = 0040000;   // AE_IFDIR
constexpr unsigned kLink = 0120000;  // AE_IFLNK
constexpr unsigned kChr = 0020000;   // AE_IFCHR
constexpr unsigned kBlk = 0060000;   // AE_IFBLK
constexpr unsigned kFifo = 0010000;  // AE_IFIFO

TEST(ArchiveSafetyTest, HostileEntriesAreRefusedNamingTheEntry) {
  struct Case {
    std::vector<TarEntry> hostile;  // appended after "run/" and "run/ok.txt"
    std::string want;               // in the error message
  };
  const Case cases[] = {
      {{{"../evil", kReg, "x"}}, "entry \"../evil\": '..' component"},
      {{{"run/../../evil", kReg, "x"}}, "entry \"run/../../evil\": '..' component"},
      {{{"/abs/evil", kReg, "x"}}, "entry \"/abs/evil\": absolute path"},
      {{{"/", kDir}}, "entry \"/\": absolute path"},
      {{{"./run/x", kReg, "x"}}, "entry \"./run/x\": '.' component"},
      {{{"run//x", kReg, "x"}}, "entry \"run//x\": empty path component"},
      {{{"run/a\x01z", kReg, "x"}}, "entry \"run/a\\x01z\": character outside printable ASCII"},
      {{{"run/passwd", kLink, "", "/etc/passwd"}, {"run/passwd", kReg, "root::0:0::/:/bin/sh\n"}},
       "entry \"run/passwd\": symbolic link to \"/etc/passwd\""},
      {{{"run/up", kLink, "", ".."}}, "entry \"run/up\": symbolic link to \"..\""},
      {{{"run/hard", kReg, "", "", "run/ok.txt"}},
       "entry \"run/hard\": hard link to \"run/ok.txt\""},
      {{{"run/shadow", kReg, "", "", "/etc/shadow"}}, "entry \"run/shadow\": hard link to"},
      {{{"run/null", kChr}}, "entry \"run/null\": a character device"},
      {{{"run/sda", kBlk}}, "entry \"run/sda\": a block device"},
      {{{"run/pipe", kFifo}}, "entry \"run/pipe\": a FIFO"},
      {{{"other/x", kReg, "x"}},
       "entry \"other/x\": outside the single top-level directory \"run\""},
      {{{"evil.txt", kReg, "x"}}, "entry \"evil.txt\": outside the single top-level directory"},
      {{{"run/ok.txt", kReg, "second copy"}}, "entry \"run/ok.txt\": duplicate entry"},
      {{{"run/ok.txt", kDir}}, "entry \"run/ok.txt/\": cannot create directory"},
      {{{"run/ok.txt/below", kReg, "x"}},
       "entry \"run/ok.txt/below\": cannot create its directory"},
  };
  for (const auto& c : cases) {
    ScopedTempDir tmp;
    std::vector<TarEntry> entries = {{"run/", kDir}, {"run/ok.txt", kReg, "fine"}};
    entries.insert(entries.end(), c.hostile.begin(), c.hostile.end());
    const std::string archive = tmp.Sub("hostile.tar.zst");
    WriteTarZst(archive, entries);
    fs::create_directories(tmp.Sub("work"));
    const std::string dest = tmp.Sub("work/dest");
    auto v = OpenArchive(archive, dest, "");
    ASSERT_FALSE(v.ok()) << c.want;
    EXPECT_EQ(v.status().code(), StatusCode::kInvalidInput) << v.status().ToString();
    EXPECT_NE(v.status().message().find(archive + ": " + c.want), std::string::npos)
        << "got:  " << v.status().message() << "\nwant: " << c.want;
    EXPECT_NE(v.status().message().find("refusing to extract"), std::string::npos);
    // Nothing left behind, inside or outside the destination.
    EXPECT_FALSE(fs::exists(dest)) << c.want;
    EXPECT_EQ(ListDir(tmp.Sub("work")), std::vector<std::string>{}) << c.want;
    EXPECT_EQ(ListDir(tmp.path()), (std::vector<std::string>{"hostile.tar.zst", "work"}));
  }
}

TEST(ArchiveSafetyTest, AFileAloneAtTheTopLevelIsRefused) {
  ScopedTempDir tmp;
  WriteTarZst(tmp.Sub("a.tar.zst"), {{"loose.txt", kReg, "x"}});
  auto v = OpenArchive(tmp.Sub("a.tar.zst"), tmp.Sub("dest"), "");
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.status().message().find("entry \"loose.txt\": a file at the top level"),
            std::string::npos)
      << v.status().message();

  WriteTarZst(tmp.Sub("empty.tar.zst"), {});
  auto e = OpenArchive(tmp.Sub("empty.tar.zst"), tmp.Sub("dest"), "");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("empty archive"), std::string::npos);
  EXPECT_FALSE(fs::exists(tmp.Sub("dest")));
}

TEST(ArchiveSafetyTest, EntryCountAndTotalSizeAreBounded) {
  ScopedTempDir tmp;
  ArchiveInput in;
  in.name = "run";
  for (int i = 0; i < 10; ++i) in.files_inline["f" + std::to_string(i)] = std::string(1000, 'a');
  // A "bomb": 8 MiB of zeros, a few hundred bytes compressed.
  in.files_inline["zeros"] = std::string(8 << 20, '\0');
  ASSERT_TRUE(WriteArchive(in, tmp.Sub("a.tar.zst"), "").ok());
  EXPECT_LT(fs::file_size(tmp.Sub("a.tar.zst")), 64u * 1024);

  ExtractLimits few_entries;
  few_entries.max_entries = 5;
  auto v = OpenArchive(tmp.Sub("a.tar.zst"), tmp.Sub("d1"), "", few_entries);
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.status().message().find("more than 5 entries"), std::string::npos)
      << v.status().message();
  EXPECT_FALSE(fs::exists(tmp.Sub("d1")));

  ExtractLimits few_bytes;
  few_bytes.max_total_bytes = 1 << 20;
  auto b = OpenArchive(tmp.Sub("a.tar.zst"), tmp.Sub("d2"), "", few_bytes);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("entry \"run/zeros\": would bring the extracted size over "
                                      "1048576 bytes"),
            std::string::npos)
      << b.status().message();
  EXPECT_FALSE(fs::exists(tmp.Sub("d2")));

  auto ok = OpenArchive(tmp.Sub("a.tar.zst"), tmp.Sub("d3"), "");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_TRUE(ok->verified());
}

// A small archive whose files are far bigger than its manifest says: refused before the excess
// reaches the disk, at a small multiple of what the manifest declares.
TEST(ArchiveSafetyTest, ExtractedSizeIsCappedByTheManifestsDeclaredContent) {
  ScopedTempDir tmp;
  Manifest m;
  m.files.push_back({"ok.txt", 4, Sha256Hex("fine")});
  const std::string manifest = ManifestToJson(m);
  // 48 MiB of zeros: about 1.5 kB compressed; the manifest declares 4 bytes.
  WriteTarZst(tmp.Sub("bomb.tar.zst"), {{"run/", kDir},
                                        {"run/ok.txt", kReg, "fine"},
                                        {"run/zeros", kReg, std::string(48 << 20, '\0')},
                                        {"run/manifest.json", kReg, manifest}});
  EXPECT_LT(fs::file_size(tmp.Sub("bomb.tar.zst")), 64u * 1024);
  fs::create_directories(tmp.Sub("work"));
  auto v = OpenArchive(tmp.Sub("bomb.tar.zst"), tmp.Sub("work/d"), "");
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.status().message().find("entry \"run/zeros\": would bring the extracted size over"),
            std::string::npos)
      << v.status().message();
  EXPECT_NE(v.status().message().find("its manifest declares"), std::string::npos)
      << v.status().message();
  EXPECT_EQ(ListDir(tmp.Sub("work")), std::vector<std::string>{});

  // Without a manifest, only a little is extracted (the verification fails anyway).
  WriteTarZst(tmp.Sub("bare.tar.zst"),
              {{"run/", kDir}, {"run/zeros", kReg, std::string(48 << 20, '\0')}});
  auto bare = OpenArchive(tmp.Sub("bare.tar.zst"), tmp.Sub("work/d"), "");
  ASSERT_FALSE(bare.ok());
  EXPECT_NE(bare.status().message().find("without a readable manifest"), std::string::npos)
      << bare.status().message();
  EXPECT_EQ(ListDir(tmp.Sub("work")), std::vector<std::string>{});

  // What the manifest declares, and a little more, still opens (the extra file is a problem).
  WriteTarZst(tmp.Sub("honest.tar.zst"), {{"run/", kDir},
                                          {"run/ok.txt", kReg, "fine"},
                                          {"run/extra.txt", kReg, std::string(1000, 'x')},
                                          {"run/manifest.json", kReg, manifest}});
  auto honest = OpenArchive(tmp.Sub("honest.tar.zst"), tmp.Sub("work/h"), "");
  ASSERT_TRUE(honest.ok()) << honest.status().message();
  EXPECT_FALSE(honest->verified());
}

TEST(ArchiveSafetyTest, DestinationMustNotExistAndArchiveMustBeReadable) {
  ScopedTempDir tmp;
  auto keys = MakeKeyPair(tmp.path(), "k");
  ArchiveInput in{"run", {}, {{"a.txt", "a"}}};
  ASSERT_TRUE(WriteArchive(in, tmp.Sub("a.tar.zst"), keys.private_pem).ok());

  WriteFile(tmp.Sub("existing/keep.txt"), "mine");
  auto exists = OpenArchive(tmp.Sub("a.tar.zst"), tmp.Sub("existing"), "");
  ASSERT_FALSE(exists.ok());
  EXPECT_NE(exists.status().message().find("existing: already exists; expected a fresh directory"),
            std::string::npos);
  EXPECT_EQ(ListDir(tmp.Sub("existing")), std::vector<std::string>{"keep.txt"});

  auto no_parent = OpenArchive(tmp.Sub("a.tar.zst"), tmp.Sub("no/such/parent"), "");
  ASSERT_FALSE(no_parent.ok());
  EXPECT_NE(no_parent.status().message().find("cannot create"), std::string::npos);

  auto missing = OpenArchive(tmp.Sub("nope.tar.zst"), tmp.Sub("d"), "");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("nope.tar.zst: no such archive"), std::string::npos);

  auto bad_key = OpenArchive(tmp.Sub("a.tar.zst"), tmp.Sub("d"), tmp.Sub("nokey.pub"));
  ASSERT_FALSE(bad_key.ok());
  EXPECT_NE(bad_key.status().message().find("nokey.pub: no such public key file"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(tmp.Sub("d")));

  WriteFile(tmp.Sub("text.tar.zst"), "just some text, not an archive\n");
  auto text = OpenArchive(tmp.Sub("text.tar.zst"), tmp.Sub("d"), "");
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.status().message().find("text.tar.zst: "), std::string::npos);
  EXPECT_NE(text.status().message().find("libarchive:"), std::string::npos)
      << text.status().message();
  EXPECT_FALSE(fs::exists(tmp.Sub("d")));

  std::string bytes = ReadFile(tmp.Sub("a.tar.zst"));
  WriteFile(tmp.Sub("cut.tar.zst"), bytes.substr(0, bytes.size() / 2));
  auto cut = OpenArchive(tmp.Sub("cut.tar.zst"), tmp.Sub("d"), "");
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.status().message().find("cut.tar.zst: "), std::string::npos);
  EXPECT_FALSE(fs::exists(tmp.Sub("d")));
}

TEST(ArchiveSafetyTest, WriteRefusesBadInputBeforeWritingAnything) {
  ScopedTempDir tmp;
  WriteFile(tmp.Sub("src.txt"), "x");
  WriteFile(tmp.Sub("garbage.key"),
            "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n");
  fs::create_directories(tmp.Sub("out"));
  struct Case {
    ArchiveInput in;
    std::string key;
    std::string want;
  };
  const Case cases[] = {
      {{"", {}, {{"a", "x"}}},
       "",
       "archive name \"\": expected one printable-ASCII path component"},
      {{"a/b", {}, {{"a", "x"}}}, "", "archive name \"a/b\": expected one"},
      {{"..", {}, {{"a", "x"}}}, "", "archive name \"..\""},
      {{"run", {}, {{"../a", "x"}}}, "", "archive path \"../a\": '..' component"},
      {{"run", {}, {{"/a", "x"}}}, "", "archive path \"/a\": absolute path"},
      {{"run", {}, {{"manifest.json", "x"}}}, "", "archive path \"manifest.json\": reserved"},
      {{"run", {}, {{"manifest.sig", "x"}}}, "", "archive path \"manifest.sig\": reserved"},
      {{"run", {{"a", tmp.Sub("src.txt")}}, {{"a", "x"}}},
       "",
       "archive path \"a\": given both as a file from disk and as inline content"},
      {{"run", {}, {{"a", "x"}, {"a/b", "y"}}},
       "",
       "archive path \"a\": used both as a file and as the directory of \"a/b\""},
      {{"run", {}, {{"a", "x"}}}, tmp.Sub("missing.key"), "missing.key: no such private key file"},
      {{"run", {}, {{"a", "x"}}}, tmp.Sub("garbage.key"), "garbage.key: unreadable"},
  };
  for (const auto& c : cases) {
    Status s = WriteArchive(c.in, tmp.Sub("out/a.tar.zst"), c.key);
    ASSERT_FALSE(s.ok()) << c.want;
    EXPECT_NE(s.message().find(c.want), std::string::npos)
        << "got:  " << s.message() << "\nwant: " << c.want;
    EXPECT_EQ(ListDir(tmp.Sub("out")), std::vector<std::string>{}) << c.want;
  }
  Status no_dir = WriteArchive({"run", {}, {{"a", "x"}}}, tmp.Sub("nodir/a.tar.zst"), "");
  ASSERT_FALSE(no_dir.ok());
  EXPECT_EQ(no_dir.code(), StatusCode::kNotFound);
  EXPECT_NE(no_dir.message().find("destination directory"), std::string::npos);
}

TEST(ArchiveSafetyTest, AnExistingOutputIsNeverOverwritten) {
  ScopedTempDir tmp;
  WriteFile(tmp.Sub("a.tar.zst"), "precious");
  Status s = WriteArchive({"run", {}, {{"a", "x"}}}, tmp.Sub("a.tar.zst"), "");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("a.tar.zst: already exists; refusing to overwrite"),
            std::string::npos);
  EXPECT_EQ(ReadFile(tmp.Sub("a.tar.zst")), "precious");
  // A dangling symbolic link counts as existing: writing through it could land anywhere.
  fs::create_symlink(tmp.Sub("elsewhere"), tmp.Sub("b.tar.zst"));
  EXPECT_FALSE(WriteArchive({"run", {}, {{"a", "x"}}}, tmp.Sub("b.tar.zst"), "").ok());
  EXPECT_FALSE(fs::exists(tmp.Sub("elsewhere")));
}

TEST(ArchiveSafetyTest, AFailedWriteLeavesNoFileUnderTheFinalNameAndNoTemporary) {
  ScopedTempDir tmp;
  fs::create_directories(tmp.Sub("out"));
  fs::create_directories(tmp.Sub("a_directory"));
  WriteFile(tmp.Sub("present.txt"), std::string(200000, 'p'));
  ArchiveInput in;
  in.name = "run";
  // Sorted paths: "a_present" is written into the temporary archive before "b_missing" fails.
  in.files_from_disk = {{"a_present", tmp.Sub("present.txt")}, {"b_missing", tmp.Sub("gone.txt")}};
  Status s = WriteArchive(in, tmp.Sub("out/run.tar.zst"), "");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_NE(s.message().find("gone.txt: source of \"b_missing\" does not exist"), std::string::npos)
      << s.message();
  EXPECT_EQ(ListDir(tmp.Sub("out")), std::vector<std::string>{});

  in.files_from_disk = {{"a_present", tmp.Sub("present.txt")}, {"dir", tmp.Sub("a_directory")}};
  Status d = WriteArchive(in, tmp.Sub("out/run.tar.zst"), "");
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.message().find("a_directory: source of \"dir\" is not a regular file"),
            std::string::npos)
      << d.message();
  EXPECT_EQ(ListDir(tmp.Sub("out")), std::vector<std::string>{});

  ASSERT_EQ(::mkfifo(tmp.Sub("fifo").c_str(), 0600), 0);
  in.files_from_disk = {{"a_present", tmp.Sub("present.txt")}, {"dir", tmp.Sub("fifo")}};
  Status f = WriteArchive(in, tmp.Sub("out/run.tar.zst"), "");  // must not block
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.message().find("fifo: source of \"dir\" is not a regular file"), std::string::npos)
      << f.message();
  EXPECT_EQ(ListDir(tmp.Sub("out")), std::vector<std::string>{});

  // And when it succeeds, only the final name is there.
  in.files_from_disk.erase("dir");
  ASSERT_TRUE(WriteArchive(in, tmp.Sub("out/run.tar.zst"), "").ok());
  EXPECT_EQ(ListDir(tmp.Sub("out")), std::vector<std::string>{"run.tar.zst"});
  struct stat st {};
  ASSERT_EQ(::stat(tmp.Sub("out/run.tar.zst").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
}

}  // namespace
}  // namespace archive_safety_test
}  // namespace ys::validate
