// Reads a text file line by line in fixed-size chunks, so a multi-gigabyte log is never held in
// memory. '\n' and "\r\n" end a line; a lone '\r' (a progress bar redrawing itself) ends a
// segment that keeps the line's number, so numbers match `grep -n`. A line longer than
// `max_line_bytes` is cut there and the rest of it skipped (counted in cut_lines()).
// Not thread-safe; owns its FILE.
#ifndef YARDSTICK_VALIDATE_LINE_READER_H_
#define YARDSTICK_VALIDATE_LINE_READER_H_

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "core/status.h"

namespace ys::validate {

class LineReader {
 public:
  static constexpr size_t kDefaultMaxLine = 1 << 20;

  // `head`: bytes already read from the start of `file` (they come first).
  LineReader(std::unique_ptr<FILE, int (*)(FILE*)> file, std::string head, std::string name,
             size_t max_line_bytes = kDefaultMaxLine);

  // The next line or segment, valid until the next call. False at the end or on a read error
  // (then status() says which).
  bool Next(std::string_view* line, int64_t* line_no);
  const Status& status() const { return status_; }
  int64_t cut_lines() const { return cut_lines_; }
  uint64_t bytes_read() const { return bytes_read_; }

 private:
  bool Fill();

  std::unique_ptr<FILE, int (*)(FILE*)> file_;
  std::string name_;
  size_t max_line_;
  std::string buf_;
  size_t pos_ = 0;
  bool eof_ = false;
  std::string line_;
  int64_t line_no_ = 1;
  bool pending_newline_ = false;  // the previous segment ended in '\n'
  int64_t cut_lines_ = 0;
  uint64_t bytes_read_ = 0;
  Status status_;
};

}  // namespace ys::validate

#endif  // YARDSTICK_VALIDATE_LINE_READER_H_
