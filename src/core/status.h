// Status and Result<T>: how fallible functions report failure without exceptions.
//
// A Status is either OK or carries a code and a message that names what failed (a file, a field,
// a library call) and why. Result<T> holds a T or a non-OK Status. Both are cheap to move and
// are [[nodiscard]] so that a dropped error is a compile warning.
#ifndef YARDSTICK_CORE_STATUS_H_
#define YARDSTICK_CORE_STATUS_H_

#include <string>
#include <utility>
#include <variant>

namespace ys {

enum class StatusCode {
  kOk = 0,
  kNotFound,      // a file, device or library that is absent
  kInvalidInput,  // malformed content or arguments; the message says what was expected
  kPermissionDenied,
  kUnsupported,  // the platform or library cannot answer this question
  kIoError,
  kInternal,
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }
  static Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
  static Status Invalid(std::string m) { return {StatusCode::kInvalidInput, std::move(m)}; }
  static Status Denied(std::string m) { return {StatusCode::kPermissionDenied, std::move(m)}; }
  static Status Unsupported(std::string m) { return {StatusCode::kUnsupported, std::move(m)}; }
  static Status Io(std::string m) { return {StatusCode::kIoError, std::move(m)}; }
  static Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "not found: /sys/...: No such file or directory"
  std::string ToString() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

const char* StatusCodeName(StatusCode code);

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}         // NOLINT(google-explicit-constructor)
  Result(Status status) : v_(std::move(status)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }
  const T& value() const& { return std::get<T>(v_); }
  T& value() & { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }
  T value_or(T fallback) const { return ok() ? value() : fallback; }

 private:
  std::variant<T, Status> v_;
};

}  // namespace ys

#define YS_RETURN_IF_ERROR(expr)             \
  do {                                       \
    ::ys::Status ys_status_ = (expr);        \
    if (!ys_status_.ok()) return ys_status_; \
  } while (0)

#endif  // YARDSTICK_CORE_STATUS_H_
