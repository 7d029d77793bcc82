#include "validate/line_reader.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

namespace ys::validate {

namespace {
constexpr size_t kChunk = 1 << 16;
}

LineReader::LineReader(std::unique_ptr<FILE, int (*)(FILE*)> file, std::string head,
                       std::string name, size_t max_line_bytes)
    : file_(std::move(file)),
      name_(std::move(name)),
      max_line_(max_line_bytes),
      buf_(std::move(head)) {
  bytes_read_ = buf_.size();
}

bool LineReader::Fill() {
  if (eof_) return false;
  buf_.erase(0, pos_);
  pos_ = 0;
  size_t old = buf_.size();
  buf_.resize(old + kChunk);
  size_t n = std::fread(buf_.data() + old, 1, kChunk, file_.get());
  buf_.resize(old + n);
  bytes_read_ += n;
  if (n == 0) {
    eof_ = true;
    if (std::ferror(file_.get())) {
      status_ = Status::Io(fmt::format("{}: read error after {} bytes: {}", name_, bytes_read_,
                                       std::strerror(errno)));
    }
    return false;
  }
  return true;
}

bool LineReader::Next(std::string_view* line, int64_t* line_no) {
  if (pending_newline_) {
    ++line_no_;
    pending_newline_ = false;
  }
  line_.clear();
  bool cut = false;
  while (true) {
    if (pos_ >= buf_.size() && !Fill()) {
      if (!status_.ok()) return false;
      if (line_.empty() && !cut) return false;
      *line = line_;
      *line_no = line_no_;
      pending_newline_ = true;
      return true;
    }
    size_t end = pos_;
    while (end < buf_.size() && buf_[end] != '\n' && buf_[end] != '\r') ++end;
    size_t take = end - pos_;
    if (line_.size() < max_line_) {
      size_t room = max_line_ - line_.size();
      if (take > room) {
        if (!cut) ++cut_lines_;
        cut = true;
      }
      line_.append(buf_, pos_, std::min(take, room));
    } else if (take > 0 && !cut) {
      ++cut_lines_;
      cut = true;
    }
    pos_ = end;
    if (end == buf_.size()) continue;  // line continues in the next chunk
    char term = buf_[pos_++];
    if (term == '\r') {
      // "\r\n" is one terminator; look ahead (the '\n' may be in the next chunk).
      if (pos_ >= buf_.size()) Fill();
      if (pos_ < buf_.size() && buf_[pos_] == '\n') {
        ++pos_;
        pending_newline_ = true;
      }
    } else {
      pending_newline_ = true;
    }
    *line = line_;
    *line_no = line_no_;
    return true;
  }
}

}  // namespace ys::validate
