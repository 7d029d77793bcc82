// The identity text of a figure, as the lean reader (fleet/reader.h) interns shapes by it: the
// sized name, the sized unit, the direction ('h' higher is better, 'l' lower), then the flat
// params kept for the fleet as sized key, value pairs in document order. "Sized" is a native
// uint32_t byte count followed by the bytes, so no text needs escaping and parts are compared by
// length first. Building it, comparing a figure's parts with one, reading its params back, and
// the FigureShape it derives. Thread-safe: no shared state.
#ifndef YARDSTICK_FLEET_FIGURE_IDENTITY_H_
#define YARDSTICK_FLEET_FIGURE_IDENTITY_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "fleet/reader.h"
#include "fleet/scanner.h"

namespace ys::fleet {

// Appends `s` sized.
inline void AppendSized(std::string& to, std::string_view s) {
  auto n = static_cast<uint32_t>(s.size());
  to.append(reinterpret_cast<const char*>(&n), sizeof n);
  to.append(s);
}

// The sized part at the front of `from`, which it drops. `from` must start with a whole one.
inline std::string_view TakeSized(std::string_view& from) {
  uint32_t n = 0;
  std::memcpy(&n, from.data(), sizeof n);
  std::string_view s = from.substr(sizeof n, n);
  from.remove_prefix(sizeof n + n);
  return s;
}

// Whether `from` holds the sized `part` at `at`.
inline bool HasSizedAt(std::string_view from, size_t at, std::string_view part) {
  uint32_t n = 0;
  if (from.size() < at + sizeof n + part.size()) return false;
  std::memcpy(&n, from.data() + at, sizeof n);
  return n == part.size() && SameBytes(from.data() + at + sizeof n, part.data(), n);
}

// Whether `identity` (a well-formed one, as Intern keeps) starts with the sized name, the sized
// unit and the direction, followed by flat params of `flat_size` bytes.
bool HasIdentityHead(std::string_view identity, std::string_view name, std::string_view unit,
                     char direction, size_t flat_size);

// The flat params of a well-formed identity (one Intern keeps).
std::string_view FlatOfIdentity(std::string_view identity);

// The shape of a figure of `name`, `unit` and `better` whose kept params are `flat` (sized
// pairs; the last of a repeated param wins), with what fleet analysis derives from them.
FigureShape MakeShape(std::string_view name, std::string_view unit, std::string_view flat,
                      Better better);

}  // namespace ys::fleet

#endif  // YARDSTICK_FLEET_FIGURE_IDENTITY_H_
