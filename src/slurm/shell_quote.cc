#include "slurm/shell_quote.h"

#include <fmt/format.h>

namespace ys::slurm {

namespace {

bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// Shown in errors: the value with control characters made visible, cut to a readable length.
std::string Printable(std::string_view v) {
  std::string out;
  for (char c : v.substr(0, 80)) {
    unsigned char u = static_cast<unsigned char>(c);
    out += (u < 0x20 || u == 0x7f) ? fmt::format("\\x{:02x}", u) : std::string(1, c);
  }
  return v.size() > 80 ? out + "..." : out;
}

}  // namespace

Result<std::string> ShellQuote(std::string_view value) {
  std::string out = "'";
  for (char c : value) {
    if (c == '\0')
      return Status::Invalid("a value with a NUL byte cannot be placed in a shell script");
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  out += '\'';
  return out;
}

Status ValidateSbatchToken(std::string_view what, std::string_view value) {
  bool ok = !value.empty() && value.size() <= 4096;
  for (char c : value) {
    ok = ok && (IsAlnum(c) || c == '.' || c == '_' || c == '-' || c == '/' || c == ':' ||
                c == '=' || c == ',' || c == '+' || c == '@');
  }
  if (ok) return Status::Ok();
  return Status::Invalid(fmt::format(
      "{} '{}': not safe in an #SBATCH line (sbatch reads those lines itself, without a shell's "
      "quoting); use only letters, digits and . _ - / : = , + @",
      what, Printable(value)));
}

Status ValidateEnvName(std::string_view what, std::string_view value) {
  bool ok = !value.empty() && !(value[0] >= '0' && value[0] <= '9');
  for (char c : value) ok = ok && (IsAlnum(c) || c == '_');
  if (ok) return Status::Ok();
  return Status::Invalid(
      fmt::format("{} '{}': an environment variable name must match [A-Za-z_][A-Za-z0-9_]*", what,
                  Printable(value)));
}

}  // namespace ys::slurm
