// Reading a document a user names on the command line (a run.json, a TOML config, an NVML state
// file, a kernel log): the one bounded reader every such read goes through. The file must be a
// regular file (a directory, FIFO, socket or device is refused without blocking: the open is
// O_NONBLOCK) and no larger than the cap of its kind, enforced while reading, so a file that grows
// or lies about its size is still bounded. Thread-safe: no shared state.
#ifndef YARDSTICK_CORE_DOCUMENT_FILE_H_
#define YARDSTICK_CORE_DOCUMENT_FILE_H_

#include <cstddef>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "core/status.h"

namespace ys {

// What a document is; each kind has a size cap (bytes) and a name used in messages.
enum class DocumentKind {
  kJson,       // run.json, validation.json, diagnosis, fleet inputs, burn-in timeline: 256 MiB
  kState,      // small JSON state: burn-in checkpoint, a list of inputs: 16 MiB
  kToml,       // site file, prices, models, specs, suites, baselines, cluster.toml: 4 MiB
  kKernelLog,  // a saved kernel log (--kernel-log): 64 MiB
};

inline constexpr size_t kMaxJsonDocumentBytes = size_t{256} << 20;
inline constexpr size_t kMaxStateDocumentBytes = size_t{16} << 20;
inline constexpr size_t kMaxTomlDocumentBytes = size_t{4} << 20;
inline constexpr size_t kMaxKernelLogBytes = size_t{64} << 20;

size_t MaxBytesOf(DocumentKind kind);
// "a JSON document", "a TOML file" ...
const char* DocumentKindName(DocumentKind kind);

// The whole file. NotFound "PATH: no such file"; Invalid "PATH: is a FIFO, expected a regular file
// (a JSON document)" or "PATH: larger than N bytes, the limit for a JSON document"; Io otherwise.
Result<std::string> ReadDocumentFile(const std::string& path, DocumentKind kind);
// The same with an explicit cap and a description of what was expected ("an NVML state file").
Result<std::string> ReadDocumentFile(const std::string& path, size_t max_bytes,
                                     std::string_view what);

// For readers that stream (training logs): the file opened for reading after the same checks,
// without the size cap (the caller bounds what it reads).
using DocumentStream = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;
Result<DocumentStream> OpenDocumentStream(const std::string& path, std::string_view what);

}  // namespace ys

#endif  // YARDSTICK_CORE_DOCUMENT_FILE_H_
