#include "core/format_registry.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "core/did_you_mean.h"
#include "core/document_file.h"
#include "core/finding_codes.h"

namespace ys {

const char* FormatProductName(FormatProduct p) {
  switch (p) {
    case FormatProduct::kWorkloadRun:
      return "workload run";
    case FormatProduct::kRunDocument:
      return "run document";
    case FormatProduct::kGpuState:
      return "GPU state";
    case FormatProduct::kKernelLog:
      return "kernel log";
    case FormatProduct::kBugReport:
      return "bug report";
    case FormatProduct::kTopology:
      return "topology";
  }
  return "?";
}

const char* FormatProductReadBy(FormatProduct p) {
  switch (p) {
    case FormatProduct::kWorkloadRun:
    case FormatProduct::kRunDocument:
      return "ingest";
    case FormatProduct::kGpuState:
      return "preflight --nvml-state, topo --nvml-state";
    case FormatProduct::kKernelLog:
      return "preflight --kernel-log";
    case FormatProduct::kBugReport:
      return "preflight --bug-report";
    case FormatProduct::kTopology:
      return "topo --expect, topo --from";
  }
  return "-";
}

FormatRegistry& FormatRegistry::Global() {
  static FormatRegistry registry;
  return registry;
}

bool FormatRegistry::Add(FormatInfo info, FormatSniffer sniff, FormatReader read,
                         std::string_view file) {
  if (Find(info.name) != nullptr || sniff == nullptr || read == nullptr) {
    std::fprintf(stderr, "yardstick: format '%.*s' registered twice or without its reader\n",
                 static_cast<int>(info.name.size()), info.name.data());
    std::abort();
  }
  formats_.push_back(RegisteredFormat{info, sniff, read, RepositoryPath(file)});
  return true;
}

std::vector<const RegisteredFormat*> FormatRegistry::List() const {
  std::vector<const RegisteredFormat*> out;
  for (const RegisteredFormat& f : formats_) out.push_back(&f);
  std::sort(out.begin(), out.end(),
            [](const auto* a, const auto* b) { return a->info.name < b->info.name; });
  return out;
}

std::vector<const RegisteredFormat*> FormatRegistry::List(FormatProduct p) const {
  std::vector<const RegisteredFormat*> out = List();
  std::erase_if(out, [p](const RegisteredFormat* f) { return f->info.produces != p; });
  return out;
}

const RegisteredFormat* FormatRegistry::Find(std::string_view name) const {
  for (const RegisteredFormat& f : formats_) {
    if (f.info.name == name) return &f;
  }
  return nullptr;
}

std::string FormatRegistry::Names(std::optional<FormatProduct> p) const {
  std::string out;
  for (const RegisteredFormat* f : p ? List(*p) : List()) {
    out += (out.empty() ? "" : ", ") + std::string(f->info.name);
  }
  return out;
}

std::vector<ChosenFormat> FormatRegistry::Rank(std::string_view head,
                                               std::optional<FormatProduct> only) const {
  std::vector<ChosenFormat> out;
  for (const RegisteredFormat* f : only ? List(*only) : List()) {
    out.push_back({f, f->sniff(head)});
  }
  // Equal confidences keep the order by name.
  std::stable_sort(out.begin(), out.end(), [](const ChosenFormat& a, const ChosenFormat& b) {
    return a.sniff.confidence > b.sniff.confidence;
  });
  return out;
}

Result<std::string> ReadFormatHead(const std::string& path, std::string_view what) {
  auto f = OpenDocumentStream(path, std::string(what));
  if (!f.ok()) return f.status();
  std::string head(kFormatHeadBytes, '\0');
  head.resize(std::fread(head.data(), 1, head.size(), f->get()));
  return head;
}

Result<std::string> ReadFormatContent(const FormatRequest& request, size_t max_bytes,
                                      std::string_view what) {
  if (request.text) return std::string(*request.text);
  return ReadDocumentFile(request.path, max_bytes, what);
}

Result<ChosenFormat> ChooseFormat(const std::string& path, std::string_view head,
                                  std::optional<FormatProduct> only, std::string_view forced) {
  const FormatRegistry& reg = FormatRegistry::Global();
  const std::string expected =
      only ? fmt::format("{} ({})", FormatProductName(*only), reg.Names(*only)) : reg.Names();
  if (!forced.empty() && forced != "auto") {
    const RegisteredFormat* f = reg.Find(forced);
    if (f == nullptr || (only && f->info.produces != *only)) {
      std::vector<std::string> names;
      for (const RegisteredFormat* g : only ? reg.List(*only) : reg.List())
        names.emplace_back(g->info.name);
      return Status::Invalid(fmt::format("--format {}: not a format of {}{}", forced, expected,
                                         DidYouMean(forced, names)));
    }
    return ChosenFormat{f, f->sniff(head)};
  }
  std::vector<ChosenFormat> ranked = reg.Rank(head, only);
  if (!ranked.empty() && ranked.front().sniff.confidence >= FormatSniff::kFragment) {
    return ranked.front();
  }
  std::string closest;
  if (!ranked.empty() && ranked.front().sniff.confidence > 0) {
    const ChosenFormat& c = ranked.front();
    closest = fmt::format("; the closest: {}{}", c.format->info.name,
                          c.sniff.missing.empty() ? "" : " (missing " + c.sniff.missing + ")");
  }
  // Only ingest, which reads every product, has --format; a product's own option has not.
  return Status::Invalid(fmt::format(
      "{}: not a format yardstick reads{}; expected one of: {} (yardstick list --formats shows "
      "each with an example line{})",
      path, closest, expected, only ? "" : "; --format NAME reads it as one"));
}

}  // namespace ys
