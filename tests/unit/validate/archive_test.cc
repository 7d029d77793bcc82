// Writing archives and detecting every change to one: round trip, altered bytes, added and
// removed files, an edited manifest, a stripped signature. Hostile archives, limits and
// destinations are in archive_safety_test.cc.
#include "validate/archive.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>

#include "validate/archive_test_util.h"
#include "validate/signature.h"

namespace ys::validate {
namespace {

namespace fs = std::filesystem;
using archive_testing::KeyFiles;
using archive_testing::ListDir;
using archive_testing::MakeKeyPair;
using archive_testing::ReadFile;
using archive_testing::ReadTar;
using archive_testing::ScopedTempDir;
using archive_testing::TarEntry;
using archive_testing::WriteFile;
using archive_testing::WriteTarZst;
using Kind = ManifestDifference::Kind;

constexpr unsigned kReg = 0100000;  // AE_IFREG
constexpr unsigned kDir = 0040000;  // AE_IFDIR

class ArchiveTest : public ::testing::Test {
 protected:
  void SetUp() override {
    keys_ = MakeKeyPair(tmp_.path(), "signer");
    std::string log;
    for (int i = 0; i < 500; ++i) log += "step " + std::to_string(i) + " time 1.23 s\n";
    std::string binary;
    for (int i = 0; i < 256; ++i) binary += static_cast<char>(i);
    WriteFile(tmp_.Sub("src/log.txt"), log);
    WriteFile(tmp_.Sub("src/data.bin"), binary);
    input_.name = "run-1";
    input_.files_from_disk = {{"raw/log.txt", tmp_.Sub("src/log.txt")},
                              {"raw/nested/deep/data.bin", tmp_.Sub("src/data.bin")}};
    input_.files_inline = {{"run.json", "{\"verdict\": \"pass\"}\n"}, {"empty.txt", ""}};
    input_.mtime = 1767225600;
    fs::create_directories(tmp_.Sub("out"));
  }

  // Writes input_ signed (or not) to out/<file>, failing the test on error.
  std::string Write(const std::string& file, bool sign = true) {
    std::string out = tmp_.Sub("out/" + file);
    Status s = WriteArchive(input_, out, sign ? keys_.private_pem : "");
    EXPECT_TRUE(s.ok()) << s.ToString();
    return out;
  }

  // Opens into a fresh directory each time.
  Result<VerifiedArchive> Open(const std::string& archive, bool with_key = true) {
    std::string dest = tmp_.Sub("x" + std::to_string(++opened_));
    return OpenArchive(archive, dest, with_key ? keys_.public_pem : "");
  }

  // Takes `archive` apart, lets `edit` change the entries, packs them into a new archive.
  std::string Repack(const std::string& archive,
                     const std::function<void(std::vector<TarEntry>&)>& edit) {
    std::vector<TarEntry> entries = ReadTar(archive);
    edit(entries);
    std::string out = tmp_.Sub("repacked" + std::to_string(++repacked_) + ".tar.zst");
    WriteTarZst(out, entries);
    return out;
  }

  static TarEntry* Find(std::vector<TarEntry>& entries, const std::string& path) {
    for (auto& e : entries) {
      if (e.path == path) return &e;
    }
    ADD_FAILURE() << "no entry " << path;
    return nullptr;
  }

