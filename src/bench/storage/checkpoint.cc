// storage.checkpoint: checkpoint-style write and read throughput to the directory --path, as a
// training job writes and restores its checkpoint shards: N large files written sequentially in
// big blocks, each fsync'd (the write time includes the fsync), then read back and verified, then
// removed (also on error). Without --path the unit skips.
//
// Page cache: without root the cache cannot be dropped for the whole system. With --direct
// (O_DIRECT) writes and reads bypass it. Without it, after the timed write pass each file gets
// posix_fadvise(POSIX_FADV_DONTNEED), which drops its clean pages; the kernel may keep some, so
// the read may partly come from memory — the params say which method was used.
//
// Sizes: file size from --sizes (its largest size), else 1 GiB (quick: 256 MiB); 4 files (quick:
// 2); blocks of 16 MiB (or the file size when smaller), rounded up to 4 KiB for O_DIRECT.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "bench/benchmark.h"
#include "bench/deterministic_data.h"
#include "core/finding_codes.h"

namespace ys::bench {
namespace {

using Clock = std::chrono::steady_clock;
constexpr uint64_t kDirectAlignment = 4096;
constexpr uint64_t kMaxBlock = 16ULL << 20;
constexpr uint64_t kStampMagic = 0x5953434b50540000ULL;  // "YSCKPT\0\0"

std::string Errno(int err) { return std::strerror(err); }

// This process among all that may write into a shared --path at once: the ranks of a job on many
// nodes, where a process id alone repeats (containers start their processes with the same ids).
std::string WriterTag() {
  char host[256] = {};
  ::gethostname(host, sizeof(host) - 1);
  return std::string(host) + "-" + std::to_string(::getpid());
}

// Owns a file descriptor.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  // Closes now and reports the error close() gives (a deferred write error on some file systems).
  Status Close(const std::string& path) {
    int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) return Status::Io(path + ": close: " + Errno(errno));
    return Status::Ok();
  }

 private:
  int fd_;
};

// The checkpoint files of one iteration; removed when this goes out of scope, error or not.
class FileSet {
 public:
  ~FileSet() {
    for (const auto& p : paths_) ::unlink(p.c_str());
  }
  void Add(std::string path) { paths_.push_back(std::move(path)); }
  const std::vector<std::string>& paths() const { return paths_; }

 private:
  std::vector<std::string> paths_;
};

// An aligned buffer (O_DIRECT needs the memory aligned as well as offsets and lengths).
struct AlignedFree {
  void operator()(unsigned char* p) const { std::free(p); }
};
using Buffer = std::unique_ptr<unsigned char[], AlignedFree>;
Result<Buffer> AllocateBuffer(uint64_t bytes) {
  void* p = std::aligned_alloc(kDirectAlignment, bytes);
  if (p == nullptr)
    return Status::Io("cannot allocate a " + std::to_string(bytes) + "-byte I/O buffer");
  return Buffer(static_cast<unsigned char*>(p));
}

// The first 16 bytes of every block say which file and block it is, so a block written to the
// wrong place or read from a stale one is caught, not only corrupted bytes.
void Stamp(unsigned char* block, uint64_t file, uint64_t index) {
  uint64_t words[2] = {kStampMagic | file, index};
  std::memcpy(block, words, sizeof(words));
}

struct Layout {
  uint64_t file_bytes = 0;
  uint64_t block_bytes = 0;
  int files = 0;
  bool direct = false;
  uint64_t total() const { return file_bytes * static_cast<uint64_t>(files); }
};

