#include "validate/manifest.h"

#include <openssl/evp.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <type_traits>

#include "core/document_schemas.h"
#include "core/json_fields.h"
#include "core/json_fields_values.h"
#include "core/json_schema.h"
#include "core/text.h"

namespace ys::validate {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kFormat = "yardstick-manifest";

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

bool IsLowerHex(std::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

std::string Short(std::string_view hex) { return std::string(hex.substr(0, 16)) + "..."; }

const char* FileTypeName(fs::file_type t) {
  switch (t) {
    case fs::file_type::directory:
      return "a directory";
    case fs::file_type::symlink:
      return "a symbolic link";
    case fs::file_type::block:
      return "a block device";
    case fs::file_type::character:
      return "a character device";
    case fs::file_type::fifo:
      return "a FIFO";
    case fs::file_type::socket:
      return "a socket";
    default:
      return "not a regular file";
  }
}

}  // namespace

Status ValidateRelativePath(std::string_view path) {
  if (path.empty()) return Status::Invalid("empty path");
  if (path.size() > kMaxPathBytes) {
    return Status::Invalid("path longer than " + std::to_string(kMaxPathBytes) + " bytes");
  }
  if (path.front() == '/') return Status::Invalid("absolute path; expected a relative path");
  for (char c : path) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u > 0x7e || c == '\\') {
      return Status::Invalid("character outside printable ASCII (or a backslash) in path");
    }
  }
  for (std::string_view part : Split(path, '/')) {
    if (part.empty()) return Status::Invalid("empty path component (\"//\" or a trailing '/')");
    if (part == "..") return Status::Invalid("'..' component; the path would leave its directory");
    if (part == ".") return Status::Invalid("'.' component; expected a normalised path");
    if (part.size() > kMaxPathComponentBytes) {
      return Status::Invalid("path component longer than " +
                             std::to_string(kMaxPathComponentBytes) + " bytes");
    }
  }
  return Status::Ok();
}

std::string PrintablePath(std::string_view path) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (char c : path) {
    auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u <= 0x7e && c != '"' && c != '\\') {
      out += c;
    } else {
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 0xf];
    }
  }
  return out;
}

std::string QuotePath(std::string_view path) { return "\"" + PrintablePath(path) + "\""; }

// ---- SHA-256 ----

struct Sha256::Ctx {
  struct Free {
    void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
  };
  std::unique_ptr<EVP_MD_CTX, Free> md;
  bool ok = false;
};

Sha256::Sha256() : ctx_(std::make_unique<Ctx>()) {
  ctx_->md.reset(EVP_MD_CTX_new());
  ctx_->ok = ctx_->md != nullptr && EVP_DigestInit_ex(ctx_->md.get(), EVP_sha256(), nullptr) == 1;
}

Sha256::~Sha256() = default;

void Sha256::Update(std::string_view bytes) {
  if (ctx_->ok && !bytes.empty()) {
    ctx_->ok = EVP_DigestUpdate(ctx_->md.get(), bytes.data(), bytes.size()) == 1;
  }
}

std::string Sha256::FinalHex() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (!ctx_->ok || EVP_DigestFinal_ex(ctx_->md.get(), digest, &n) != 1) return "";
  ctx_->ok = false;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * static_cast<std::size_t>(n));
  for (unsigned int i = 0; i < n; ++i) {
    hex += kHex[digest[i] >> 4];
    hex += kHex[digest[i] & 0xf];
  }
  return hex;
}

std::string Sha256Hex(std::string_view bytes) {
  Sha256 h;
  h.Update(bytes);
  return h.FinalHex();
}

