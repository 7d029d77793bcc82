// The format room's registry: every file format an operator can hand yardstick (a training log,
// an nccl-tests log, a dcgmi diag table, an nvidia-smi dump, a kernel log, a bug report ...)
// registers itself once, beside its reader, at static initialisation:
//
//   YS_FORMAT(SniffDcgmDiagTable, ReadDcgmDiagTable,
//             {.name = "dcgmi-diag", .produces = FormatProduct::kRunDocument,
//              .summary = "...", .example = "| Diagnostic | Result |"})
//
// A format declares its name (the one place it is spelt: `--format NAME`, `list --formats`),
// what it produces, a content sniffer and its reader. Commands dispatch through the registry:
// ChooseFormat sniffs a file's head against every format (or the formats of one product) and
// takes the most confident; a file that none claims is answered with the closest format and what
// it lacked, never with another format's error. The registry is filled before main() and
// read-only afterwards.
#ifndef YARDSTICK_CORE_FORMAT_REGISTRY_H_
#define YARDSTICK_CORE_FORMAT_REGISTRY_H_

#include <any>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace ys {

// What a reader produces; the caller any_casts the result to the type named here.
enum class FormatProduct {
  kWorkloadRun,  // validate::WorkloadRun: a training or serving run's window statistics
  kRunDocument,  // RunDocument: a tool's output judged as a yardstick unit
  kGpuState,     // gpu::GpuSnapshot: the GPUs' state as NVML would report it
  kKernelLog,    // std::vector<host::KernelLogLine>
  kBugReport,    // host::BugReport
  kTopology,     // report::SmiTopo: nvidia-smi topo -m
};
// "workload run", "run document", "GPU state", "kernel log", "bug report", "topology".
const char* FormatProductName(FormatProduct p);
// The commands that take a product: "ingest", "preflight --nvml-state, topo --nvml-state", ...
const char* FormatProductReadBy(FormatProduct p);

// How sure a sniffer is that a head of text is its format, and why.
//   kWhole (1.0): the line or key that only this format prints (its header, its banner);
//   kFragment (0.6): rows of this format without what identifies it whole (a table that lost
//     its header in a ticket): read as far as it goes, `missing` names what is absent;
//   below kFragment: not this format; a non-zero confidence makes it a candidate for the "closest
//     format" of an unclaimed file, with `missing` saying what it lacked.
struct FormatSniff {
  static constexpr double kWhole = 1.0;
  static constexpr double kFragment = 0.6;
  double confidence = 0;
  std::string evidence;  // what was seen: the header line, the column set, the key
  std::string missing;   // what a whole file of the format has and this one lacks
};

// What a command hands a reader: its own options struct (validate::IngestOptions for the run
// formats), or nothing; the reader any_casts what it knows.
struct FormatRequest {
  std::string path;
  // Text already in memory (a section of an nvidia-bug-report), read instead of opening `path`,
  // which then only names the source in messages ("report.log [nvidia-smi nvlink]"). Borrowed:
  // it outlives the read. Honoured by the readers that get their content through
  // ReadFormatContent (dcgmi diag, nvidia-smi nvlink, GPU state, topology, serving console); the
  // streaming readers (training logs, serving JSON, nccl-tests, kernel logs, the bug report
  // itself) read `path` only.
  std::optional<std::string_view> text;
  const std::any* options = nullptr;
  std::string collective;  // nccl-tests logs that do not name their binary
  // Named by --format rather than told from the content: a reader that can look further than
  // the sniffed head (a training log) reads as this format instead of detecting again.
  bool forced = false;
};

using FormatSniffer = FormatSniff (*)(std::string_view head);
using FormatReader = Result<std::any> (*)(const FormatRequest& request);

struct FormatInfo {
  std::string_view name;  // "nccl-tests", "dcgmi-diag", "nvidia-smi-q"
  FormatProduct produces = FormatProduct::kRunDocument;
  std::string_view summary;  // what the file is and which tool prints it
  std::string_view example;  // a line of the format, as printed
};

struct RegisteredFormat {
  FormatInfo info;
  FormatSniffer sniff = nullptr;
  FormatReader read = nullptr;
  std::string_view file;  // where it registers: "src/formats/dcgmi_diag.cc"
};

// A format chosen for a file, with the sniff that chose it.
struct ChosenFormat {
  const RegisteredFormat* format = nullptr;
  FormatSniff sniff;
};

class FormatRegistry {
 public:
  static FormatRegistry& Global();