// The directory exists, is a directory, takes a new file (and O_DIRECT when asked), and has the
// space for the files.
Status CheckDirectory(const std::string& path, const Layout& layout) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    return Status::Invalid("--path " + path + ": " + Errno(errno) +
                           " (expected a writable directory)");
  }
  if (!S_ISDIR(st.st_mode)) return Status::Invalid("--path " + path + ": not a directory");
  std::string probe = path + "/.yardstick-probe-" + WriterTag();
  int flags = O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC;
  int fd = ::open(probe.c_str(), flags, 0600);
  if (fd < 0) {
    return Status::Denied("--path " + path +
                          ": not writable: cannot create a file there: " + Errno(errno));
  }
  ::close(fd);
  ::unlink(probe.c_str());
  if (layout.direct) {
    fd = ::open(probe.c_str(), flags | O_DIRECT, 0600);
    int err = errno;
    if (fd >= 0) ::close(fd);
    ::unlink(probe.c_str());
    if (fd < 0) {
      return Status::Unsupported("--path " + path +
                                 ": the file system refuses O_DIRECT (--direct): " + Errno(err));
    }
  }
  struct statvfs vfs {};
  if (::statvfs(path.c_str(), &vfs) != 0)
    return Status::Io("--path " + path + ": statvfs: " + Errno(errno));
  uint64_t avail = static_cast<uint64_t>(vfs.f_bavail) * vfs.f_frsize;
  // Leave 5% of what is free untouched: other writers share the file system.
  if (layout.total() > avail / 20 * 19) {
    return Status::Unsupported(
        fmt::format("--path {}: needs {} bytes for {} files of {} bytes but the file system has {} "
                    "bytes available "
                    "(give a smaller file size with --sizes)",
                    path, layout.total(), layout.files, layout.file_bytes, avail));
  }
  return Status::Ok();
}

Status WriteAll(int fd, const unsigned char* data, uint64_t bytes, const std::string& path) {
  while (bytes > 0) {
    ssize_t n = ::write(fd, data, bytes);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Status::Io(path + ": write: " + (n < 0 ? Errno(errno) : "wrote nothing"));
    data += n;
    bytes -= static_cast<uint64_t>(n);
  }
  return Status::Ok();
}

Status ReadAll(int fd, unsigned char* data, uint64_t bytes, const std::string& path) {
  while (bytes > 0) {
    ssize_t n = ::read(fd, data, bytes);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::Io(path + ": read: " + Errno(errno));
    if (n == 0) return Status::Io(path + ": read: file shorter than written");
    data += n;
    bytes -= static_cast<uint64_t>(n);
  }
  return Status::Ok();
}

// Where the data read back first differed from what was written.
struct ReadBackMismatch {
  std::string path;
  uint64_t offset = 0;
  uint64_t bad_blocks = 0;
};

struct PassTimes {
  double write_seconds = 0;
  double read_seconds = 0;
  std::optional<ReadBackMismatch> mismatch;
};

Result<PassTimes> RunPass(const std::string& dir, const Layout& layout, int pass,
                          unsigned char* pattern, unsigned char* readback) {
  FileSet files;
  for (int f = 0; f < layout.files; ++f) {
    files.Add(fmt::format("{}/yardstick-checkpoint-{}-{}-{}.bin", dir, WriterTag(), pass, f));
  }
  const int direct = layout.direct ? O_DIRECT : 0;
  const uint64_t blocks = layout.file_bytes / layout.block_bytes;
  PassTimes t;
  auto w0 = Clock::now();
  for (int f = 0; f < layout.files; ++f) {
    const std::string& path = files.paths()[f];
    Fd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | direct, 0600));
    if (fd.get() < 0) return Status::Io(path + ": open for writing: " + Errno(errno));
    for (uint64_t b = 0; b < blocks; ++b) {
      Stamp(pattern, static_cast<uint64_t>(f), b);
      YS_RETURN_IF_ERROR(WriteAll(fd.get(), pattern, layout.block_bytes, path));
    }
    if (::fsync(fd.get()) != 0) return Status::Io(path + ": fsync: " + Errno(errno));
    YS_RETURN_IF_ERROR(fd.Close(path));
  }
  t.write_seconds = std::chrono::duration<double>(Clock::now() - w0).count();
  if (!layout.direct) {
    for (const auto& path : files.paths()) {
      Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
      if (fd.get() >= 0) ::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_DONTNEED);
    }
  }
  // The read time excludes the verification, which runs between reads on this thread.
  double verify_seconds = 0;
  auto r0 = Clock::now();
  for (int f = 0; f < layout.files; ++f) {
    const std::string& path = files.paths()[f];
    Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | direct));
    if (fd.get() < 0) return Status::Io(path + ": open for reading: " + Errno(errno));
    for (uint64_t b = 0; b < blocks; ++b) {
      YS_RETURN_IF_ERROR(ReadAll(fd.get(), readback, layout.block_bytes, path));
      auto v0 = Clock::now();
      Stamp(pattern, static_cast<uint64_t>(f), b);
      if (std::memcmp(pattern, readback, layout.block_bytes) != 0) {
        if (!t.mismatch)
          t.mismatch = ReadBackMismatch{.path = path, .offset = b * layout.block_bytes};
        ++t.mismatch->bad_blocks;
      }
      verify_seconds += std::chrono::duration<double>(Clock::now() - v0).count();
    }
  }
  t.read_seconds = std::chrono::duration<double>(Clock::now() - r0).count() - verify_seconds;
  return t;
}

