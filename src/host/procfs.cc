#include "host/procfs.h"

#include "core/text.h"

namespace ys::host {

std::map<std::string, std::string> ParseColonPairs(std::string_view text) {
  std::map<std::string, std::string> out;
  for (std::string_view line : SplitLines(text)) {
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = Trim(line.substr(0, colon));
    if (key.empty()) continue;
    out[std::string(key)] = std::string(Trim(line.substr(colon + 1)));
  }
  return out;
}

Result<std::map<std::string, uint64_t>> ParseMeminfo(std::string_view text) {
  std::map<std::string, uint64_t> out;
  for (std::string_view line : SplitLines(text)) {
    if (Trim(line).empty()) continue;
    if (StartsWith(line, "Node ")) {
      // "Node 0 MemTotal: ..." -> drop "Node N "
      auto parts = SplitWhitespace(line);
      if (parts.size() < 3)
        return Status::Invalid("malformed per-node meminfo line: " + std::string(line));
      line = line.substr(line.find(parts[2]));
    }
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
      return Status::Invalid("expected \"Key: value [kB]\", got \"" + std::string(line) + "\"");
    }
    auto fields = SplitWhitespace(line.substr(colon + 1));
    if (fields.empty()) return Status::Invalid("missing value in \"" + std::string(line) + "\"");
    auto v = ParseUint(fields[0]);
    if (!v) {
      return Status::Invalid("expected a number in \"" + std::string(line) + "\"");
    }
    out[std::string(Trim(line.substr(0, colon)))] = *v;
  }
  if (out.empty()) return Status::Invalid("no \"Key: value\" lines");
  return out;
}

Result<std::string> ParseSelector(std::string_view text) {
  for (std::string_view tok : SplitWhitespace(text)) {
    if (tok.size() > 2 && tok.front() == '[' && tok.back() == ']') {
      return std::string(tok.substr(1, tok.size() - 2));
    }
  }
  return Status::Invalid("expected a selector like \"always [madvise] never\", got \"" +
                         std::string(Trim(text).substr(0, 80)) + "\"");
}

Result<NumberedState> ParseNumberedState(std::string_view text) {
  std::string_view t = Trim(text);
  size_t colon = t.find(':');
  if (colon == std::string_view::npos) {
    return Status::Invalid("expected \"N: NAME\", got \"" + std::string(t.substr(0, 80)) + "\"");
  }
  auto n = ParseInt(t.substr(0, colon));
  if (!n)
    return Status::Invalid("expected \"N: NAME\", got \"" + std::string(t.substr(0, 80)) + "\"");
  return NumberedState{static_cast<int>(*n), std::string(Trim(t.substr(colon + 1)))};
}

KernelCmdline KernelCmdline::Parse(std::string_view text) {
  KernelCmdline c;
  std::string cur;
  bool in_quote = false, have = false;
  auto flush = [&] {
    if (have) c.tokens_.push_back(cur);
    cur.clear();
    have = false;
  };
  for (char ch : text) {
    if (ch == '"') {
      in_quote = !in_quote;
      have = true;
      continue;
    }
    if (!in_quote && (ch == ' ' || ch == '\t' || ch == '\n')) {
      flush();
      continue;
    }
    cur.push_back(ch);
    have = true;
  }
  flush();
  for (size_t i = 0; i < c.tokens_.size(); ++i) {
    if (c.tokens_[i] == "--") {
      c.tokens_.resize(i);
      break;
    }
  }
  return c;
}

bool KernelCmdline::Has(std::string_view token) const {
  for (const auto& t : tokens_) {
    if (t == token) return true;
  }
  return false;
}

std::optional<std::string> KernelCmdline::Value(std::string_view key) const {
  std::optional<std::string> out;
  for (const auto& t : tokens_) {
    std::string_view tv(t);
    if (tv == key) {
      out = "";
    } else if (tv.size() > key.size() && StartsWith(tv, key) && tv[key.size()] == '=') {
      out = std::string(tv.substr(key.size() + 1));
    }
  }
  return out;
}

Result<std::vector<CpuInfoEntry>> ParseCpuInfo(std::string_view text) {
  std::vector<CpuInfoEntry> out;
  CpuInfoEntry cur;
  bool in_block = false;
  auto finish = [&]() -> Status {
    if (!in_block) return Status::Ok();
    auto it = cur.fields.find("processor");
    if (it == cur.fields.end()) {
      // Arm prints a trailing block of SoC-wide fields ("Hardware", "Serial") without one.
      if (!out.empty()) {
        for (auto& [k, v] : cur.fields) out.back().fields.emplace(k, v);
        cur = CpuInfoEntry();
        in_block = false;
        return Status::Ok();
      }
      return Status::Invalid("expected a \"processor\" field in every block");
    }
    auto n = ParseInt(it->second);
    if (!n)
      return Status::Invalid("expected a number after \"processor:\", got \"" + it->second + "\"");
    cur.processor = static_cast<int>(*n);
    out.push_back(std::move(cur));
    cur = CpuInfoEntry();
    in_block = false;
    return Status::Ok();
  };
  for (std::string_view line : SplitLines(text)) {
    if (Trim(line).empty()) {
      YS_RETURN_IF_ERROR(finish());
      continue;
    }
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
      return Status::Invalid("expected \"field : value\", got \"" +
                             std::string(line.substr(0, 80)) + "\"");
    }
    cur.fields[std::string(Trim(line.substr(0, colon)))] =
        std::string(Trim(line.substr(colon + 1)));
    in_block = true;
  }
  YS_RETURN_IF_ERROR(finish());
  if (out.empty()) return Status::Invalid("no processor blocks");
  return out;
}

std::optional<double> ModelNameMhz(std::string_view model) {
  size_t at = model.rfind('@');
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = Trim(model.substr(at + 1));
  double scale = 0;
  if (EndsWith(rest, "GHz")) {
    scale = 1000;
  } else if (EndsWith(rest, "MHz")) {
    scale = 1;
  } else {
    return std::nullopt;
  }
  auto v = ParseDouble(rest.substr(0, rest.size() - 3));
  if (!v || *v <= 0) return std::nullopt;
  return *v * scale;
}

Result<Limit> ParseLimit(std::string_view text, std::string_view resource) {
  for (std::string_view line : SplitLines(text)) {
    if (!StartsWith(line, resource)) continue;
    auto fields = SplitWhitespace(line.substr(resource.size()));
    if (fields.size() < 2) break;
    Limit l;
    auto parse = [](std::string_view f) -> std::optional<std::optional<uint64_t>> {
      if (f == "unlimited" || f == "infinity") return std::optional<uint64_t>();
      auto v = ParseUint(f);
      if (!v) return std::nullopt;
      // rlim_t is unsigned 64-bit; RLIM_INFINITY is 2^64-1, and a runtime that writes it as a
      // number (or writes 2^64-2, 2^63 ... meaning "no limit") gets it printed as digits.
      if (*v >= kLimitUnlimitedFrom) return std::optional<uint64_t>();
      return std::optional<uint64_t>(*v);
    };
    auto soft = parse(fields[0]);
    auto hard = parse(fields[1]);
    if (!soft || !hard) break;
    l.soft = *soft;
    l.hard = *hard;
    if (fields.size() > 2) l.unit = std::string(fields[2]);
    return l;
  }
  return Status::Invalid("expected a \"" + std::string(resource) + "  <soft> <hard> <unit>\" row");
}

}  // namespace ys::host