Result<std::string> Sha256OfFile(const std::string& path, std::uint64_t* size) {
  File f(std::fopen(path.c_str(), "rbe"));
  if (!f) return Status::Io(path + ": cannot open for reading (" + std::strerror(errno) + ")");
  Sha256 h;
  std::uint64_t total = 0;
  std::string buf(1 << 16, '\0');
  while (true) {
    std::size_t n = std::fread(buf.data(), 1, buf.size(), f.get());
    if (n > 0) {
      h.Update(std::string_view(buf.data(), n));
      total += n;
    }
    if (n < buf.size()) {
      if (std::ferror(f.get())) {
        return Status::Io(path + ": read failed (" + std::strerror(errno) + ")");
      }
      break;
    }
  }
  std::string hex = h.FinalHex();
  if (hex.empty()) return Status::Internal(path + ": OpenSSL SHA-256 failed");
  if (size != nullptr) *size = total;
  return hex;
}

// ---- Manifest ----

const ManifestEntry* Manifest::Find(std::string_view path) const {
  auto it = std::lower_bound(files.begin(), files.end(), path,
                             [](const ManifestEntry& e, std::string_view p) { return e.path < p; });
  return it != files.end() && it->path == path ? &*it : nullptr;
}

// ---- The manifest's field list ----

namespace {

using json_fields::Exactly;
using json_fields::Path;
using json_fields::Style;

// The layout's conventions (the top of manifest.h): every key named, messages as
// "m.json: files[0] ("a"): size: expected a non-negative whole number of bytes".
constexpr Style kManifestStyle{.name_found_type = false,
                               .reject_unknown_keys = true,
                               .key_separator = ": ",
                               .unknown_keys_first = true,
                               .unknown_key_lists_expected = true,
                               .absent_reads_as_null = true};

std::string EntryLabel(std::string_view path) { return " (" + QuotePath(path) + ")"; }

// Each value the manifest holds, read as its layout says: a byte count, a SHA-256 in hex, and
// the file list, sorted by path and unique.
struct ByteCount {
  std::uint64_t& n;
};
struct HexSha256 {
  std::string& hex;
};
struct SortedFiles {
  std::vector<ManifestEntry>& files;
};

template <typename W>
typename W::ojson JsonWrite(W*, const ByteCount& b, Style) {
  return b.n;
}
template <typename R>
Status JsonRead(R*, const typename R::json& j, const Path& at, Style s, ByteCount& b) {
  if (!j.is_number_unsigned()) {
    return json_fields::Expected(at, "a non-negative whole number of bytes", nullptr, s);
  }
  b.n = j.template get<std::uint64_t>();
  return Status::Ok();
}

template <typename W>
typename W::ojson JsonWrite(W*, const HexSha256& h, Style) {
  return h.hex;
}
template <typename R>
Status JsonRead(R*, const typename R::json& j, const Path& at, Style s, HexSha256& h) {
  if (!j.is_string() || j.template get_ref<const std::string&>().size() != 64 ||
      !IsLowerHex(j.template get_ref<const std::string&>())) {
    return json_fields::Expected(at, "64 lowercase hex digits", nullptr, s);
  }
  h.hex = j.template get<std::string>();
  return Status::Ok();
}

template <typename W>
typename W::ojson JsonWrite(W*, const SortedFiles& f, Style s) {
  return W::Value(f.files, s);
}
template <typename S>
typename S::ojson JsonSchema(S&, const ByteCount&) {
  return {{"type", "integer"}, {"minimum", 0}};
}
template <typename S>
typename S::ojson JsonSchema(S&, const HexSha256&) {
  return {{"type", "string"}, {"pattern", "^[0-9a-f]{64}$"}};
}
template <typename S>
typename S::ojson JsonSchema(S& schema, const SortedFiles& f) {
  return schema.Value(f.files, Style{});  // sorted by path and unique
}
// Element by element, so that the first problem in file order is the one named.
template <typename R>
Status JsonRead(R*, const typename R::json& j, const Path& at, Style s, SortedFiles& f) {
  if (!j.is_array()) return json_fields::Expected(at, "an array", nullptr, s);
  f.files.clear();
  for (std::size_t i = 0; i < j.size(); ++i) {
    Path element{&at, {}, static_cast<long>(i)};
    ManifestEntry e;
    YS_RETURN_IF_ERROR(R::Read(j[i], element, s, e));
    if (!f.files.empty() && !(f.files.back().path < e.path)) {
      std::string label = EntryLabel(e.path);
      element.label = label;
      return json_fields::Expected(
          Path{&element, "path"},
          "paths sorted and unique; it follows " + QuotePath(f.files.back().path), nullptr, s);
    }
    f.files.push_back(std::move(e));
  }
  return Status::Ok();
}

}  // namespace

