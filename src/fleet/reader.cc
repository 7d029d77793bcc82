#include "fleet/reader.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "core/json_document.h"
#include "fleet/figure_identity.h"
#include "fleet/key.h"
#include "fleet/scanner.h"

namespace ys::fleet {
namespace {

// k == lit, with the literal's length known to the compiler (an inline compare, not a call: the
// reader compares every key of every object with the fields it knows).
template <size_t N>
bool Is(std::string_view k, const char (&lit)[N]) {
  return k.size() == N - 1 && std::memcmp(k.data(), lit, N - 1) == 0;
}

// Required fields are counted as they are seen: a bit per field.
struct Seen {
  unsigned bits = 0;
  void Set(int i) { bits |= 1u << i; }
  bool All(int n) const { return bits == (1u << n) - 1; }
  // Marks field i; false when it was marked before. A list-valued key given twice would be read
  // twice (appended) here, where the full reader keeps the last: such a document is refused.
  bool First(int i) {
    const bool first = (bits & (1u << i)) == 0;
    Set(i);
    return first;
  }
};

bool Int(FleetScanner& s, int64_t* out) {
  double d;
  if (!s.Number(&d) || d != std::floor(d) || std::fabs(d) > 9.0e15) return false;
  *out = static_cast<int64_t>(d);
  return true;
}

// What the reader carries while it reads one document.
struct Ctx {
  ShapeCache& shapes;
  FleetDocument* out;
  uint32_t group = 0, bench = 0;  // where the measurements being read are (LeanFigure)
  // The figure being read (views into the text or the buffers), and buffers reused from figure
  // to figure.
  std::string_view name, unit;
  std::string name_buf, unit_buf, flat, identity, key, value;
  // The flat params are compared with those of the shape expected next (ShapeCache::Guess) as
  // they are read, and written out only from the first that differs: `flat` is then
  // guess_flat[0, matched) followed by the params from there on. Until then (diverged false) the
  // figure's flat params are guess_flat[0, matched).
  std::string_view guess_flat;
  size_t matched = 0;
  bool diverged = false;
  // The figure's params object as read (FigureShape::raw_head): where it and its pct_of_peak
  // value start and end, how many of each the figure has, and whether the guess's raw text
  // matched it (then nothing is kept).
  const FigureShape* guess_shape = nullptr;
  const char *params_begin = nullptr, *params_end = nullptr;
  const char *pct_begin = nullptr, *pct_end = nullptr;
  int params_seen = 0, pct_seen = 0;
  bool params_as_before = false;
  void AddFlat(std::string_view k, std::string_view v);
  std::string_view Flat() const {
    return diverged ? std::string_view(flat) : guess_flat.substr(0, matched);
  }
};

// KeptForFleetByName remembered by a param's position in its params object: consecutive figures
// mostly have the same params in the same order, so the name at a position is compared with the
// one seen there last instead of looked up. One per thread (FleetParams); positions past
// kPositions are looked up.
struct ParamMemo {
  static constexpr size_t kPositions = 64;
  std::vector<std::pair<std::string, KeptByName>> at;
  KeptByName Get(size_t i, std::string_view name, std::string& scratch) {
    if (i >= kPositions) return KeptForFleetByName(scratch.assign(name));
    if (i >= at.size()) at.resize(i + 1, {std::string(), KeptByName::kByValue});
    auto& [seen, by_name] = at[i];
    if (seen.empty() || seen.size() != name.size() ||
        !SameBytes(seen.data(), name.data(), name.size())) {
      seen.assign(name);
      by_name = KeptForFleetByName(seen);
    }
    return by_name;
  }
};

void Ctx::AddFlat(std::string_view k, std::string_view v) {
  if (!diverged) {
    if (HasSizedAt(guess_flat, matched, k) &&
        HasSizedAt(guess_flat, matched + sizeof(uint32_t) + k.size(), v)) {
      matched += 2 * sizeof(uint32_t) + k.size() + v.size();
      return;
    }
    diverged = true;
    flat.assign(guess_flat.substr(0, matched));
  }
  AppendSized(flat, k);
  AppendSized(flat, v);
}

void KeepPct(Ctx& c, LeanFigure* fig, std::string_view v) {
  fig->has_pct = true;
  fig->pct_offset = static_cast<uint32_t>(c.out->text.size());
  fig->pct_size = static_cast<uint32_t>(v.size());
  c.out->text += v;
}

// The figure's first params object when its bytes are those last read into the guessed shape
// (around a pct_of_peak string): the same bytes give the same params, so the flat params are the
// guess's whole. Else the scanner is left where it was.
bool ParamsAsBefore(FleetScanner& s, Ctx& c, LeanFigure* fig) {
  const FigureShape* g = c.guess_shape;
  if (g == nullptr || g->raw_head.empty() || c.params_seen != 1) return false;
  const char* begin = s.Here();
  std::string_view v;
  if (s.EatText(g->raw_head) &&
      (!g->raw_pct || (s.StringView(&v, &c.value) && s.EatText(g->raw_tail)))) {
    if (g->raw_pct) KeepPct(c, fig, v);
    c.matched = c.guess_flat.size();
    return c.params_as_before = true;
  }
  s.Rewind(begin);
  return false;
}

// A measurement's params, only those fleet analysis uses (see the header): pct_of_peak into the
// figure, the others (identity, entity-naming, versions) into c.flat, as sized key, value pairs.
bool FleetParams(FleetScanner& s, Ctx& c, LeanFigure* fig) {
  thread_local ParamMemo memo;
  ++c.params_seen;
  if (ParamsAsBefore(s, c, fig)) return true;
  size_t i = 0;
  c.params_begin = s.Here();
  bool ok = s.Object([&](std::string_view k) {
    std::string_view v;
    const char* at = s.Here();
    if (!s.StringView(&v, &c.value)) return false;
    if (Is(k, "pct_of_peak")) {
      KeepPct(c, fig, v);
      c.pct_begin = at;
      c.pct_end = s.Pos();
      ++c.pct_seen;
    } else if (IsKeptForFleet(memo.Get(i++, k, c.key), v)) {
      c.AddFlat(k, v);
    }
    return true;
  });
  c.params_end = s.Pos();
  return ok;
}

// Remembers the figure's params text in its shape (ParamsAsBefore), when it was read whole.
void KeepRawParams(Ctx& c, FigureShape& sh) {
  if (c.params_as_before || c.params_seen != 1 || c.pct_seen > 1) return;
  if (c.pct_seen == 1) {
    sh.raw_head.assign(c.params_begin, c.pct_begin);
    sh.raw_tail.assign(c.pct_end, c.params_end);
  } else {
    sh.raw_head.assign(c.params_begin, c.params_end);
    sh.raw_tail.clear();
  }
  sh.raw_pct = c.pct_seen == 1;
}

bool EvidenceOf(FleetScanner& s, Evidence* out) {
  std::string v;
  return s.Object([&](std::string_view k) {
    if (!s.String(&v)) return false;
    out->emplace_back(std::string(k), v);
    return true;
  });
}

bool FindingOf(FleetScanner& s, Finding* f) {
  Seen seen;
  std::string sev;
  bool ok = s.Object([&](std::string_view k) {
    if (Is(k, "code")) return seen.Set(0), s.String(&f->code);
    if (Is(k, "severity")) {
      seen.Set(1);
      if (!s.String(&sev) || (!Is(sev, "warn") && !Is(sev, "fail"))) return false;
      f->severity = Is(sev, "fail") ? Severity::kFail : Severity::kWarn;
      return true;
    }
    if (Is(k, "entity")) return seen.Set(2), s.String(&f->entity);
    if (Is(k, "message")) return seen.Set(3), s.String(&f->message);
    if (Is(k, "fix")) return seen.Set(4), s.String(&f->fix);
    if (Is(k, "evidence")) return EvidenceOf(s, &f->evidence);
    if (Is(k, "expected_recovery")) return s.String(&f->expected_recovery);
    if (Is(k, "reference")) return s.String(&f->reference);
    return s.Skip();
  });
  return ok && seen.All(5);
}

bool StatsOf(FleetScanner& s, SampleStats* st) {
  Seen seen;
  bool ok = s.Object([&](std::string_view k) {
    if (Is(k, "n")) return seen.Set(0), Int(s, &st->n);
    if (Is(k, "min")) return seen.Set(1), s.Number(&st->min);
    if (Is(k, "median")) return seen.Set(2), s.Number(&st->median);
    if (Is(k, "max")) return seen.Set(3), s.Number(&st->max);
    if (Is(k, "mean")) return seen.Set(4), s.Number(&st->mean);
    if (Is(k, "stdev")) return seen.Set(5), s.Number(&st->stdev);
    return s.Skip();
  });
  return ok && seen.All(6);
}

bool MeasurementsOf(FleetScanner& s, Ctx& c) {
  std::string better_text;
  return s.Array([&] {
    LeanFigure fig;
    fig.group = c.group;
    fig.bench = c.bench;
    Better better = Better::kHigher;
    c.name = c.unit = std::string_view();
    c.flat.clear();
    c.matched = 0;
    c.diverged = false;
    c.params_seen = c.pct_seen = 0;
    c.params_as_before = false;
    c.guess_shape = c.shapes.GuessedShape();
    const std::string* guess = c.shapes.Guess();
    c.guess_flat = guess != nullptr ? FlatOfIdentity(*guess) : std::string_view();
    Seen seen;
    bool ok = s.Object([&](std::string_view k) {
      if (Is(k, "name")) return seen.Set(0), s.StringView(&c.name, &c.name_buf);
      if (Is(k, "value")) return seen.Set(1), s.Number(&fig.value);
      if (Is(k, "unit")) return seen.Set(2), s.StringView(&c.unit, &c.unit_buf);
      if (Is(k, "better")) {
        seen.Set(3);
        if (!s.String(&better_text) || (!Is(better_text, "higher") && !Is(better_text, "lower")))
          return false;
        better = Is(better_text, "higher") ? Better::kHigher : Better::kLower;
        return true;
      }
      if (Is(k, "params")) return FleetParams(s, c, &fig);
      if (Is(k, "stats")) return StatsOf(s, &fig.stats);
      if (Is(k, "samples")) return s.Array([&] { return s.NumberSyntax(); });  // checked, not kept
      return s.Skip();
    });
    if (!ok || !seen.All(4)) return false;
    char direction = better == Better::kHigher ? 'h' : 'l';
    // The flat params are the guess's when they never diverged from them and reached their end
    // (once diverged, they differ from the guess's where they diverged).
    if (guess != nullptr && !c.diverged && c.matched == c.guess_flat.size() &&
        HasIdentityHead(*guess, c.name, c.unit, direction, c.matched)) {
      fig.shape = c.shapes.TakeGuess();  // the usual case: the identity need not be built
    } else {
      c.identity.clear();
      AppendSized(c.identity, c.name);
      AppendSized(c.identity, c.unit);
      c.identity += direction;
      c.identity += c.Flat();
      fig.shape =
          c.shapes.Intern(c.identity, [&] { return MakeShape(c.name, c.unit, c.Flat(), better); });
    }
    KeepRawParams(c, c.shapes.Get(fig.shape));
    c.out->figures.push_back(fig);
    return true;
  });
}

// A check (c == nullptr) or a benchmark.
bool UnitOf(FleetScanner& s, CheckResult* r, Ctx* c) {
  Seen seen, lists;
  std::string outcome;
  double duration = 0;
  bool ok = s.Object([&](std::string_view k) {
    if (Is(k, "id")) return seen.Set(0), s.String(&r->unit_id);
    if (Is(k, "outcome")) {
      seen.Set(1);
      if (!s.String(&outcome)) return false;
      auto o = ParseOutcome(outcome);
      if (!o) return false;
      r->outcome = *o;
      return true;
    }
    if (Is(k, "summary")) return seen.Set(2), s.String(&r->summary);
    if (Is(k, "duration_ms")) return seen.Set(3), s.Number(&duration);
    if (Is(k, "evidence")) return lists.First(0) && EvidenceOf(s, &r->evidence);
    if (Is(k, "findings")) {
      return lists.First(1) && s.Array([&] {
        Finding f;
        if (!FindingOf(s, &f)) return false;
        r->findings.push_back(std::move(f));
        return true;
      });
    }
    if (Is(k, "measurements") && c != nullptr) return lists.First(2) && MeasurementsOf(s, *c);
    return s.Skip();
  });
  r->duration_ms = duration;
  return ok && seen.All(4);
}

bool ChecksOf(FleetScanner& s, std::vector<CheckResult>* out) {
  return s.Array([&] {
    CheckResult r;
    if (!UnitOf(s, &r, nullptr)) return false;
    out->push_back(std::move(r));
    return true;
  });
}

bool BenchmarksOf(FleetScanner& s, std::vector<BenchmarkResult>* out, Ctx& c, uint32_t group) {
  return s.Array([&] {
    BenchmarkResult r;
    c.group = group;
    c.bench = static_cast<uint32_t>(out->size());
    if (!UnitOf(s, &r, &c)) return false;
    out->push_back(std::move(r));
    return true;
  });
}

bool HostOf(FleetScanner& s, HostInfo* h) {
  Seen seen;
  bool ok = s.Object([&](std::string_view k) {
    if (Is(k, "hostname")) return seen.Set(0), s.String(&h->hostname);
    if (Is(k, "kernel")) return seen.Set(1), s.String(&h->kernel);
    if (Is(k, "arch")) return seen.Set(2), s.String(&h->arch);
    if (Is(k, "root")) return seen.Set(3), s.String(&h->root);
    if (Is(k, "cpu_model")) return s.String(&h->cpu_model);
    if (Is(k, "gpu_source")) return s.String(&h->gpu_source);
    if (Is(k, "gpu_driver")) return s.String(&h->gpu_driver);
    if (Is(k, "logical_cpus")) {
      int64_t n;
      if (!Int(s, &n) || n < INT32_MIN || n > INT32_MAX) return false;
      h->logical_cpus = static_cast<int>(n);
      return true;
    }
    return s.Skip();
  });
  return ok && seen.All(4);
}

bool ToolOf(FleetScanner& s, ToolInfo* t) {
  Seen seen;
  bool ok = s.Object([&](std::string_view k) {
    if (Is(k, "version")) return seen.Set(0), s.String(&t->version);
    if (Is(k, "name")) return s.String(&t->name);
    if (Is(k, "build_type")) return s.String(&t->build_type);
    if (Is(k, "compiler")) return s.String(&t->compiler);
    return s.Skip();
  });
  return ok && seen.All(1);
}

bool RanksOf(FleetScanner& s, std::vector<RankStatus>* out) {
  return s.Array([&] {
    RankStatus r;
    Seen seen;
    int64_t rank = 0, local = 0;
    bool ok = s.Object([&](std::string_view k) {
      if (Is(k, "rank")) return seen.Set(0), Int(s, &rank);
      if (Is(k, "hostname")) return seen.Set(1), s.String(&r.hostname);
      if (Is(k, "local_rank")) return seen.Set(2), Int(s, &local);
      if (Is(k, "state")) return seen.Set(3), s.String(&r.state);
      if (Is(k, "detail")) return s.String(&r.detail);
      return s.Skip();
    });
    if (!ok || !seen.All(4)) return false;
    r.rank = static_cast<int>(rank);
    r.local_rank = static_cast<int>(local);
    out->push_back(std::move(r));
    return true;
  });
}

bool NodesOf(FleetScanner& s, std::vector<NodeReport>* out, Ctx& c) {
  return s.Array([&] {
    NodeReport n;
    auto group = static_cast<uint32_t>(2 + out->size());
    Seen seen, lists;
    bool ok = s.Object([&](std::string_view k) {
      if (Is(k, "hostname")) return seen.Set(0), s.String(&n.hostname);
      if (Is(k, "ranks")) {
        seen.Set(1);
        return lists.First(0) && s.Array([&] {
          int64_t r;
          if (!Int(s, &r)) return false;
          n.ranks.push_back(static_cast<int>(r));
          return true;
        });
      }
      if (Is(k, "checks")) return lists.First(1) && ChecksOf(s, &n.checks);
      if (Is(k, "benchmarks")) return lists.First(2) && BenchmarksOf(s, &n.benchmarks, c, group);
      return s.Skip();
    });
    if (!ok || !seen.All(2)) return false;
    out->push_back(std::move(n));
    return true;
  });
}

}  // namespace

bool ReadFleetDocument(std::string_view text, ShapeCache& shapes, FleetDocument* out) {
  out->doc = RunDocument{};
  out->figures.clear();
  out->text.clear();
  shapes.StartDocument();
  Ctx c{.shapes = shapes, .out = out};
  FleetScanner s(text);
  RunDocument& d = out->doc;
  Seen seen, lists;
  int64_t version = 0;
  std::string w;
  bool ok = s.Object([&](std::string_view k) {
    if (Is(k, "schema_version")) return seen.Set(0), Int(s, &version);
    if (Is(k, "command")) return seen.Set(1), s.String(&d.command);
    if (Is(k, "started_at")) return seen.Set(2), s.String(&d.started_at);
    if (Is(k, "duration_ms")) return seen.Set(3), s.Number(&d.duration_ms);
    if (Is(k, "incomplete")) return seen.Set(4), s.Bool(&d.incomplete);
    if (Is(k, "warnings")) {
      seen.Set(5);
      return lists.First(0) && s.Array([&] {
        if (!s.String(&w)) return false;
        d.warnings.push_back(w);
        return true;
      });
    }
    if (Is(k, "host")) return seen.Set(6), HostOf(s, &d.host);
    if (Is(k, "tool")) return seen.Set(7), ToolOf(s, &d.tool);
    if (Is(k, "checks")) return seen.Set(8), lists.First(1) && ChecksOf(s, &d.checks);
    if (Is(k, "measurements"))
      return c.group = 0, c.bench = 0, lists.First(2) && MeasurementsOf(s, c);
    if (Is(k, "benchmarks")) return lists.First(3) && BenchmarksOf(s, &d.benchmarks, c, 1);
    if (Is(k, "incomplete_reason")) return s.String(&d.incomplete_reason);
    if (Is(k, "ranks")) return lists.First(4) && RanksOf(s, &d.ranks);
    if (Is(k, "nodes")) return lists.First(5) && NodesOf(s, &d.nodes, c);
    return s.Skip();
  });
  if (!ok || !s.AtEnd() || !seen.All(9) || version != kRunSchemaVersion) return false;
  d.schema_version = static_cast<int>(version);
  auto by_group = [](const LeanFigure& a, const LeanFigure& b) { return a.group < b.group; };
  if (!std::is_sorted(out->figures.begin(), out->figures.end(), by_group))
    std::stable_sort(out->figures.begin(), out->figures.end(), by_group);
  return true;
}

std::optional<RunDocument> ReadFleetDocument(std::string_view text) {
  ShapeCache shapes;
  FleetDocument lean;
  if (!ReadFleetDocument(text, shapes, &lean)) return std::nullopt;
  RunDocument d = std::move(lean.doc);
  for (const LeanFigure& f : lean.figures) {
    Measurement m = shapes.Get(f.shape).proto;
    m.value = f.value;
    m.stats = f.stats;
    if (f.has_pct) m.params["pct_of_peak"] = lean.text.substr(f.pct_offset, f.pct_size);
    if (f.group == 0) {
      d.measurements.push_back(std::move(m));
    } else if (f.group == 1) {
      d.benchmarks[f.bench].measurements.push_back(std::move(m));
    } else {
      d.nodes[f.group - 2].benchmarks[f.bench].measurements.push_back(std::move(m));
    }
  }
  return d;
}

}  // namespace ys::fleet
