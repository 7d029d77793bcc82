#include "diagnose/fleet_reader.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

#include "core/json_document.h"
#include "diagnose/fleet_key.h"

namespace ys::diagnose {
namespace {

// A pull scanner over JSON text. Every method returns false on malformed text; the scanner then
// stays failed.
class Scanner {
 public:
  explicit Scanner(std::string_view t) : p_(t.data()), end_(t.data() + t.size()) {}

  bool AtEnd() {
    Ws();
    return p_ == end_;
  }
  bool Peek(char c) {
    Ws();
    return p_ < end_ && *p_ == c;
  }
  bool Eat(char c) {
    if (!Peek(c)) return false;
    ++p_;
    return true;
  }

  bool String(std::string* out) {
    if (!Eat('"')) return false;
    out->clear();
    while (p_ < end_) {
      const char* run = p_;
      while (p_ < end_ && *p_ != '"' && *p_ != '\\' && static_cast<unsigned char>(*p_) >= 0x20)
        ++p_;
      out->append(run, p_);
      if (p_ == end_) return false;
      char c = *p_++;
      if (c == '"') return true;
      if (c != '\\') return false;  // a control character
      if (p_ == end_) return false;
      c = *p_++;
      switch (c) {
        case '"':
        case '\\':
        case '/':
          out->push_back(c);
          break;
        case 'b':
          out->push_back('\b');
          break;
        case 'f':
          out->push_back('\f');
          break;
        case 'n':
          out->push_back('\n');
          break;
        case 'r':
          out->push_back('\r');
          break;
        case 't':
          out->push_back('\t');
          break;
        case 'u': {
          uint32_t cp = 0;
          if (!Hex4(&cp)) return false;
          if (cp >= 0xD800 && cp < 0xDC00) {
            uint32_t lo = 0;
            if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') return false;
            p_ += 2;
            if (!Hex4(&lo) || lo < 0xDC00 || lo > 0xDFFF) return false;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          } else if (cp >= 0xDC00 && cp < 0xE000) {
            return false;
          }
          Utf8(cp, out);
          break;
        }
        default:
          return false;
      }
    }
    return false;
  }

  bool Number(double* out) {
    Ws();
    const char* start = p_;
    if (!NumberSyntax()) return false;
    auto [ptr, ec] = std::from_chars(start, p_, *out);
    return ec == std::errc() && ptr == p_ && std::isfinite(*out);
  }

  // A number's text, not converted.
  bool NumberSyntax() {
    Ws();
    if (p_ < end_ && *p_ == '-') ++p_;
    if (p_ == end_ || !Digit(*p_)) return false;
    if (*p_ == '0') {
      ++p_;
    } else {
      while (p_ < end_ && Digit(*p_)) ++p_;
    }
    if (p_ < end_ && *p_ == '.') {
      ++p_;
      if (p_ == end_ || !Digit(*p_)) return false;
      while (p_ < end_ && Digit(*p_)) ++p_;
    }
    if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
      ++p_;
      if (p_ < end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (p_ == end_ || !Digit(*p_)) return false;
      while (p_ < end_ && Digit(*p_)) ++p_;
    }
    return true;
  }

  bool Bool(bool* out) {
    Ws();
    if (Literal("true")) return *out = true;
    if (Literal("false")) return !(*out = false);
    return false;
  }

  // Any value, not kept.
  bool Skip(int depth = 0) {
    if (depth > kMaxJsonDepth) return false;
    Ws();
    if (p_ == end_) return false;
    double d;
    switch (*p_) {
      case '"':
        return SkipString();
      case '{':
        return Object([&](std::string_view) { return Skip(depth + 1); });
      case '[':
        return Array([&] { return Skip(depth + 1); });
      case 't':
        return Literal("true");
      case 'f':
        return Literal("false");
      case 'n':
        return Literal("null");
      default:
        return Number(&d);
    }
  }