  ScopedTempDir tmp_;
  KeyFiles keys_;
  ArchiveInput input_;
  int opened_ = 0;
  int repacked_ = 0;
};

TEST_F(ArchiveTest, RoundTripSignedKeepsEveryFileAndVerifies) {
  std::string out = Write("run-1.tar.zst");
  EXPECT_EQ(ListDir(tmp_.Sub("out")), std::vector<std::string>{"run-1.tar.zst"});  // no temp left

  std::vector<std::string> names;
  for (const auto& e : ReadTar(out)) {
    names.push_back(e.path);
    EXPECT_TRUE(e.type == kReg || e.type == kDir) << e.path;
    EXPECT_TRUE(e.symlink.empty() && e.hardlink.empty()) << e.path;
  }
  const std::vector<std::string> want_names = {"run-1/",
                                               "run-1/empty.txt",
                                               "run-1/raw/",
                                               "run-1/raw/log.txt",
                                               "run-1/raw/nested/",
                                               "run-1/raw/nested/deep/",
                                               "run-1/raw/nested/deep/data.bin",
                                               "run-1/run.json",
                                               "run-1/manifest.json",
                                               "run-1/manifest.sig"};
  EXPECT_EQ(names, want_names);

  auto v = Open(out);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_TRUE(v->verified()) << ::testing::PrintToString(v->problems);
  EXPECT_EQ(v->name, "run-1");
  EXPECT_EQ(v->root_dir, tmp_.Sub("x1/run-1"));
  EXPECT_TRUE(v->is_signed);
  EXPECT_TRUE(v->signature_checked);
  EXPECT_TRUE(v->signature_ok);
  auto pub = PublicKey::LoadPem(keys_.public_pem);
  EXPECT_EQ(v->key_fingerprint, pub->Fingerprint());
  EXPECT_EQ(v->signature_summary, "signature valid (key " + pub->Fingerprint() + ")");
  ASSERT_EQ(v->manifest.files.size(), 4u);
  EXPECT_EQ(v->manifest.files[0].path, "empty.txt");
  EXPECT_EQ(ReadFile(v->root_dir + "/raw/log.txt"), ReadFile(tmp_.Sub("src/log.txt")));
  EXPECT_EQ(ReadFile(v->root_dir + "/raw/nested/deep/data.bin"),
            ReadFile(tmp_.Sub("src/data.bin")));
  EXPECT_EQ(ReadFile(v->root_dir + "/run.json"), "{\"verdict\": \"pass\"}\n");
  EXPECT_EQ(ReadFile(v->root_dir + "/empty.txt"), "");
  // The extracted manifest is what BuildManifest makes of the extracted tree.
  auto rebuilt = BuildManifest(v->root_dir, {kManifestFile, kSignatureFile});
  ASSERT_TRUE(rebuilt.ok());
  EXPECT_EQ(ManifestToJson(*rebuilt), ReadFile(v->root_dir + "/manifest.json"));
  // The signature file is base64 of the signature of the manifest's exact bytes.
  auto sig = ParseSignatureFile(ReadFile(v->root_dir + "/manifest.sig"), "manifest.sig");
  ASSERT_TRUE(sig.ok());
  EXPECT_TRUE(pub->Verify(ReadFile(v->root_dir + "/manifest.json"), *sig).ok());
}

TEST_F(ArchiveTest, UnsignedArchiveSaysSoAndFailsWhenAKeyIsExpected) {
  std::string out = Write("u.tar.zst", /*sign=*/false);
  auto plain = Open(out, /*with_key=*/false);
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_TRUE(plain->verified());
  EXPECT_FALSE(plain->is_signed);
  EXPECT_EQ(plain->signature_summary, "unsigned");

  auto keyed = Open(out, /*with_key=*/true);
  ASSERT_TRUE(keyed.ok());
  EXPECT_FALSE(keyed->verified());
  EXPECT_EQ(keyed->signature_summary, "unsigned");
  ASSERT_EQ(keyed->problems.size(), 1u);
  EXPECT_NE(keyed->problems[0].find("run-1/manifest.sig: missing; the archive is unsigned"),
            std::string::npos);

  auto signed_no_key = Open(Write("s.tar.zst"), /*with_key=*/false);
  ASSERT_TRUE(signed_no_key.ok());
  EXPECT_TRUE(signed_no_key->verified());
  EXPECT_TRUE(signed_no_key->is_signed);
  EXPECT_FALSE(signed_no_key->signature_checked);
  EXPECT_EQ(signed_no_key->signature_summary, "signed, not checked (no public key given)");
}

TEST_F(ArchiveTest, SameInputAndTimeGiveIdenticalArchiveBytes) {
  std::string a = Write("a.tar.zst");
  std::string b = Write("b.tar.zst");
  EXPECT_EQ(ReadFile(a), ReadFile(b));
}

TEST_F(ArchiveTest, AnySingleAlteredByteInAnyEntryIsDetected) {
  std::string out = Write("run-1.tar.zst");
  std::vector<TarEntry> original = ReadTar(out);
  int cases = 0;
  for (const auto& target : original) {
    if (target.type != kReg || target.content.empty()) continue;
    const std::size_t n = target.content.size();
    std::vector<std::size_t> positions;
    if (n <= 128) {
      for (std::size_t i = 0; i < n; ++i) positions.push_back(i);  // every byte
    } else {
      positions = {0, 1, n / 2, n - 1};
    }
    const std::string rel = target.path.substr(std::string("run-1/").size());
    for (std::size_t pos : positions) {
      std::string altered = Repack(out, [&](std::vector<TarEntry>& entries) {
        Find(entries, target.path)->content[pos] ^= 0x01;
      });
      auto v = Open(altered);
      ASSERT_TRUE(v.ok()) << v.status().ToString();
      ++cases;
      EXPECT_FALSE(v->verified()) << target.path << " byte " << pos;
      if (rel == kManifestFile || rel == kSignatureFile) {
        EXPECT_FALSE(v->signature_ok) << target.path << " byte " << pos;
        if (rel == kManifestFile) {
          // Detected by the manifest itself too, without any key.
          auto unkeyed = Open(altered, /*with_key=*/false);
          ASSERT_TRUE(unkeyed.ok());
          EXPECT_FALSE(unkeyed->verified()) << target.path << " byte " << pos;
        }
        continue;
      }
      // A data file: exactly that file is named, and the signature still holds.
      ASSERT_EQ(v->differences.size(), 1u) << target.path << " byte " << pos;
      EXPECT_EQ(v->differences[0].path, rel);
      EXPECT_EQ(v->differences[0].kind, Kind::kHashMismatch);
      EXPECT_TRUE(v->signature_ok);
      ASSERT_EQ(v->problems.size(), 1u);
      EXPECT_NE(v->problems[0].find("run-1/" + rel + ": content differs"), std::string::npos)
          << v->problems[0];
    }
  }
  EXPECT_GT(cases, 100);
}

TEST_F(ArchiveTest, AddedAndRemovedFilesAreDetected) {
  std::string out = Write("run-1.tar.zst");
  std::string added = Repack(out, [](std::vector<TarEntry>& e) {
    e.insert(e.end() - 2, TarEntry{"run-1/raw/added.txt", kReg, "planted"});
  });
  auto v = Open(added);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  ASSERT_EQ(v->differences.size(), 1u);
  EXPECT_EQ(v->differences[0].kind, Kind::kExtra);
  EXPECT_EQ(v->differences[0].path, "raw/added.txt");
  EXPECT_TRUE(v->signature_ok);  // the manifest is intact; the extra file is still a problem
  ASSERT_EQ(v->problems.size(), 1u);
  EXPECT_EQ(v->problems[0], "run-1/raw/added.txt: extra (not in the manifest)");

  std::string removed = Repack(out, [](std::vector<TarEntry>& e) {
    std::erase_if(e, [](const TarEntry& t) { return t.path == "run-1/raw/nested/deep/data.bin"; });
  });
  auto r = Open(removed);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->differences.size(), 1u);
  EXPECT_EQ(r->differences[0].kind, Kind::kMissing);
  EXPECT_EQ(r->problems, std::vector<std::string>{
                             "run-1/raw/nested/deep/data.bin: missing (expected 256 bytes)"});

