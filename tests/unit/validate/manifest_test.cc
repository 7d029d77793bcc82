#include "validate/manifest.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "validate/archive_test_util.h"

namespace ys::validate {
namespace {

namespace fs = std::filesystem;
using archive_testing::ScopedTempDir;
using archive_testing::WriteFile;
using Kind = ManifestDifference::Kind;

constexpr char kAbcSha[] = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
constexpr char kEmptySha[] = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

TEST(ArchiveManifestTest, Sha256MatchesKnownVectors) {
  EXPECT_EQ(Sha256Hex("abc"), kAbcSha);
  EXPECT_EQ(Sha256Hex(""), kEmptySha);
  ScopedTempDir tmp;
  WriteFile(tmp.Sub("f"), "abc");
  std::uint64_t size = 0;
  auto h = Sha256OfFile(tmp.Sub("f"), &size);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_EQ(*h, kAbcSha);
  EXPECT_EQ(size, 3u);
  auto missing = Sha256OfFile(tmp.Sub("nope"));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find(tmp.Sub("nope")), std::string::npos);
}

TEST(ArchiveManifestTest, CanonicalJsonIsSortedAndByteStable) {
  Manifest m;
  m.files.push_back({"z/last.txt", 0, kEmptySha});
  m.files.push_back({"a.json", 3, kAbcSha});
  const std::string want =
      "{\n"
      "  \"format\": \"yardstick-manifest\",\n"
      "  \"version\": 1,\n"
      "  \"files\": [\n"
      "    {\n"
      "      \"path\": \"a.json\",\n"
      "      \"size\": 3,\n"
      "      \"sha256\": \"" +
      std::string(kAbcSha) +
      "\"\n"
      "    },\n"
      "    {\n"
      "      \"path\": \"z/last.txt\",\n"
      "      \"size\": 0,\n"
      "      \"sha256\": \"" +
      std::string(kEmptySha) +
      "\"\n"
      "    }\n"
      "  ]\n"
      "}\n";
  EXPECT_EQ(ManifestToJson(m), want);
  std::swap(m.files[0], m.files[1]);
  EXPECT_EQ(ManifestToJson(m), want);  // insertion order does not matter
  EXPECT_EQ(ManifestToJson(Manifest{}),
            "{\n  \"format\": \"yardstick-manifest\",\n  \"version\": 1,\n  \"files\": []\n}\n");

  auto parsed = ParseManifest(want, "m.json");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  ASSERT_EQ(parsed->files.size(), 2u);
  EXPECT_EQ(parsed->files[0], (ManifestEntry{"a.json", 3, kAbcSha}));
  EXPECT_NE(parsed->Find("z/last.txt"), nullptr);
  EXPECT_EQ(parsed->Find("z"), nullptr);
  EXPECT_EQ(ManifestToJson(*parsed), want);
}

TEST(ArchiveManifestTest, MalformedManifestsNameOriginAndField) {
  auto entry = [](const std::string& path, const std::string& size, const std::string& sha) {
    return "{\"path\": \"" + path + "\", \"size\": " + size + ", \"sha256\": \"" + sha + "\"}";
  };
  auto doc = [](const std::string& files) {
    return "{\"format\": \"yardstick-manifest\", \"version\": 1, \"files\": [" + files + "]}";
  };
  const std::string ok = entry("a", "1", kAbcSha);
  const std::pair<std::string, std::string> cases[] = {
      {"not json", "m.json: not valid JSON"},
      {"[]", "m.json: expected a JSON object"},
      {"{\"format\": \"other\", \"version\": 1, \"files\": []}", "m.json: format: expected"},
      {"{\"format\": \"yardstick-manifest\", \"version\": 2, \"files\": []}",
       "m.json: version: expected 1"},
      {"{\"format\": \"yardstick-manifest\", \"version\": 1, \"files\": {}}",
       "m.json: files: expected an array"},
      {"{\"format\": \"yardstick-manifest\", \"version\": 1, \"files\": [], \"x\": 1}",
       "unknown key \"x\""},
      {doc("1"), "m.json: files[0]: expected an object"},
      {doc(entry("a", "-1", kAbcSha)), "files[0] (\"a\"): size: expected a non-negative"},
      {doc(entry("a", "1.5", kAbcSha)), "files[0] (\"a\"): size: expected"},
      {doc(entry("a", "1", "ABC")), "files[0] (\"a\"): sha256: expected 64 lowercase hex"},
      {doc(entry("../a", "1", kAbcSha)), "files[0] (\"../a\"): path: '..' component"},
      {doc(entry("/etc/passwd", "1", kAbcSha)), "path: absolute path"},
      {doc(ok + "," + ok), "files[1] (\"a\"): path: expected paths sorted and unique"},
      {doc(entry("b", "1", kAbcSha) + "," + ok), "files[1] (\"a\"): path: expected paths sorted"},
      {doc("{\"path\": \"a\", \"size\": 1, \"sha256\": \"" + std::string(kAbcSha) +
           "\", \"mode\": 1}"),
       "files[0]: unknown key \"mode\""},
      // Valid content, other spelling: the signed bytes must be the canonical ones.
      {doc(ok), "m.json: not in canonical form"},
  };
  for (const auto& [text, want] : cases) {
    auto m = ParseManifest(text, "m.json");
    ASSERT_FALSE(m.ok()) << text;
    EXPECT_NE(m.status().message().find(want), std::string::npos)
        << "got: " << m.status().message() << "\nwant: " << want;
  }
}

TEST(ArchiveManifestTest, RelativePathRules) {
  for (const char* good : {"a", "a/b.json", "with space/x-y_z.txt", "..a/b..", ".hidden"}) {
    EXPECT_TRUE(ValidateRelativePath(good).ok()) << good;
  }
  const std::pair<std::string, std::string> bad[] = {
      {"", "empty path"},
      {"/abs", "absolute"},
      {"a/../b", "'..'"},
      {"..", "'..'"},
      {"./a", "'.' component"},
      {"a//b", "empty path component"},
      {"a/", "empty path component"},
      {"a\\b", "backslash"},
      {"caf\xc3\xa9", "printable ASCII"},
      {"a\nb", "printable ASCII"},
      {std::string(256, 'x'), "longer than 255"},
  };
  for (const auto& [path, want] : bad) {
    Status s = ValidateRelativePath(path);
    ASSERT_FALSE(s.ok()) << path;
    EXPECT_NE(s.message().find(want), std::string::npos) << s.message();
  }
  EXPECT_EQ(QuotePath("a\nb\"c"), "\"a\\x0ab\\x22c\"");
}

TEST(ArchiveManifestTest, BuildFromDirectoryListsEveryRegularFileSorted) {
  ScopedTempDir tmp;
  WriteFile(tmp.Sub("d/z.txt"), "abc");
  WriteFile(tmp.Sub("d/a/empty"), "");
  WriteFile(tmp.Sub("d/b.json"), "{}");
  WriteFile(tmp.Sub("d/manifest.json"), "excluded");
  fs::create_directories(tmp.Sub("d/empty_dir"));
  auto m = BuildManifest(tmp.Sub("d"), {"manifest.json"});
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  ASSERT_EQ(m->files.size(), 3u);
  EXPECT_EQ(m->files[0], (ManifestEntry{"a/empty", 0, kEmptySha}));
  EXPECT_EQ(m->files[1].path, "b.json");
  EXPECT_EQ(m->files[2], (ManifestEntry{"z.txt", 3, kAbcSha}));
  // Same tree, same bytes.
  auto again = BuildManifest(tmp.Sub("d"), {"manifest.json"});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(ManifestToJson(*m), ManifestToJson(*again));

  auto missing = BuildManifest(tmp.Sub("nope"));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("expected a directory"), std::string::npos);
}

