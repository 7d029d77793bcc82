#include "fleet/digest.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <unordered_map>

namespace ys::fleet {
namespace {

bool IsVersionEvidence(const std::string& k) {
  return k.find("version") != std::string::npos || k.find("firmware") != std::string::npos ||
         k.find("vbios") != std::string::npos;
}

bool Ran(Outcome o) { return o == Outcome::kPass || o == Outcome::kWarn || o == Outcome::kFail; }

void AddUnit(NodeFacts& f, const CheckResult& u) {
  for (const Finding& x : u.findings) {
    auto [it, fresh] =
        f.codes.try_emplace(x.code, NodeFacts::Code{x.severity, x.entity, x.message});
    if (!fresh && x.severity == Severity::kFail) it->second = {x.severity, x.entity, x.message};
  }
  auto [it, fresh] = f.units.try_emplace(u.unit_id, u.outcome);
  if (!fresh && Ran(u.outcome))
    it->second = u.outcome;  // a unit that ran on any rank of the node ran there
  for (const auto& [k, v] : u.evidence) {
    if (IsVersionEvidence(k) && !v.empty()) f.versions.try_emplace(u.unit_id + ": " + k, v);
  }
}

void AddVersions(NodeFacts& f, const std::vector<Measurement>& ms) {
  for (const Measurement& m : ms) {
    for (const auto& [k, v] : m.params) {
      if (!v.empty() && IsVersionParam(k)) f.versions.try_emplace(k, v);
    }
  }
}

// Writing and reading the digest file.
struct Out {
  std::string buf;
  void U32(uint32_t v) { buf.append(reinterpret_cast<const char*>(&v), 4); }
  void Str(const std::string& s) {
    U32(static_cast<uint32_t>(s.size()));
    buf += s;
  }
};

struct In {
  const char* p;
  const char* end;
  bool ok = true;
  uint32_t U32() {
    uint32_t v = 0;
    if (end - p < 4) return ok = false, 0;
    std::memcpy(&v, p, 4);
    p += 4;
    return v;
  }
  std::string Str() {
    uint32_t n = U32();
    if (!ok || static_cast<size_t>(end - p) < n) return ok = false, std::string();
    std::string s(p, n);
    p += n;
    return s;
  }
};

}  // namespace

namespace {

// FactsOf over a document whose measurements may live apart from it (the lean reader's figures):
// bench_versions(f, group, i) adds the versions of the measurements of benchmark i of a group
// (LeanFigure::group), top_versions(f) those of the document's own measurements.
template <typename BenchVersions, typename TopVersions>
std::vector<NodeFacts> FactsOfImpl(const RunDocument& doc, BenchVersions&& bench_versions,
                                   TopVersions&& top_versions) {
  std::vector<NodeFacts> out;
  auto common = [&](NodeFacts& f) {
    if (!doc.host.gpu_driver.empty()) f.versions["gpu_driver"] = doc.host.gpu_driver;
    if (!doc.host.kernel.empty()) f.versions["kernel"] = doc.host.kernel;
    if (!doc.tool.version.empty()) f.versions["yardstick"] = doc.tool.version;
  };
  auto benchmarks = [&](NodeFacts& f, const std::vector<BenchmarkResult>& bs, uint32_t group) {
    for (size_t i = 0; i < bs.size(); ++i) {
      AddUnit(f, bs[i]);
      bench_versions(f, group, i);
    }
  };
  if (doc.nodes.size() <= 1) {
    NodeFacts f;
    f.node = doc.nodes.empty() ? doc.host.hostname : doc.nodes[0].hostname;
    for (const auto& c : doc.checks) AddUnit(f, c);
    benchmarks(f, doc.benchmarks, 1);
    for (const auto& n : doc.nodes) {
      for (const auto& c : n.checks) AddUnit(f, c);
      benchmarks(f, n.benchmarks, 2);
    }
    top_versions(f);
    common(f);
    out.push_back(std::move(f));
    return out;
  }
  for (size_t j = 0; j < doc.nodes.size(); ++j) {
    NodeFacts f;
    f.node = doc.nodes[j].hostname;
    for (const auto& c : doc.nodes[j].checks) AddUnit(f, c);
    benchmarks(f, doc.nodes[j].benchmarks, static_cast<uint32_t>(2 + j));
    common(f);
    out.push_back(std::move(f));
  }
  return out;
}

double PctOfPeak(std::string_view text) {
  std::string s(text);
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  return end != s.c_str() && std::isfinite(v) && v >= 0 ? v : -1;
}

double PctOfPeak(const Measurement& m) {
  auto it = m.params.find("pct_of_peak");
  return it == m.params.end() ? -1 : PctOfPeak(it->second);
}

// Reuses its table from document to document.
class Labels {
 public:
  explicit Labels(DocumentDigest& d) : d_(d) {}
  uint32_t operator()(const std::string& s) {
    auto [it, fresh] = ids_.try_emplace(s, static_cast<uint32_t>(d_.labels.size()));
    if (fresh) d_.labels.push_back(s);
    return it->second;
  }

