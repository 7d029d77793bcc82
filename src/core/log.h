// The one logging call. Logs go to stderr; results never go through here.
#ifndef YARDSTICK_CORE_LOG_H_
#define YARDSTICK_CORE_LOG_H_

#include <fmt/format.h>

#include <string_view>

namespace ys {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarn = 2, kError = 3 };

// Messages below this level are dropped. Default kWarn; `-v` lowers it. Not thread-safe to change
// while other threads log.
void SetLogLevel(LogLevel level);
LogLevel GetLogLevel();

void LogLine(LogLevel level, std::string_view message);

template <typename... Args>
void Log(LogLevel level, fmt::format_string<Args...> format, Args&&... args) {
  if (level < GetLogLevel()) return;
  LogLine(level, fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace ys

#endif  // YARDSTICK_CORE_LOG_H_