  // Aborts on a name registered twice: a build error that must not reach a user.
  bool Add(FormatInfo info, FormatSniffer sniff, FormatReader read, std::string_view file);

  // Sorted by name.
  std::vector<const RegisteredFormat*> List() const;
  std::vector<const RegisteredFormat*> List(FormatProduct p) const;
  const RegisteredFormat* Find(std::string_view name) const;
  // "dcgmi-diag, megatron, ..." (of one product when given).
  std::string Names(std::optional<FormatProduct> p = std::nullopt) const;

  // Every format (of `only`, when given) sniffed against `head`, the most confident first.
  std::vector<ChosenFormat> Rank(std::string_view head,
                                 std::optional<FormatProduct> only = std::nullopt) const;

 private:
  std::vector<RegisteredFormat> formats_;
};

// The first bytes of a file that sniffers see.
inline constexpr size_t kFormatHeadBytes = size_t{64} << 10;

// The head of the file at `path` (a regular file only): NotFound / Invalid naming the file and
// `what` was expected of it.
Result<std::string> ReadFormatHead(
    const std::string& path,
    std::string_view what = "a file of a format yardstick reads (yardstick list --formats)");

// What a reader reads: the request's text when it carries one (no cap: it is in memory
// already), else the file at `path` through ReadDocumentFile (a regular file of at most
// `max_bytes`; errors name the file and `what` was expected of it).
Result<std::string> ReadFormatContent(const FormatRequest& request, size_t max_bytes,
                                      std::string_view what);

// The format of the file at `path`: `forced` by name (--format), else the most confident sniff
// of `head` at or above kFragment among the formats of `only`. Invalid (exit 2) for a forced
// name that is unknown or produces another product, and for a file no format claims: "PATH: not
// a format yardstick reads (expected ...); the closest: NAME (missing ...)".
Result<ChosenFormat> ChooseFormat(const std::string& path, std::string_view head,
                                  std::optional<FormatProduct> only = std::nullopt,
                                  std::string_view forced = {});

// What ReadFormatAs does with a file that no format of the product claims.
enum class Unclaimed {
  // The product's one format reads it anyway: its own error (the file, the line, what was
  // expected) says more than "not a format" (GPU state JSON, a bug report).
  kSingleFormatReads,
  // Refused (exit 2) with the closest format and what it lacked: for a product whose reader would
  // accept anything and find nothing in it (a kernel log: any text is zero events, which would
  // read as a clean log).
  kRefuse,
};

// ChooseFormat on the file's head, then its reader; the product any_cast to T. For the inputs
// of one product (preflight --nvml-state: kGpuState; --kernel-log: kKernelLog).
template <typename T>
Result<T> ReadFormatAs(const std::string& path, FormatProduct product, std::string_view forced = {},
                       Unclaimed unclaimed = Unclaimed::kSingleFormatReads) {
  auto head = ReadFormatHead(path);
  if (!head.ok()) return head.status();
  auto chosen = ChooseFormat(path, *head, product, forced);
  const auto formats = FormatRegistry::Global().List(product);
  if (!chosen.ok() && forced.empty() && formats.size() == 1 &&
      unclaimed == Unclaimed::kSingleFormatReads) {
    chosen = ChosenFormat{formats[0], {}};
  }
  if (!chosen.ok()) return chosen.status();
  auto read = chosen->format->read(FormatRequest{.path = path, .forced = !forced.empty()});
  if (!read.ok()) return read.status();
  if (T* v = std::any_cast<T>(&*read)) return std::move(*v);
  return Status::Internal(path + ": format " + std::string(chosen->format->info.name) +
                          " produced another type than its product");
}

}  // namespace ys

#define YS_FORMAT_CONCAT_INNER_(a, b) a##b
#define YS_FORMAT_CONCAT_(a, b) YS_FORMAT_CONCAT_INNER_(a, b)

// Registers a format: its sniffer, its reader and its FormatInfo as designated initialisers (last:
// their commas are the macro's variadic arguments).
#define YS_FORMAT(SNIFF, READ, ...)                                                            \
  namespace {                                                                                  \
  [[maybe_unused]] const bool YS_FORMAT_CONCAT_(ys_format_, __COUNTER__) =                     \
      ::ys::FormatRegistry::Global().Add(::ys::FormatInfo __VA_ARGS__, SNIFF, READ, __FILE__); \
  }

#endif  // YARDSTICK_CORE_FORMAT_REGISTRY_H_