template <typename V>
void Fields(V& v, ManifestEntry& e) {
  v("path", e.path);
  v.label(EntryLabel(e.path));
  v.check("path", ValidateRelativePath(e.path));
  v("size", ByteCount{e.size});
  v("sha256", HexSha256{e.sha256});
}

template <typename V>
void Fields(V& v, Manifest& m) {
  v("format", Exactly<std::string>{std::string(kFormat)});
  v("version", Exactly<int>{Manifest::kVersion});
  v("files", SortedFiles{m.files});
}

YS_DOCUMENT_SCHEMA("manifest", Manifest, "yardstick archive manifest (manifest.json)",
                   "Every file of an archive with its size and SHA-256, sorted by path.");

std::string ManifestToJson(const Manifest& manifest) {
  Manifest sorted = manifest;
  std::sort(sorted.files.begin(), sorted.files.end(),
            [](const ManifestEntry& a, const ManifestEntry& b) { return a.path < b.path; });
  // Paths are printable ASCII (ValidateRelativePath), so ensure_ascii changes nothing for valid
  // manifests and keeps the output ASCII even for invalid ones.
  return json_fields::Write(sorted, kManifestStyle).dump(2, ' ', /*ensure_ascii=*/true) + "\n";
}

Result<Manifest> ParseManifest(std::string_view json_text, const std::string& origin) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::exception& e) {
    return Status::Invalid(origin + ": not valid JSON (" + e.what() + ")");
  }
  if (!doc.is_object()) return Status::Invalid(origin + ": expected a JSON object");
  auto m = json_fields::Parse<Manifest>(doc, origin, kManifestStyle);
  if (!m.ok()) return m.status();
  // The signature covers bytes, so only one spelling of a manifest is accepted: this also rules
  // out duplicate keys, which JSON readers resolve differently.
  if (ManifestToJson(*m) != json_text) {
    return Status::Invalid(origin +
                           ": not in canonical form (two-space indented, keys in order, one "
                           "trailing newline, as ManifestToJson writes it)");
  }
  return m;
}

Result<Manifest> BuildManifest(const std::string& dir, const std::set<std::string>& exclude) {
  std::error_code ec;
  if (!fs::is_directory(fs::symlink_status(dir, ec))) {
    return Status::NotFound(dir + ": expected a directory");
  }
  Manifest m;
  fs::recursive_directory_iterator it(dir, ec), end;
  if (ec) return Status::Io(dir + ": cannot list (" + ec.message() + ")");
  for (; it != end; it.increment(ec)) {
    if (ec) return Status::Io(dir + ": cannot list (" + ec.message() + ")");
    const fs::path& p = it->path();
    std::string rel = p.lexically_relative(dir).generic_string();
    fs::file_status st = it->symlink_status(ec);
    if (ec) return Status::Io(p.string() + ": cannot stat (" + ec.message() + ")");
    if (st.type() == fs::file_type::directory) continue;
    if (exclude.count(rel) != 0) continue;
    if (st.type() != fs::file_type::regular) {
      return Status::Invalid(p.string() + ": " + FileTypeName(st.type()) +
                             "; a manifest lists regular files only");
    }
    Status valid = ValidateRelativePath(rel);
    if (!valid.ok()) return Status::Invalid(dir + ": " + QuotePath(rel) + ": " + valid.message());
    ManifestEntry e;
    e.path = rel;
    auto hash = Sha256OfFile(p.string(), &e.size);
    if (!hash.ok()) return hash.status();
    e.sha256 = *hash;
    m.files.push_back(std::move(e));
  }
  std::sort(m.files.begin(), m.files.end(),
            [](const ManifestEntry& a, const ManifestEntry& b) { return a.path < b.path; });
  return m;
}

