// A JSON value held by a struct whose header sees only nlohmann/json_fwd.hpp (the full header
// costs about a second of every file that includes it). JsonBox<J> owns at most one J on the
// heap, like std::optional<J>: empty by default, `has_value()`, `*box`. It copies deeply, so the
// struct keeps value semantics. A file that stores, copies or reads the value includes
// nlohmann/json.hpp; one that only moves or destroys the struct need not (the deleter is
// chosen where the value is stored). `*box` on an empty box stores a null value first (const:
// reads a null).
#ifndef YARDSTICK_CORE_JSON_BOX_H_
#define YARDSTICK_CORE_JSON_BOX_H_

#include <memory>
#include <type_traits>
#include <utility>

namespace ys {

template <typename J>
class JsonBox {
 public:
  JsonBox() = default;
  template <typename T>
  requires(!std::is_same_v<std::remove_cvref_t<T>, JsonBox>) JsonBox(T&& value)
      : value_(new J(std::forward<T>(value)), &Delete) {}  // NOLINT: implicit
  JsonBox(const JsonBox& other) : value_(Copy(other)) {}
  JsonBox(JsonBox&&) noexcept = default;
  JsonBox& operator=(const JsonBox& other) {
    if (this != &other) value_ = Copy(other);
    return *this;
  }
  JsonBox& operator=(JsonBox&&) noexcept = default;
  ~JsonBox() = default;

  bool has_value() const { return value_ != nullptr; }
  explicit operator bool() const { return has_value(); }
  void reset() { value_.reset(); }

  J& operator*() {
    if (!value_) value_ = Owned(new J(), &Delete);
    return *value_;
  }
  const J& operator*() const {
    static const J kNull;
    return value_ ? *value_ : kNull;
  }
  J* operator->() { return &**this; }
  const J* operator->() const { return &**this; }

 private:
  using Owned = std::unique_ptr<J, void (*)(J*)>;
  static void Delete(J* p) { delete p; }
  static Owned Copy(const JsonBox& other) {
    return other.value_ ? Owned(new J(*other.value_), &Delete) : Owned(nullptr, nullptr);
  }
  Owned value_{nullptr, nullptr};
};

}  // namespace ys

#endif  // YARDSTICK_CORE_JSON_BOX_H_