  // Both at once, plus a changed file: every difference is reported, not just the first.
  std::string all = Repack(out, [](std::vector<TarEntry>& e) {
    std::erase_if(e, [](const TarEntry& t) { return t.path == "run-1/empty.txt"; });
    Find(e, "run-1/run.json")->content = "{\"verdict\": \"fail\"}\n";
    e.insert(e.end() - 2, TarEntry{"run-1/zz.txt", kReg, "x"});
  });
  auto a = Open(all);
  ASSERT_TRUE(a.ok());
  std::vector<std::pair<std::string, Kind>> got;
  for (const auto& d : a->differences) got.emplace_back(d.path, d.kind);
  EXPECT_EQ(got, (std::vector<std::pair<std::string, Kind>>{{"empty.txt", Kind::kMissing},
                                                            {"run.json", Kind::kHashMismatch},
                                                            {"zz.txt", Kind::kExtra}}));
}

TEST_F(ArchiveTest, ManifestEditedToMatchAnAlteredFileFailsTheSignature) {
  std::string out = Write("run-1.tar.zst");
  const std::string forged = "{\"verdict\": \"PASS\", \"edited\": true}\n";
  auto forge = [&](std::vector<TarEntry>& entries) {
    Find(entries, "run-1/run.json")->content = forged;
    TarEntry* m = Find(entries, "run-1/manifest.json");
    auto manifest = ParseManifest(m->content, "manifest.json");
    ASSERT_TRUE(manifest.ok()) << manifest.status().ToString();
    for (auto& f : manifest->files) {
      if (f.path == "run.json") f = {"run.json", forged.size(), Sha256Hex(forged)};
    }
    m->content = ManifestToJson(*manifest);
  };
  std::string tampered = Repack(out, forge);

  auto v = Open(tampered);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_TRUE(v->differences.empty());  // the files match the edited manifest...
  EXPECT_TRUE(v->signature_checked);
  EXPECT_FALSE(v->signature_ok);  // ...but the manifest is not the one that was signed
  EXPECT_EQ(v->signature_summary, "signature invalid");
  ASSERT_EQ(v->problems.size(), 1u);
  EXPECT_NE(v->problems[0].find("run-1/manifest.sig: signature does not verify with public key"),
            std::string::npos)
      << v->problems[0];

  // Without the public key the forgery cannot be told apart, and the result says so.
  auto unkeyed = Open(tampered, /*with_key=*/false);
  ASSERT_TRUE(unkeyed.ok());
  EXPECT_TRUE(unkeyed->verified());
  EXPECT_EQ(unkeyed->signature_summary, "signed, not checked (no public key given)");

  // Re-signing with another key does not help against the right public key.
  KeyFiles other = MakeKeyPair(tmp_.path(), "attacker");
  std::string resigned = Repack(tampered, [&](std::vector<TarEntry>& entries) {
    auto key = PrivateKey::LoadPem(other.private_pem);
    ASSERT_TRUE(key.ok());
    Find(entries, "run-1/manifest.sig")->content =
        SignatureFileText(*key->Sign(Find(entries, "run-1/manifest.json")->content));
  });
  auto r = Open(resigned);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->signature_ok);
  EXPECT_FALSE(r->verified());
}