 private:
  DocumentDigest& d_;
  std::unordered_map<std::string, uint32_t> ids_;
};

// A figure's relative spread (the samples' stdev over their median), -1 when unknown.
float FigureSpread(const SampleStats& stats) {
  if (stats.n >= 2 && stats.median != 0)
    return static_cast<float>(std::fabs(stats.stdev / stats.median));
  return -1;
}

// Whether the document is complete, and the host names of its lost ranks.
void DigestCompleteness(const RunDocument& doc, DocumentDigest& d) {
  d.incomplete = doc.incomplete;
  d.incomplete_reason = doc.incomplete_reason;
  for (const RankStatus& r : doc.ranks) {
    if (r.state != "ok") d.lost.push_back(r.hostname);
  }
}

using LeanFigureRange =
    std::pair<std::vector<LeanFigure>::const_iterator, std::vector<LeanFigure>::const_iterator>;

// The figures of one group of a lean document (its figures are ordered by group).
LeanFigureRange LeanGroupFigures(const FleetDocument& lean, uint32_t group) {
  auto lo = std::lower_bound(lean.figures.begin(), lean.figures.end(), group,
                             [](const LeanFigure& f, uint32_t g) { return f.group < g; });
  auto hi = std::upper_bound(lo, lean.figures.end(), group,
                             [](uint32_t g, const LeanFigure& f) { return g < f.group; });
  return std::make_pair(lo, hi);
}

// Calls f(figure, host name) for every figure of a lean document, in ForEachMeasurement's order
// and with its nodes.
template <typename F>
void ForEachLeanFigure(const FleetDocument& lean, F&& f) {
  const RunDocument& doc = lean.doc;
  if (doc.nodes.size() <= 1) {
    const std::string& host = doc.nodes.empty() ? doc.host.hostname : doc.nodes[0].hostname;
    for (uint32_t g : {0u, 1u}) {
      auto [lo, hi] = LeanGroupFigures(lean, g);
      for (auto it = lo; it != hi; ++it) f(*it, host);
    }
    if (doc.nodes.empty()) return;
  }
  for (size_t j = 0; j < doc.nodes.size(); ++j) {
    auto [lo, hi] = LeanGroupFigures(lean, static_cast<uint32_t>(2 + j));
    for (auto it = lo; it != hi; ++it) f(*it, doc.nodes[j].hostname);
  }
}

// GpuModelOf for a lean document: the gpu_name its figures' shapes name most often.
std::string LeanGpuModel(const FleetDocument& lean, ShapeCache& shapes) {
  std::map<std::string, int> seen;
  ForEachLeanFigure(lean, [&](const LeanFigure& x, const std::string&) {
    const FigureShape& s = shapes.Get(x.shape);
    if (!s.gpu_name.empty()) ++seen[s.gpu_name];
  });
  std::string top;
  int count = 0;
  for (const auto& [model, n] : seen) {
    if (n > count) top = model, count = n;
  }
  return top;
}

// Appends a lean document's figures to its digest, one call a figure in ForEachLeanFigure's
// order; the shapes keep their accumulator ids and, for this document, their labels.
struct LeanFigureDigester {
  const FleetDocument& lean;
  DocumentDigest& d;
  FleetAccumulator& accumulator;
  ShapeCache& shapes;
  Labels& label;
  const uint64_t generation;  // ShapeCache::NextGeneration for this document
  const std::string* last_host = nullptr;
  uint32_t host_label = 0;

  // The accumulator id of the shape's key under the document's GPU model (FleetKeyOf).
  uint32_t KeyId(FigureShape& s) {
    if (!s.has_id || s.id_owner != &accumulator || s.id_model != d.model) {
      std::string key = s.key;
      if (!d.model.empty() && !s.names_gpu_model) key += " gpu_model=" + d.model;  // FleetKeyOf
      s.id = accumulator.Intern(s.proto, key);
      s.id_model = d.model;
      s.id_owner = &accumulator;
      s.has_id = true;
    }
    return s.id;
  }