// The files, their size and the block size of one pass: --sizes (its largest size) or the
// profile's default per file, blocks of up to kMaxBlock rounded up to kDirectAlignment, the file
// size rounded up to whole blocks.
Layout CheckpointLayout(const BenchContext& ctx) {
  Layout layout{.direct = ctx.options().direct_io};
  layout.file_bytes = ctx.options().sizes ? ctx.options().sizes->max_bytes
                                          : (ctx.quick() ? 256ULL << 20 : 1ULL << 30);
  layout.files = ctx.quick() ? 2 : 4;
  layout.block_bytes = std::min(kMaxBlock, layout.file_bytes);
  layout.block_bytes =
      (layout.block_bytes + kDirectAlignment - 1) / kDirectAlignment * kDirectAlignment;
  layout.file_bytes =
      (layout.file_bytes + layout.block_bytes - 1) / layout.block_bytes * layout.block_bytes;
  return layout;
}

// The write and read rates of the timed passes, and the first read-back mismatch of any pass.
struct CheckpointRates {
  std::vector<double> write_gbps, read_gbps;
  std::optional<ReadBackMismatch> mismatch;
};

// Runs the warm-up passes, then the timed ones, through the two block buffers.
Result<CheckpointRates> RunCheckpointPasses(const std::string& dir, const Layout& layout,
                                            int warmup, int iters, unsigned char* pattern,
                                            unsigned char* readback) {
  CheckpointRates rates;
  for (int pass = 0; pass < warmup + iters; ++pass) {
    auto t = RunPass(dir, layout, pass, pattern, readback);
    if (!t.ok()) return t.status();
    if (t->mismatch && !rates.mismatch) rates.mismatch = t->mismatch;
    if (pass < warmup) continue;
    rates.write_gbps.push_back(static_cast<double>(layout.total()) / t->write_seconds / 1e9);
    rates.read_gbps.push_back(static_cast<double>(layout.total()) / t->read_seconds / 1e9);
  }
  return rates;
}

// YS-BENCH-012 for data read back from `dir` that differs from what was written.
Finding ReadBackFinding(const std::string& dir, const ReadBackMismatch& mismatch,
                        const Layout& layout) {
  Finding f = MakeFinding(
      "YS-BENCH-012", dir,
      fmt::format("data read back from {} differs from what was written", mismatch.path));
  f.evidence = {{"file", mismatch.path},
                {"first_bad_offset", std::to_string(mismatch.offset)},
                {"bad_blocks", std::to_string(mismatch.bad_blocks)},
                {"block_bytes", std::to_string(layout.block_bytes)}};
  f.fix = "check the kernel log for I/O errors on the device behind " + dir +
          " and the file system's health (e.g. smartctl, the storage vendor's tools); rerun";
  f.reference = "checkpoint integrity: a restore must read what was saved";
  return f;
}

// The write and read rows of the table, from the write and read measurements.
ResultTable CheckpointTable(const std::string& dir, const Layout& layout, const Measurement& wm,
                            const Measurement& rm) {
  ResultTable table{
      .title = "checkpoint write/read to " + dir,
      .columns = {"op", "files", "file size", "block", "direct", "GB/s median", "min", "max"},
      .rows = {}};
  for (const Measurement* m : {&wm, &rm}) {
    table.rows.push_back({m == &wm ? "write" : "read", std::to_string(layout.files),
                          FormatByteSize(layout.file_bytes), FormatByteSize(layout.block_bytes),
                          layout.direct ? "yes" : "no", fmt::format("{:.2f}", m->value),
                          fmt::format("{:.2f}", m->stats.min),
                          fmt::format("{:.2f}", m->stats.max)});
  }
  return table;
}