  // Calls f(key) with the scanner at the key's value; f must consume it.
  template <typename F>
  bool Object(F&& f) {
    if (!Eat('{')) return false;
    if (Eat('}')) return true;
    std::string key;
    do {
      if (!String(&key) || !Eat(':') || !f(std::string_view(key))) return false;
    } while (Eat(','));
    return Eat('}');
  }

  template <typename F>
  bool Array(F&& f) {
    if (!Eat('[')) return false;
    if (Eat(']')) return true;
    do {
      if (!f()) return false;
    } while (Eat(','));
    return Eat(']');
  }

 private:
  static bool Digit(char c) { return c >= '0' && c <= '9'; }
  void Ws() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }
  bool Literal(std::string_view word) {
    if (static_cast<size_t>(end_ - p_) < word.size() || std::string_view(p_, word.size()) != word)
      return false;
    p_ += word.size();
    return true;
  }
  bool SkipString() {
    ++p_;
    while (p_ < end_) {
      char c = *p_++;
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) return false;
      if (c == '\\') {
        if (p_ == end_) return false;
        c = *p_++;
        if (c == 'u') {
          uint32_t cp;
          if (!Hex4(&cp)) return false;
        } else if (std::string_view("\"\\/bfnrt").find(c) == std::string_view::npos) {
          return false;
        }
      }
    }
    return false;
  }
  bool Hex4(uint32_t* out) {
    if (end_ - p_ < 4) return false;
    *out = 0;
    for (int i = 0; i < 4; ++i) {
      char c = *p_++;
      int v = Digit(c)                 ? c - '0'
              : (c >= 'a' && c <= 'f') ? c - 'a' + 10
              : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                       : -1;
      if (v < 0) return false;
      *out = *out * 16 + static_cast<uint32_t>(v);
    }
    return true;
  }
  static void Utf8(uint32_t cp, std::string* out) {
    if (cp < 0x80) {
      out->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  const char* p_;
  const char* end_;
};

// Required fields are counted as they are seen: a bit per field.
struct Seen {
  unsigned bits = 0;
  void Set(int i) { bits |= 1u << i; }
  bool All(int n) const { return bits == (1u << n) - 1; }
};

bool Int(Scanner& s, int64_t* out) {
  double d;
  if (!s.Number(&d) || d != std::floor(d) || std::fabs(d) > 9.0e15) return false;
  *out = static_cast<int64_t>(d);
  return true;
}

// A measurement's params, only those fleet analysis uses (see the header).
bool FleetParams(Scanner& s, std::map<std::string, std::string>* out) {
  std::string v, key;
  return s.Object([&](std::string_view k) {
    if (!s.String(&v)) return false;
    key.assign(k);
    if (!IsDescriptionParam(key, v) || IsEntityNamingParam(key) || key == "pct_of_peak" ||
        IsVersionParam(key)) {
      (*out)[key] = v;
    }
    return true;
  });
}

bool EvidenceOf(Scanner& s, Evidence* out) {
  std::string v;
  return s.Object([&](std::string_view k) {
    if (!s.String(&v)) return false;
    out->emplace_back(std::string(k), v);
    return true;
  });
}

bool FindingOf(Scanner& s, Finding* f) {
  Seen seen;
  std::string sev;
  bool ok = s.Object([&](std::string_view k) {
    if (k == "code") return seen.Set(0), s.String(&f->code);
    if (k == "severity") {
      seen.Set(1);
      if (!s.String(&sev) || (sev != "warn" && sev != "fail")) return false;
      f->severity = sev == "fail" ? Severity::kFail : Severity::kWarn;
      return true;
    }
    if (k == "entity") return seen.Set(2), s.String(&f->entity);
    if (k == "message") return seen.Set(3), s.String(&f->message);
    if (k == "fix") return seen.Set(4), s.String(&f->fix);
    if (k == "evidence") return EvidenceOf(s, &f->evidence);
    if (k == "expected_recovery") return s.String(&f->expected_recovery);
    if (k == "reference") return s.String(&f->reference);
    return s.Skip();
  });
  return ok && seen.All(5);
}

bool StatsOf(Scanner& s, SampleStats* st) {
  Seen seen;
  bool ok = s.Object([&](std::string_view k) {
    if (k == "n") return seen.Set(0), Int(s, &st->n);
    if (k == "min") return seen.Set(1), s.Number(&st->min);
    if (k == "median") return seen.Set(2), s.Number(&st->median);
    if (k == "max") return seen.Set(3), s.Number(&st->max);
    if (k == "mean") return seen.Set(4), s.Number(&st->mean);
    if (k == "stdev") return seen.Set(5), s.Number(&st->stdev);
    return s.Skip();
  });
  return ok && seen.All(6);
}

bool MeasurementsOf(Scanner& s, std::vector<Measurement>* out) {
  std::string better;
  return s.Array([&] {
    Measurement m;
    Seen seen;
    bool ok = s.Object([&](std::string_view k) {
      if (k == "name") return seen.Set(0), s.String(&m.name);
      if (k == "value") return seen.Set(1), s.Number(&m.value);
      if (k == "unit") return seen.Set(2), s.String(&m.unit);
      if (k == "better") {
        seen.Set(3);
        if (!s.String(&better) || (better != "higher" && better != "lower")) return false;
        m.better = better == "higher" ? Better::kHigher : Better::kLower;
        return true;
      }
      if (k == "params") return FleetParams(s, &m.params);
      if (k == "stats") return StatsOf(s, &m.stats);
      if (k == "samples") return s.Array([&] { return s.NumberSyntax(); });  // checked, not kept
      return s.Skip();
    });
    if (!ok || !seen.All(4)) return false;
    out->push_back(std::move(m));
    return true;
  });
}

// A check (measurements == nullptr) or a benchmark.
bool UnitOf(Scanner& s, CheckResult* r, std::vector<Measurement>* measurements) {
  Seen seen;
  std::string outcome;
  double duration = 0;
  bool ok = s.Object([&](std::string_view k) {
    if (k == "id") return seen.Set(0), s.String(&r->unit_id);
    if (k == "outcome") {
      seen.Set(1);
      if (!s.String(&outcome)) return false;
      auto o = ParseOutcome(outcome);
      if (!o) return false;
      r->outcome = *o;
      return true;
    }
    if (k == "summary") return seen.Set(2), s.String(&r->summary);
    if (k == "duration_ms") return seen.Set(3), s.Number(&duration);
    if (k == "evidence") return EvidenceOf(s, &r->evidence);
    if (k == "findings") {
      return s.Array([&] {
        Finding f;
        if (!FindingOf(s, &f)) return false;
        r->findings.push_back(std::move(f));
        return true;
      });
    }
    if (k == "measurements" && measurements != nullptr) return MeasurementsOf(s, measurements);
    return s.Skip();
  });
  r->duration_ms = duration;
  return ok && seen.All(4);
}

bool ChecksOf(Scanner& s, std::vector<CheckResult>* out) {
  return s.Array([&] {
    CheckResult r;
    if (!UnitOf(s, &r, nullptr)) return false;
    out->push_back(std::move(r));
    return true;
  });
}

bool BenchmarksOf(Scanner& s, std::vector<BenchmarkResult>* out) {
  return s.Array([&] {
    BenchmarkResult r;
    if (!UnitOf(s, &r, &r.measurements)) return false;
    out->push_back(std::move(r));
    return true;
  });
}

bool HostOf(Scanner& s, HostInfo* h) {
  Seen seen;
  bool ok = s.Object([&](std::string_view k) {
    if (k == "hostname") return seen.Set(0), s.String(&h->hostname);
    if (k == "kernel") return seen.Set(1), s.String(&h->kernel);
    if (k == "arch") return seen.Set(2), s.String(&h->arch);
    if (k == "root") return seen.Set(3), s.String(&h->root);
    if (k == "cpu_model") return s.String(&h->cpu_model);
    if (k == "gpu_source") return s.String(&h->gpu_source);
    if (k == "gpu_driver") return s.String(&h->gpu_driver);
    if (k == "logical_cpus") {
      int64_t n;
      if (!Int(s, &n) || n < INT32_MIN || n > INT32_MAX) return false;
      h->logical_cpus = static_cast<int>(n);
      return true;
    }
    return s.Skip();
  });
  return ok && seen.All(4);
}

bool ToolOf(Scanner& s, ToolInfo* t) {
  Seen seen;
  bool ok = s.Object([&](std::string_view k) {
    if (k == "version") return seen.Set(0), s.String(&t->version);
    if (k == "name") return s.String(&t->name);
    if (k == "build_type") return s.String(&t->build_type);
    if (k == "compiler") return s.String(&t->compiler);
    return s.Skip();
  });
  return ok && seen.All(1);
}

bool RanksOf(Scanner& s, std::vector<RankStatus>* out) {
  return s.Array([&] {
    RankStatus r;
    Seen seen;
    int64_t rank = 0, local = 0;
    bool ok = s.Object([&](std::string_view k) {
      if (k == "rank") return seen.Set(0), Int(s, &rank);
      if (k == "hostname") return seen.Set(1), s.String(&r.hostname);
      if (k == "local_rank") return seen.Set(2), Int(s, &local);
      if (k == "state") return seen.Set(3), s.String(&r.state);
      if (k == "detail") return s.String(&r.detail);
      return s.Skip();
    });
    if (!ok || !seen.All(4)) return false;
    r.rank = static_cast<int>(rank);
    r.local_rank = static_cast<int>(local);
    out->push_back(std::move(r));
    return true;
  });
}

bool NodesOf(Scanner& s, std::vector<NodeReport>* out) {
  return s.Array([&] {
    NodeReport n;
    Seen seen;
    bool ok = s.Object([&](std::string_view k) {
      if (k == "hostname") return seen.Set(0), s.String(&n.hostname);
      if (k == "ranks") {
        seen.Set(1);
        return s.Array([&] {
          int64_t r;
          if (!Int(s, &r)) return false;
          n.ranks.push_back(static_cast<int>(r));
          return true;
        });
      }
      if (k == "checks") return ChecksOf(s, &n.checks);
      if (k == "benchmarks") return BenchmarksOf(s, &n.benchmarks);
      return s.Skip();
    });
    if (!ok || !seen.All(2)) return false;
    out->push_back(std::move(n));
    return true;
  });
}

}  // namespace

std::optional<RunDocument> ReadFleetDocument(std::string_view text) {
  Scanner s(text);
  RunDocument d;
  Seen seen;
  int64_t version = 0;
  std::string w;
  bool ok = s.Object([&](std::string_view k) {
    if (k == "schema_version") return seen.Set(0), Int(s, &version);
    if (k == "command") return seen.Set(1), s.String(&d.command);
    if (k == "started_at") return seen.Set(2), s.String(&d.started_at);
    if (k == "duration_ms") return seen.Set(3), s.Number(&d.duration_ms);
    if (k == "incomplete") return seen.Set(4), s.Bool(&d.incomplete);
    if (k == "warnings") {
      seen.Set(5);
      return s.Array([&] {
        if (!s.String(&w)) return false;
        d.warnings.push_back(w);
        return true;
      });
    }
    if (k == "host") return seen.Set(6), HostOf(s, &d.host);
    if (k == "tool") return seen.Set(7), ToolOf(s, &d.tool);
    if (k == "checks") return seen.Set(8), ChecksOf(s, &d.checks);
    if (k == "measurements") return MeasurementsOf(s, &d.measurements);
    if (k == "benchmarks") return BenchmarksOf(s, &d.benchmarks);
    if (k == "incomplete_reason") return s.String(&d.incomplete_reason);
    if (k == "ranks") return RanksOf(s, &d.ranks);
    if (k == "nodes") return NodesOf(s, &d.nodes);
    return s.Skip();
  });
  if (!ok || !s.AtEnd() || !seen.All(9) || version != kRunSchemaVersion) return std::nullopt;
  d.schema_version = static_cast<int>(version);
  return d;
}

}  // namespace ys::diagnose
