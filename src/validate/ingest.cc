#include "validate/ingest.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <istream>
#include <streambuf>

#include "core/document_file.h"
#include "core/text.h"
#include "validate/inference_result.h"
#include "validate/line_reader.h"
#include "validate/run_evaluation.h"

namespace ys::validate {
namespace {

constexpr size_t kSniffBytes = 1 << 16;
constexpr size_t kTextBeforeNul = 512;

// A FILE read through std::istream: `head` (bytes already read) first, then the rest of the file,
// ending early once more than max_bytes came in all.
class BoundedFileBuf : public std::streambuf {
 public:
  BoundedFileBuf(std::FILE* file, std::string head, uint64_t max_bytes)
      : file_(file), head_(std::move(head)), max_bytes_(max_bytes), total_(head_.size()) {
    setg(head_.data(), head_.data(), head_.data() + head_.size());
  }
  bool exceeded() const { return exceeded_; }

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    if (exceeded_) return traits_type::eof();
    size_t n = std::fread(buf_.data(), 1, buf_.size(), file_);
    if (n == 0) return traits_type::eof();
    total_ += n;
    if (total_ > max_bytes_) {
      exceeded_ = true;
      return traits_type::eof();
    }
    setg(buf_.data(), buf_.data(), buf_.data() + n);
    return traits_type::to_int_type(*gptr());
  }

 private:
  std::FILE* file_;
  std::string head_;
  uint64_t max_bytes_;
  uint64_t total_;
  bool exceeded_ = false;
  std::array<char, 1 << 16> buf_;
};

// Does the text start with a JSON object (or an array of objects)?
bool LooksLikeJson(std::string_view head) {
  std::string_view t = Trim(head);
  if (StartsWith(t, "\xEF\xBB\xBF")) t = Trim(t.substr(3));  // UTF-8 byte-order mark
  if (t.empty()) return false;
  if (t.front() == '{') return true;
  if (t.front() != '[') return false;
  std::string_view inner = Trim(t.substr(1));
  return !inner.empty() && (inner.front() == '{' || inner.front() == ']');
}

// Feeds every line to the parser of the forced format, or (auto) to all training parsers until
// one line's signature decides the format.
class AnyFormatParser {
 public:
  explicit AnyFormatParser(LogFormat forced) : forced_(forced) {
    if (forced != LogFormat::kAuto) {
      chosen_ = MakeLogParser(forced);
    } else {
      for (LogFormat f : {LogFormat::kNemo2, LogFormat::kMegatron, LogFormat::kTorchtitan}) {
        candidates_[Index(f)] = MakeLogParser(f);
      }
    }
  }

  void Feed(std::string_view line, int64_t line_no) {
    last_line_ = line_no;
    if (line.find('\0') != std::string_view::npos) {
      if (nul_lines_++ == 0) first_nul_line_ = line_no;
      return;
    }
    if (chosen_) {
      chosen_->Feed(line, line_no);
      return;
    }
    for (auto& p : candidates_) p->Feed(line, line_no);
    detector_.Feed(line);
    if (std::optional<LogFormat> f = detector_.detected()) {
      chosen_ = std::move(candidates_[Index(*f)]);
    }
  }

  ParsedLog Finish(int64_t cut_lines) {
    ParsedLog out;
    if (chosen_) {
      out = chosen_->Finish();
    } else {
      out.format = forced_;
    }
    out.lines = std::max(out.lines, last_line_);
    if (nul_lines_ > 0) {
      out.notes.push_back(fmt::format(
          "{} line(s) hold NUL bytes (first: line {}; a file cut by a crash is often padded so) "
          "and were skipped",
          nul_lines_, first_nul_line_));
    }
    if (cut_lines > 0) {
      out.notes.push_back(fmt::format("{} line(s) longer than {} bytes were cut", cut_lines,
                                      LineReader::kDefaultMaxLine));
    }
    return out;
  }

 private:
  static size_t Index(LogFormat f) {
    return f == LogFormat::kNemo2 ? 0 : f == LogFormat::kMegatron ? 1 : 2;
  }
  LogFormat forced_;
  std::unique_ptr<LogParser> chosen_;
  std::array<std::unique_ptr<LogParser>, 3> candidates_;
  FormatDetector detector_;
  int64_t last_line_ = 0;
  int64_t nul_lines_ = 0;
  int64_t first_nul_line_ = 0;
};

}  // namespace