// ---- Checking ----

const char* DifferenceKindName(ManifestDifference::Kind kind) {
  switch (kind) {
    case ManifestDifference::Kind::kMissing:
      return "missing";
    case ManifestDifference::Kind::kExtra:
      return "extra";
    case ManifestDifference::Kind::kSizeMismatch:
      return "size differs";
    case ManifestDifference::Kind::kHashMismatch:
      return "content differs";
    case ManifestDifference::Kind::kNotRegular:
      return "not a regular file";
    case ManifestDifference::Kind::kUnreadable:
      return "unreadable";
  }
  return "unknown";
}

std::string ManifestDifference::ToString(std::string_view prefix) const {
  std::string s = PrintablePath(std::string(prefix) + path) + ": " + DifferenceKindName(kind);
  if (!detail.empty()) s += " (" + detail + ")";
  return s;
}

Result<std::vector<ManifestDifference>> CheckDirectory(const Manifest& manifest,
                                                       const std::string& dir,
                                                       const std::set<std::string>& exclude) {
  using Kind = ManifestDifference::Kind;
  std::error_code ec;
  if (!fs::is_directory(fs::symlink_status(dir, ec))) {
    return Status::NotFound(dir + ": expected a directory");
  }
  // Everything on disk that is not a directory, by relative path.
  std::map<std::string, fs::file_type> on_disk;
  fs::recursive_directory_iterator it(dir, ec), end;
  if (ec) return Status::Io(dir + ": cannot list (" + ec.message() + ")");
  for (; it != end; it.increment(ec)) {
    if (ec) return Status::Io(dir + ": cannot list (" + ec.message() + ")");
    fs::file_status st = it->symlink_status(ec);
    if (st.type() == fs::file_type::directory) continue;
    on_disk[it->path().lexically_relative(dir).generic_string()] = st.type();
  }

  std::vector<ManifestDifference> diffs;
  for (const auto& e : manifest.files) {
    if (exclude.count(e.path) != 0) continue;
    auto found = on_disk.find(e.path);
    if (found == on_disk.end()) {
      // A directory where a file should be is not "missing": say what is there.
      fs::file_status st = fs::symlink_status(fs::path(dir) / e.path, ec);
      if (st.type() == fs::file_type::directory) {
        diffs.push_back({Kind::kNotRegular, e.path, "a directory"});
      } else {
        diffs.push_back({Kind::kMissing, e.path, "expected " + std::to_string(e.size) + " bytes"});
      }
      continue;
    }
    fs::file_type type = found->second;
    on_disk.erase(found);
    if (type != fs::file_type::regular) {
      diffs.push_back({Kind::kNotRegular, e.path, FileTypeName(type)});
      continue;
    }
    std::uint64_t size = 0;
    auto hash = Sha256OfFile((fs::path(dir) / e.path).string(), &size);
    if (!hash.ok()) {
      diffs.push_back({Kind::kUnreadable, e.path, hash.status().message()});
    } else if (size != e.size) {
      diffs.push_back(
          {Kind::kSizeMismatch, e.path,
           "expected " + std::to_string(e.size) + " bytes, found " + std::to_string(size)});
    } else if (*hash != e.sha256) {
      diffs.push_back({Kind::kHashMismatch, e.path,
                       "expected sha256 " + Short(e.sha256) + ", found " + Short(*hash)});
    }
  }
  for (const auto& [path, type] : on_disk) {
    if (exclude.count(path) != 0) continue;
    diffs.push_back({Kind::kExtra, path,
                     type == fs::file_type::regular
                         ? "not in the manifest"
                         : std::string(FileTypeName(type)) + ", not in the manifest"});
  }
  std::stable_sort(
      diffs.begin(), diffs.end(),
      [](const ManifestDifference& a, const ManifestDifference& b) { return a.path < b.path; });
  return diffs;
}

}  // namespace ys::validate
