#include "core/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>

namespace ys {
namespace {

// "\r" to the start of the line and ESC [ K to erase it (ECMA-48 EL), so a shorter line leaves
// nothing of the longer one before it.
constexpr std::string_view kEraseLine = "\r\x1b[K";

void WriteToTerminal(int fd, std::string_view text) {
  while (!text.empty()) {
    ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // a closed terminal: progress is best effort
    text.remove_prefix(static_cast<size_t>(n));
  }
}

}  // namespace

ProgressReporter::ProgressReporter(int fd, bool quiet)
    : fd_(fd), tty_(::isatty(fd) == 1), enabled_(tty_ && !quiet) {}

void ProgressReporter::Start(std::string_view command) {
  std::lock_guard<std::mutex> lock(mu_);
  command_ = std::string(command);
  start_ = Clock::now();
}

void ProgressReporter::SetQuiet(bool quiet) {
  std::lock_guard<std::mutex> lock(mu_);
  enabled_ = tty_ && !quiet;
}

std::string ProgressReporter::FormatStep(std::string_view command, std::string_view phase,
                                         size_t index, size_t total, std::string_view unit,
                                         double elapsed_s) {
  std::string text = command.empty() ? "yardstick: " : fmt::format("yardstick {}: ", command);
  text += phase;
  if (total > 0) text += fmt::format(" {}/{}", index, total);
  if (!unit.empty()) text += fmt::format(" {}", unit);
  text += fmt::format(" ({:.1f} s)", elapsed_s);
  return text;
}

double ProgressReporter::ElapsedLocked() const {
  return std::chrono::duration<double>(Clock::now() - start_).count();
}

void ProgressReporter::WriteLocked(std::string_view text) {
  std::string out(kEraseLine);
  out += text;
  WriteToTerminal(fd_, out);
  shown_ = true;
}

void ProgressReporter::Step(std::string_view phase, size_t index, size_t total,
                            std::string_view unit) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!enabled_) return;
  WriteLocked(FormatStep(command_, phase, index, total, unit, ElapsedLocked()));
}

void ProgressReporter::Transient(std::string_view text) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!enabled_) return;
  std::string line = command_.empty() ? "yardstick: " : fmt::format("yardstick {}: ", command_);
  line += text;
  line += fmt::format(" ({:.1f} s)", ElapsedLocked());
  WriteLocked(line);
}

void ProgressReporter::Line(std::string_view text) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!enabled_) return;
  std::string out(kEraseLine);
  out += text;
  out += '\n';
  WriteToTerminal(fd_, out);
  shown_ = false;
}

void ProgressReporter::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!enabled_ || !shown_) return;
  WriteToTerminal(fd_, kEraseLine);
  shown_ = false;
}

ProgressReporter& Progress() {
  static ProgressReporter reporter(STDERR_FILENO);
  return reporter;
}

}  // namespace ys