  // Digests one figure of the document's `node`.
  void operator()(const LeanFigure& x, const std::string& node) {
    FigureShape& s = shapes.Get(x.shape);
    DocumentDigest::Figure f;
    f.key = KeyId(s);
    accumulator.AddValue(f.key, x.value, x.stats);
    if (!s.node.empty()) {
      f.node = label(s.node);
    } else {
      if (&node != last_host) last_host = &node, host_label = label(node);
      f.node = host_label;
    }
    if (s.stamp != generation) {  // the shape's first figure in this document
      s.stamp = generation;
      s.entity_label = label(s.entity.label);
      if (s.peer) s.peer_label = label(s.peer->label);
    }
    f.entity = s.entity_label;
    f.entity_kind = static_cast<uint8_t>(s.entity.kind);
    if (s.peer) {
      f.peer = s.peer_label;
      f.peer_kind = static_cast<uint8_t>(s.peer->kind);
    }
    f.value = x.value;
    f.spread = FigureSpread(x.stats);
    f.pct_of_peak = x.has_pct ? static_cast<float>(PctOfPeak(
                                    std::string_view(lean.text).substr(x.pct_offset, x.pct_size)))
                              : -1.0f;
    d.figures.push_back(f);
  }
};

// FactsOf for a lean document: the measurements' versions from their figures' shapes.
std::vector<NodeFacts> LeanFactsOf(const FleetDocument& lean, ShapeCache& shapes) {
  auto add_versions = [&](NodeFacts& f, uint32_t group, auto&& keep) {
    auto [lo, hi] = LeanGroupFigures(lean, group);
    for (auto it = lo; it != hi; ++it) {
      if (!keep(*it)) continue;
      for (const auto& [k, v] : shapes.Get(it->shape).versions) f.versions.try_emplace(k, v);
    }
  };
  return FactsOfImpl(
      lean.doc,
      [&](NodeFacts& f, uint32_t group, size_t i) {
        add_versions(f, group, [&](const LeanFigure& x) { return x.bench == i; });
      },
      [&](NodeFacts& f) { add_versions(f, 0, [](const LeanFigure&) { return true; }); });
}

}  // namespace

std::vector<NodeFacts> FactsOf(const RunDocument& doc) {
  return FactsOfImpl(
      doc,
      [&](NodeFacts& f, uint32_t group, size_t i) {
        const auto& bs = group == 1 ? doc.benchmarks : doc.nodes[group - 2].benchmarks;
        AddVersions(f, bs[i].measurements);
      },
      [&](NodeFacts& f) { AddVersions(f, doc.measurements); });
}

DocumentDigest Digest(const RunDocument& doc, const std::string& source,
                      FleetAccumulator& accumulator) {
  DocumentDigest d;
  d.source = source;
  d.model = GpuModelOf(doc);
  Labels label(d);
  ForEachMeasurement(doc, [&](const Measurement& m, const std::string& node) {
    DocumentDigest::Figure f;
    f.key = accumulator.Add(m, FleetKeyOf(m, d.model));
    f.node = label(NodeOf(m, node));
    Entity e = EntityOf(m);
    f.entity = label(e.label);
    f.entity_kind = static_cast<uint8_t>(e.kind);
    if (auto peer = PeerOf(m)) {
      f.peer = label(peer->label);
      f.peer_kind = static_cast<uint8_t>(peer->kind);
    }
    f.value = m.value;
    f.spread = FigureSpread(m.stats);
    f.pct_of_peak = static_cast<float>(PctOfPeak(m));
    d.figures.push_back(f);
  });
  DigestCompleteness(doc, d);
  d.facts = FactsOf(doc);
  return d;
}

DocumentDigest Digest(const FleetDocument& lean, const std::string& source,
                      FleetAccumulator& accumulator, ShapeCache& shapes) {
  DocumentDigest d;
  d.source = source;
  d.model = LeanGpuModel(lean, shapes);
  Labels label(d);
  d.figures.reserve(lean.figures.size());
  LeanFigureDigester digest_figure{lean, d, accumulator, shapes, label, shapes.NextGeneration()};
  ForEachLeanFigure(lean, digest_figure);
  DigestCompleteness(lean.doc, d);
  d.facts = LeanFactsOf(lean, shapes);
  return d;
}

Result<std::unique_ptr<DigestSpill>> DigestSpill::Create() {
  const char* dir = std::getenv("TMPDIR");
  std::string path = std::string(dir && *dir ? dir : "/tmp") + "/yardstick-merge-XXXXXX";
  int fd = ::mkstemp(path.data());
  if (fd < 0) return Status::Io(path + ": cannot create a temporary file: " + std::strerror(errno));
  ::unlink(path.c_str());
  std::FILE* f = ::fdopen(fd, "w+b");
  if (f == nullptr) {
    ::close(fd);
    return Status::Io("cannot open a temporary file: " + std::string(std::strerror(errno)));
  }
  return std::unique_ptr<DigestSpill>(new DigestSpill(f));
}

DigestSpill::~DigestSpill() { std::fclose(file_); }

Status DigestSpill::Write(const DocumentDigest& d) {
  Out o;
  o.Str(d.source);
  o.Str(d.model);
  o.U32(static_cast<uint32_t>(d.labels.size()));
  for (const auto& l : d.labels) o.Str(l);
  o.U32(static_cast<uint32_t>(d.figures.size()));
  o.buf.append(reinterpret_cast<const char*>(d.figures.data()),
               d.figures.size() * sizeof(DocumentDigest::Figure));
  o.U32(d.incomplete ? 1 : 0);
  o.Str(d.incomplete_reason);
  o.U32(static_cast<uint32_t>(d.lost.size()));
  for (const auto& l : d.lost) o.Str(l);
  o.U32(static_cast<uint32_t>(d.facts.size()));
  for (const NodeFacts& f : d.facts) {
    o.Str(f.node);
    o.U32(static_cast<uint32_t>(f.codes.size()));
    for (const auto& [code, c] : f.codes) {
      o.Str(code);
      o.U32(c.severity == Severity::kFail ? 1 : 0);
      o.Str(c.entity);
      o.Str(c.message);
    }
    o.U32(static_cast<uint32_t>(f.units.size()));
    for (const auto& [unit, outcome] : f.units) {
      o.Str(unit);
      o.U32(static_cast<uint32_t>(outcome));
    }
    o.U32(static_cast<uint32_t>(f.versions.size()));
    for (const auto& [k, v] : f.versions) {
      o.Str(k);
      o.Str(v);
    }
  }
  uint64_t size = o.buf.size();
  if (std::fwrite(&size, sizeof size, 1, file_) != 1 ||
      std::fwrite(o.buf.data(), 1, o.buf.size(), file_) != o.buf.size()) {
    return Status::Io(std::string("cannot write the temporary file of digests: ") +
                      std::strerror(errno));
  }
  bytes_ += sizeof size + size;
  return Status::Ok();
}

Status DigestSpill::Rewind() {
  if (std::fflush(file_) != 0 || std::fseek(file_, 0, SEEK_SET) != 0) {
    return Status::Io(std::string("cannot reread the temporary file of digests: ") +
                      std::strerror(errno));
  }
  return Status::Ok();
}

Result<bool> DigestSpill::Read(DocumentDigest* d) {
  uint64_t size = 0;
  if (std::fread(&size, sizeof size, 1, file_) != 1) return false;
  std::string buf(size, '\0');
  if (std::fread(buf.data(), 1, size, file_) != size)
    return Status::Invalid("the temporary file of digests is truncated");
  In in{buf.data(), buf.data() + buf.size()};
  *d = DocumentDigest{};
  d->source = in.Str();
  d->model = in.Str();
  d->labels.resize(in.U32());
  for (auto& l : d->labels) l = in.Str();
  uint32_t n = in.U32();
  if (!in.ok || static_cast<size_t>(in.end - in.p) < n * sizeof(DocumentDigest::Figure)) {
    return Status::Invalid("the temporary file of digests is damaged");
  }
  d->figures.resize(n);
  // Not for none: data() of an empty vector may be null, which memcpy must not be given.
  if (n > 0) std::memcpy(d->figures.data(), in.p, n * sizeof(DocumentDigest::Figure));
  in.p += n * sizeof(DocumentDigest::Figure);
  d->incomplete = in.U32() != 0;
  d->incomplete_reason = in.Str();
  d->lost.resize(in.U32());
  for (auto& l : d->lost) l = in.Str();
  uint32_t facts = in.U32();
  for (uint32_t i = 0; in.ok && i < facts; ++i) {
    NodeFacts f;
    f.node = in.Str();
    for (uint32_t k = in.U32(); in.ok && k > 0; --k) {
      std::string code = in.Str();
      NodeFacts::Code c;
      c.severity = in.U32() ? Severity::kFail : Severity::kWarn;
      c.entity = in.Str();
      c.message = in.Str();
      f.codes.emplace(std::move(code), std::move(c));
    }
    for (uint32_t k = in.U32(); in.ok && k > 0; --k) {
      std::string unit = in.Str();
      f.units.emplace(std::move(unit), static_cast<Outcome>(in.U32()));
    }
    for (uint32_t k = in.U32(); in.ok && k > 0; --k) {
      std::string key = in.Str();
      f.versions.emplace(std::move(key), in.Str());
    }
    d->facts.push_back(std::move(f));
  }
  if (!in.ok) return Status::Invalid("the temporary file of digests is damaged");
  return true;
}

}  // namespace ys::fleet