TEST(ArchiveManifestTest, BuildRefusesLinksAndSpecialFiles) {
  ScopedTempDir tmp;
  WriteFile(tmp.Sub("d/ok"), "x");
  fs::create_symlink("/etc/passwd", tmp.Sub("d/link"));
  auto m = BuildManifest(tmp.Sub("d"));
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("d/link: a symbolic link"), std::string::npos)
      << m.status().message();

  ScopedTempDir tmp2;
  WriteFile(tmp2.Sub("d/ok"), "x");
  ASSERT_EQ(::mkfifo(tmp2.Sub("d/fifo").c_str(), 0600), 0);
  auto f = BuildManifest(tmp2.Sub("d"));
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("d/fifo: a FIFO"), std::string::npos) << f.status().message();
}

TEST(ArchiveManifestTest, CheckDirectoryReportsEveryDifferenceSorted) {
  ScopedTempDir tmp;
  const std::string d = tmp.Sub("d");
  WriteFile(d + "/same", "same");
  WriteFile(d + "/content", "abc");
  WriteFile(d + "/size", "abc");
  WriteFile(d + "/gone", "x");
  WriteFile(d + "/sub/dir_now", "x");
  auto m = BuildManifest(d);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  auto clean = CheckDirectory(*m, d);
  ASSERT_TRUE(clean.ok());
  EXPECT_TRUE(clean->empty());

  WriteFile(d + "/content", "abd");  // same size, other bytes
  WriteFile(d + "/size", "abcd");
  fs::remove(d + "/gone");
  fs::remove(d + "/sub/dir_now");
  fs::create_directories(d + "/sub/dir_now");
  WriteFile(d + "/new/extra", "surprise");
  fs::create_symlink("/etc/passwd", d + "/zlink");
  WriteFile(d + "/ignored", "in exclude");

  auto diffs = CheckDirectory(*m, d, {"ignored"});
  ASSERT_TRUE(diffs.ok()) << diffs.status().ToString();
  std::vector<std::pair<std::string, Kind>> got;
  for (const auto& x : *diffs) got.emplace_back(x.path, x.kind);
  const std::vector<std::pair<std::string, Kind>> want = {
      {"content", Kind::kHashMismatch},   {"gone", Kind::kMissing},
      {"new/extra", Kind::kExtra},        {"size", Kind::kSizeMismatch},
      {"sub/dir_now", Kind::kNotRegular}, {"zlink", Kind::kExtra},
  };
  EXPECT_EQ(got, want);
  EXPECT_EQ((*diffs)[0].ToString("run/").substr(0, 30), "run/content: content differs (");
  EXPECT_NE((*diffs)[3].ToString().find("expected 3 bytes, found 4"), std::string::npos);
  EXPECT_NE((*diffs)[5].ToString().find("a symbolic link"), std::string::npos);
}

}  // namespace
}  // namespace ys::validate
