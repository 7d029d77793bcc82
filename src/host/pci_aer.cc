#include "host/pci_aer.h"

#include "core/text.h"

namespace ys::host {

const char* AerKindName(AerKind kind) {
  switch (kind) {
    case AerKind::kCorrectable:
      return "correctable";
    case AerKind::kNonFatal:
      return "nonfatal";
    case AerKind::kFatal:
      return "fatal";
  }
  return "correctable";
}

Result<AerCounts> ParseAerCounters(std::string_view text) {
  AerCounts out;
  std::vector<std::string_view> lines;
  for (auto line : SplitLines(text)) {
    if (!Trim(line).empty()) lines.push_back(Trim(line));
  }
  if (lines.empty())
    return Status::Invalid("expected \"Name count\" lines ending TOTAL_ERR_*, got an empty file");
  // The proposed <dev>/aer/ files may hold a bare total.
  if (lines.size() == 1 && SplitWhitespace(lines[0]).size() == 1) {
    auto v = ParseUint(lines[0]);
    if (!v) {
      return Status::Invalid("expected an error count, got \"" +
                             std::string(lines[0].substr(0, 40)) + "\"");
    }
    out.total = *v;
    return out;
  }
  bool have_total = false;
  for (auto line : lines) {
    auto parts = SplitWhitespace(line);
    std::optional<uint64_t> v;
    if (parts.size() == 2) v = ParseUint(parts[1]);
    if (!v) {
      return Status::Invalid("expected \"Name count\" lines like \"RxErr 0\", got \"" +
                             std::string(line.substr(0, 60)) + "\"");
    }
    if (StartsWith(parts[0], "TOTAL_ERR_")) {
      out.total = *v;
      have_total = true;
    } else {
      out.by_type.emplace_back(std::string(parts[0]), *v);
    }
  }
  if (!have_total) return Status::Invalid("no TOTAL_ERR_* line: the file looks truncated");
  return out;
}

namespace {

struct KindFiles {
  AerKind kind;
  const char* legacy;               // <dev>/<legacy>
  std::vector<const char*> in_dir;  // <dev>/aer/<name>, first present wins
};

const std::vector<KindFiles>& AerLayout() {
  static const std::vector<KindFiles> kLayout = {
      {AerKind::kCorrectable,
       "aer_dev_correctable",
       {"dev_correctable", "aer_dev_correctable", "err_cor"}},
      {AerKind::kNonFatal,
       "aer_dev_nonfatal",
       {"dev_nonfatal", "aer_dev_nonfatal", "err_nonfatal"}},
      {AerKind::kFatal, "aer_dev_fatal", {"dev_fatal", "aer_dev_fatal", "err_fatal"}},
  };
  return kLayout;
}

}  // namespace

Result<std::vector<AerFile>> ReadAerCounters(const Host& host, const std::string& dev_dir) {
  std::vector<AerFile> out;
  for (const auto& k : AerLayout()) {
    std::vector<std::string> candidates = {dev_dir + "/" + k.legacy};
    for (const char* n : k.in_dir) candidates.push_back(dev_dir + "/aer/" + n);
    for (const auto& path : candidates) {
      auto text = host.ReadFile(path);
      if (!text.ok()) {
        if (text.status().code() == StatusCode::kNotFound) continue;
        return text.status();
      }
      // The kernel always prints the TOTAL_ERR_* line; an empty file (a copy that could not read
      // it) records no counts, as if the kind had no file.
      if (Trim(*text).empty()) continue;
      auto counts = ParseAerCounters(*text);
      if (!counts.ok())
        return Status::Invalid(host.Resolve(path) + ": " + counts.status().message());
      out.push_back(AerFile{k.kind, path, std::move(*counts)});
      break;
    }
  }
  return out;
}

}  // namespace ys::host
