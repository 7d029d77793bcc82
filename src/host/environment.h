// Environment: the process environment a check judges, injectable. Production reads the real
// environment; a fixture tree carries it in <root>/proc/self/environ (NUL-separated, as Linux
// writes it); tests may build one from a map.
#ifndef YARDSTICK_HOST_ENVIRONMENT_H_
#define YARDSTICK_HOST_ENVIRONMENT_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace ys::host {

class Environment {
 public:
  Environment() = default;
  explicit Environment(const std::map<std::string, std::string>& vars)
      : vars_(vars.begin(), vars.end()) {}

  static Environment FromProcess();
  // Parses NUL- or newline-separated NAME=VALUE records; records without '=' are ignored.
  static Environment FromEnvironBlock(std::string_view block);

  std::optional<std::string> Get(std::string_view name) const;
  bool Has(std::string_view name) const { return Get(name).has_value(); }
  const std::map<std::string, std::string, std::less<>>& vars() const { return vars_; }
  void Set(std::string name, std::string value) { vars_[std::move(name)] = std::move(value); }

  // NUL-separated block for a fixture tree.
  std::string ToEnvironBlock() const;

 private:
  std::map<std::string, std::string, std::less<>> vars_;
};

}  // namespace ys::host

#endif  // YARDSTICK_HOST_ENVIRONMENT_H_