TEST_F(ArchiveTest, StrippedSignatureIsReportedWhenAKeyIsGiven) {
  std::string stripped = Repack(Write("run-1.tar.zst"), [](std::vector<TarEntry>& e) {
    std::erase_if(e, [](const TarEntry& t) { return t.path == "run-1/manifest.sig"; });
  });
  auto v = Open(stripped);
  ASSERT_TRUE(v.ok());
  EXPECT_FALSE(v->is_signed);
  EXPECT_FALSE(v->verified());
}

TEST_F(ArchiveTest, MissingOrMalformedManifestIsAProblemNotACrash) {
  std::string out = Write("run-1.tar.zst", /*sign=*/false);
  std::string none = Repack(out, [](std::vector<TarEntry>& e) {
    std::erase_if(e, [](const TarEntry& t) { return t.path == "run-1/manifest.json"; });
  });
  auto v = Open(none, /*with_key=*/false);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(v->problems, std::vector<std::string>{
                             "run-1/manifest.json: missing; the archive cannot be verified"});

  std::string junk = Repack(out, [](std::vector<TarEntry>& e) {
    Find(e, "run-1/manifest.json")->content = "{\"format\": 1";
  });
  auto j = Open(junk, /*with_key=*/false);
  ASSERT_TRUE(j.ok());
  ASSERT_EQ(j->problems.size(), 1u);
  EXPECT_NE(j->problems[0].find("run-1/manifest.json: not valid JSON"), std::string::npos);
}

}  // namespace
}  // namespace ys::validate
