#include "core/log.h"

#include <atomic>
#include <cstdio>
#include <mutex>

#include "core/progress.h"
#include "core/text.h"

namespace ys {
namespace {
std::atomic<LogLevel> g_level{LogLevel::kWarn};
std::mutex g_mu;
}  // namespace

void SetLogLevel(LogLevel level) { g_level = level; }
LogLevel GetLogLevel() { return g_level; }

void LogLine(LogLevel level, std::string_view message) {
  static constexpr const char* kNames[] = {"debug", "info", "warning", "error"};
  std::string safe = SanitizeForDisplay(message);
  std::lock_guard<std::mutex> lock(g_mu);
  Progress().Clear();  // a log line never shares the progress line
  std::fprintf(stderr, "yardstick: %s: %s\n", kNames[static_cast<int>(level)], safe.c_str());
}

}  // namespace ys