std::string BinaryReason(std::string_view head) {
  head = head.substr(0, kSniffBytes);
  // A NUL at the start is a binary file; NULs after some text are usually the padding a crash
  // leaves at the end of a log on a network file system (those lines are skipped, and noted).
  size_t nul = head.find('\0');
  if (nul != std::string_view::npos && nul < kTextBeforeNul) {
    return fmt::format("NUL byte at offset {}", nul);
  }
  size_t control = 0;
  for (char ch : head) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (c != 0 && c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' && c != '\v' &&
        c != '\b' && c != 0x1b) {
      ++control;
    }
  }
  if (!head.empty() && control * 100 > head.size()) {
    return fmt::format("{} control bytes in the first {}", control, head.size());
  }
  return {};
}

Result<WorkloadRun> IngestText(std::string_view text, const IngestOptions& o,
                               std::string_view name) {
  if (std::string why = BinaryReason(text); !why.empty()) {
    return Status::Invalid(
        fmt::format("{}: binary data ({}); expected a text training log or a "
                    "serving-benchmark JSON",
                    name, why));
  }
  bool json = o.format == LogFormat::kInferenceJson ||
              (o.format == LogFormat::kAuto && LooksLikeJson(text.substr(0, kSniffBytes)));
  if (json) {
    Result<InferenceResult> parsed = ParseServingResultsText(text, name);
    if (!parsed.ok()) return parsed.status();
    return EvaluateInference(std::move(*parsed), o, name);
  }
  AnyFormatParser parser(o.format);
  ForEachLine(text, [&](std::string_view line, int64_t no) { parser.Feed(line, no); });
  return EvaluateTrainingLog(parser.Finish(0), o, name);
}

Result<WorkloadRun> IngestLog(const std::string& path, const IngestOptions& options) {
  // A regular file only: a FIFO or device is refused here instead of blocking or never ending.
  auto f = OpenDocumentStream(path, "a training log or a serving-benchmark JSON");
  if (!f.ok()) {
    if (f.status().code() == StatusCode::kNotFound) {
      return Status::NotFound(
          fmt::format("{}: no such file; expected a training log or a "
                      "serving-benchmark JSON",
                      path));
    }
    return f.status();
  }
  struct stat st {};
  if (::fstat(::fileno(f->get()), &st) == 0 &&
      static_cast<uint64_t>(st.st_size) > options.max_bytes) {
    return Status::Invalid(fmt::format("{}: {} bytes, over the {}-byte limit for one log", path,
                                       st.st_size, options.max_bytes));
  }
  IngestOptions o = options;
  if (o.read_llmb_config && !o.config) {
    std::string cfg = LlmbConfigPathFor(path);
    struct stat cst {};
    if (!cfg.empty() && ::stat(cfg.c_str(), &cst) == 0) {
      Result<LlmbConfig> c = ReadLlmbConfig(cfg);
      if (!c.ok()) return c.status();
      o.config = std::move(*c);
    }
  }

  std::string head(kSniffBytes, '\0');
  head.resize(std::fread(head.data(), 1, head.size(), f->get()));
  if (std::ferror(f->get())) {
    return Status::Io(fmt::format("{}: read error: {}", path, std::strerror(errno)));
  }
  if (std::string why = BinaryReason(head); !why.empty()) {
    return Status::Invalid(
        fmt::format("{}: binary data ({}); expected a text training log or a "
                    "serving-benchmark JSON",
                    path, why));
  }
  bool json = o.format == LogFormat::kInferenceJson ||
              (o.format == LogFormat::kAuto && LooksLikeJson(head));
  if (json) {
    // Streamed through the SAX reader from the file already open, bounded by the log limit.
    BoundedFileBuf buf(f->get(), std::move(head), o.max_bytes);
    std::istream in(&buf);
    Result<InferenceResult> parsed = ParseServingResults(in, path);
    if (buf.exceeded()) {
      return Status::Invalid(
          fmt::format("{}: grew past the {}-byte limit while being read", path, o.max_bytes));
    }
    if (std::ferror(f->get())) return Status::Io(fmt::format("{}: read error", path));
    if (!parsed.ok()) return parsed.status();
    return EvaluateInference(std::move(*parsed), o, path);
  }

  LineReader reader(std::move(*f), std::move(head), path);
  AnyFormatParser parser(o.format);
  std::string_view line;
  int64_t line_no = 0;
  while (reader.Next(&line, &line_no)) {
    parser.Feed(line, line_no);
    if (reader.bytes_read() > o.max_bytes) {
      return Status::Invalid(
          fmt::format("{}: grew past the {}-byte limit while being read", path, o.max_bytes));
    }
  }
  if (!reader.status().ok()) return reader.status();
  return EvaluateTrainingLog(parser.Finish(reader.cut_lines()), o, path);
}

}  // namespace ys::validate