class CheckpointBenchmark final : public Benchmark {
 public:
  BenchmarkResult Run(const BenchContext& ctx) const override {
    const std::string& dir = ctx.options().storage_path;
    if (dir.empty())
      return BenchmarkResult::Skip("no --path: give a directory on the checkpoint file system");
    const Layout layout = CheckpointLayout(ctx);
    if (Status s = CheckDirectory(dir, layout); !s.ok()) return BenchmarkResult::Error(s);

    auto pattern = AllocateBuffer(layout.block_bytes);
    if (!pattern.ok()) return BenchmarkResult::Error(pattern.status());
    auto readback = AllocateBuffer(layout.block_bytes);
    if (!readback.ok()) return BenchmarkResult::Error(readback.status());
    FillDeterministic(
        std::span<double>(reinterpret_cast<double*>(pattern->get()), layout.block_bytes / 8), 7);

    int warmup = ctx.Warmup(0);
    int iters = ctx.Iters(ctx.quick() ? 1 : 3);
    auto rates = RunCheckpointPasses(dir, layout, warmup, iters, pattern->get(), readback->get());
    if (!rates.ok()) return BenchmarkResult::Error(rates.status());
    const std::optional<ReadBackMismatch>& mismatch = rates->mismatch;

    std::string cache =
        layout.direct
            ? "O_DIRECT (page cache bypassed)"
            : "posix_fadvise(DONTNEED) after fsync; pages the kernel keeps may be read from memory";
    std::map<std::string, std::string> params{{"backend", "cpu"},
                                              {"device", "storage"},
                                              {"path", dir},
                                              {"file_bytes", std::to_string(layout.file_bytes)},
                                              {"files", std::to_string(layout.files)},
                                              {"block_bytes", std::to_string(layout.block_bytes)},
                                              {"direct", layout.direct ? "true" : "false"},
                                              {"cache", cache}};
    BenchmarkResult r;
    auto w = params;
    w["timing"] = "open, write, fsync, close of every file";
    r.measurements.push_back(MakeMeasurement("storage.checkpoint.write", "GB/s", Better::kHigher,
                                             std::move(rates->write_gbps), std::move(w)));
    auto rd = params;
    rd["timing"] = "open, read, close of every file (verification excluded)";
    r.measurements.push_back(MakeMeasurement("storage.checkpoint.read", "GB/s", Better::kHigher,
                                             std::move(rates->read_gbps), std::move(rd)));
    r.Note("path", dir);
    r.Note(
        "layout",
        fmt::format("{} files x {} in {} blocks{}", layout.files, FormatByteSize(layout.file_bytes),
                    FormatByteSize(layout.block_bytes), layout.direct ? ", O_DIRECT" : ""));
    r.Note("read cache", cache);
    if (mismatch) r.Add(ReadBackFinding(dir, *mismatch, layout));
    const Measurement& wm = r.measurements[0];
    const Measurement& rm = r.measurements[1];
    r.summary =
        fmt::format("write {:.2f} GB/s, read {:.2f} GB/s ({} files x {}{}, fsync'd){}", wm.value,
                    rm.value, layout.files, FormatByteSize(layout.file_bytes),
                    layout.direct ? ", O_DIRECT" : "", mismatch ? "; READ-BACK MISMATCH" : "");
    r.tables.push_back(CheckpointTable(dir, layout, wm, rm));
    return r;
  }
};

}  // namespace

YS_REGISTER(
    CheckpointBenchmark,
    {.id = "storage.checkpoint",
     .summary = "Checkpoint-style fsync'd write and verified read throughput to --path (GB/s)",
     .needs = {Need::kLiveHost},
     .codes = {{"YS-BENCH-012", Severity::kFail,
                "checkpoint files read back differ from what was written"}},
     .measures = {
         .kind = FigureKind::kStorage,
         .figures = {{"write", "GB/s", Better::kHigher}, {"read", "GB/s", Better::kHigher}},
         .identity = {"backend", "device", "file_bytes", "files", "block_bytes", "direct"}}})

}  // namespace ys::bench
