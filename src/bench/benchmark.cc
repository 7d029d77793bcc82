#include "bench/benchmark.h"

#include <fmt/format.h>

#include <cctype>
#include <limits>

#include "core/text.h"

namespace ys::bench {

const char* BackendName(Backend b) {
  switch (b) {
    case Backend::kAuto:
      return "auto";
    case Backend::kCpu:
      return "cpu";
    case Backend::kGpu:
      return "gpu";
  }
  return "?";
}

Result<uint64_t> ParseByteSize(std::string_view text) {
  std::string_view t = Trim(text);
  if (t.empty()) return Status::Invalid("size \"\": expected a byte count such as 8, 64K, 16G");
  uint64_t multiplier = 1;
  switch (std::toupper(static_cast<unsigned char>(t.back()))) {
    case 'K':
      multiplier = 1ULL << 10;
      break;
    case 'M':
      multiplier = 1ULL << 20;
      break;
    case 'G':
      multiplier = 1ULL << 30;
      break;
    case 'T':
      multiplier = 1ULL << 40;
      break;
    default:
      break;
  }
  std::string_view digits = multiplier == 1 ? t : t.substr(0, t.size() - 1);
  auto n = ParseInt(digits);
  if (!n || *n < 0) {
    return Status::Invalid(
        "size \"" + std::string(text) +
        "\": expected a byte count such as 8, 64K, 16G (K, M, G, T are powers of 1024)");
  }
  if (*n != 0 && static_cast<uint64_t>(*n) > std::numeric_limits<uint64_t>::max() / multiplier) {
    return Status::Invalid("size \"" + std::string(text) + "\": too large");
  }
  return static_cast<uint64_t>(*n) * multiplier;
}

std::string FormatByteSize(uint64_t bytes) {
  static constexpr const char* kSuffix[] = {"T", "G", "M", "K"};
  for (int i = 0; i < 4; ++i) {
    uint64_t unit = 1ULL << (10 * (4 - i));
    if (bytes >= unit && bytes % unit == 0) return std::to_string(bytes / unit) + kSuffix[i];
  }
  return std::to_string(bytes);
}

Result<SizeSweep> SizeSweep::Parse(std::string_view text) {
  auto fail = [&](const std::string& why) {
    return Status::Invalid("--sizes \"" + std::string(text) + "\": " + why +
                           " (expected MIN:MAX:xFACTOR, MIN:MAX:+STEP or one SIZE, e.g. 8:16G:x2)");
  };
  auto parts = Split(text, ':');
  SizeSweep s;
  if (parts.size() == 1) {
    auto v = ParseByteSize(parts[0]);
    if (!v.ok()) return fail(v.status().message());
    s.min_bytes = s.max_bytes = *v;
  } else if (parts.size() == 3) {
    auto lo = ParseByteSize(parts[0]);
    if (!lo.ok()) return fail(lo.status().message());
    auto hi = ParseByteSize(parts[1]);
    if (!hi.ok()) return fail(hi.status().message());
    s.min_bytes = *lo;
    s.max_bytes = *hi;
    std::string_view step = Trim(parts[2]);
    if (step.size() < 2 || (step[0] != 'x' && step[0] != '+'))
      return fail("step must start with x or +");
    if (step[0] == 'x') {
      auto f = ParseInt(step.substr(1));
      if (!f || *f < 2) return fail("factor must be an integer of at least 2");
      s.factor = static_cast<uint64_t>(*f);
    } else {
      auto st = ParseByteSize(step.substr(1));
      if (!st.ok()) return fail(st.status().message());
      if (*st == 0) return fail("step must be positive");
      s.step_bytes = *st;
    }
  } else {
    return fail("wrong number of fields");
  }
  if (s.min_bytes == 0) return fail("sizes must be positive");
  if (s.max_bytes < s.min_bytes) return fail("MAX is below MIN");
  if (s.max_bytes > kMaxSweepBytes) {
    return fail(fmt::format("{} is out of range (expected sizes of at most {})",
                            FormatByteSize(s.max_bytes), FormatByteSize(kMaxSweepBytes)));
  }
  // A +STEP sweep may list more sizes than anyone can run (8:1T:+1 is 2^40 of them).
  if (s.step_bytes != 0 && (s.max_bytes - s.min_bytes) / s.step_bytes >= kMaxSweepSizes) {
    return fail(fmt::format("{} sizes is out of range (expected at most {})",
                            (s.max_bytes - s.min_bytes) / s.step_bytes + 1, kMaxSweepSizes));
  }
  return s;
}

std::vector<uint64_t> SizeSweep::Sizes() const {
  std::vector<uint64_t> out;
  for (uint64_t size = min_bytes; size <= max_bytes && size != 0;) {
    out.push_back(size);
    uint64_t next = step_bytes != 0 ? size + step_bytes : size * factor;
    if (next <= size) break;  // overflow
    size = next;
  }
  return out;
}

const Result<host::Topology>& BenchContext::topology() const {
  Shared& s = *shared_;
  std::call_once(s.topo_once, [&] {
    s.topo = std::make_unique<Result<host::Topology>>(host::LoadTopology(host_));
  });
  return *s.topo;
}

BenchContext BenchContext::ForUnit(const UnitInfo& unit) const {
  BenchContext c = *this;
  c.params_ = UnitParamSource(unit.id, unit.params, options_.unit_params);
  return c;
}

Measurement MakeMeasurement(std::string name, std::string unit, Better better,
                            std::vector<double> samples,
                            std::map<std::string, std::string> params) {
  Measurement m;
  m.name = std::move(name);
  m.unit = std::move(unit);
  m.better = better;
  m.params = std::move(params);
  m.stats = ComputeStats(samples);
  m.value = m.stats.median;
  m.samples = std::move(samples);
  return m;
}

}  // namespace ys::bench
