#include "validate/scorecard_json.h"

#include <array>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "core/build_info.h"
#include "core/document_schemas.h"
#include "core/json_document.h"
#include "core/json_fields.h"
#include "core/json_schema.h"
#include "core/validation_document.h"
#include "workloads/step_time_json.h"

namespace ys::validate {

inline auto JsonNames(RowOutcome) {
  return std::array{std::pair{RowOutcome::kPass, "pass"}, std::pair{RowOutcome::kFail, "fail"},
                    std::pair{RowOutcome::kInconclusive, "inconclusive"}};
}

// The field lists of validation.json (core/json_fields.h); core/validation_document.cc reads it.
// A key the reader reads too is a validation_keys constant (core/validation_document.h), spelt
// once for both sides.
template <typename V>
void Fields(V& v, Suite& s) {
  namespace keys = validation_keys;
  v(keys::kChip, s.chip);
  v(keys::kRecipeRelease, s.recipe_release);
  v(keys::kThreshold, s.threshold);
  v("rule", s.rule);
  v.computed("window", [&] { return std::vector<int>{s.window_first, s.window_last}; });
  v("source", s.source);
}

template <typename V>
void Fields(V& v, Measured& m) {
  namespace keys = validation_keys;
  v("status", m.status);
  v("reason", m.reason);
  v(keys::kLog, m.log_path);
  v("window_samples", m.window_samples);
  v("step_time_mean_s", m.step_time_mean_s);
  v("step_time_stdev_s", m.step_time_stdev_s);
  v(keys::kTflopsPerGpu, m.tflops_per_gpu);
}

template <typename V>
void Fields(V& v, Reference& r) {
  v("step_time_s", r.step_time_s);
  v(validation_keys::kTflopsPerGpu, r.tflops_per_gpu);
  v("release", r.provenance.release);
  v("kind", r.provenance.kind);
  v("source", r.provenance.source);
  v("date", r.provenance.date);
  v("hardware", r.provenance.hardware);
  v("software", r.provenance.software);
  v("made_by", r.provenance.made_by);
  v("file", r.file);
  v("inconsistent", r.inconsistent);
  v("path", r.provenance.path);
}

template <typename V>
void Fields(V& v, ScoredWorkload& row) {
  namespace keys = validation_keys;
  SuiteWorkload& w = row.workload;
  v(keys::kId, w.id);
  v("model", w.model);
  v("size", w.size);
  v("dtype", w.dtype);
  v(keys::kGpus, w.gpus);
  v("seq_len", w.seq_len);
  v("gbs", w.gbs);
  v(keys::kOutcome, row.outcome);
  v(keys::kReason, row.reason);
  v(keys::kMeasured, row.measured);
  v(keys::kReference, row.reference);
  v(keys::kScore, row.score);
  v(keys::kTokensPerSPerGpu, row.tokens_per_s_per_gpu);
  v(keys::kMfu, row.mfu);
  // Step times after warm-up and what they say (workloads/step_time.h); null when the log has
  // fewer than the analysis needs.
  const std::optional<Measured>& m = row.measured;
  v.computed("step_times_first_step",
             [&] { return m ? std::optional(m->step_times_first_step) : std::nullopt; });
  v.computed(keys::kStepTimesS, [&] { return m ? m->step_times_s : std::vector<double>{}; });
  v.computed("step_time_analysis", [&]() -> std::optional<nlohmann::ordered_json> {
    if (!m) return std::nullopt;
    auto a = workloads::AnalyzeStepTimes(m->step_times_s);
    if (!a.ok()) return std::nullopt;
    return workloads::ToJson(*a);
  });
}

inline auto JsonNames(PhaseOutcome) {
  return std::array{std::pair{PhaseOutcome::kPass, "pass"}, std::pair{PhaseOutcome::kFail, "fail"},
                    std::pair{PhaseOutcome::kInconclusive, "inconclusive"}};
}

// A serving phase's row: the phase as the suite defines it, the reference with its provenance,
// each metric's measured and reference figures and score, the point compared and the points
// refused with why.
template <typename V>
void Fields(V& v, ServingPhase& p) {
  v("phase", p.phase);
  v("model", p.model);
  v("precision", p.precision);
  v("stack", p.stack);
  v("stack_version", p.stack_version);
  v("gpus", p.gpus);
  v("tp", p.tp);
  v("ep", p.ep);
  v("dp", p.dp);
  v("prefill_workers", p.prefill_workers);
  v("prefill_tp", p.prefill_tp);
  v("decode_workers", p.decode_workers);
  v("decode_tp", p.decode_tp);
  v("isl", p.isl);
  v("osl", p.osl);
  v("concurrency", p.concurrency);
  v("requests", p.requests);
  v("mode", p.mode);
  v("gpu_denominator", p.gpu_denominator);
}

template <typename V>
void Fields(V& v, ServingReference& r) {
  v("concurrency", r.concurrency);
  v("mode", r.mode);
  v("gpu_denominator", r.gpu_denominator);
  v("output_tokens_per_s_per_gpu", r.output_tokens_per_s_per_gpu);
  v("ttft_ms", r.ttft_ms);
  v("ttft_stat", r.ttft_stat);
  v("tpot_ms", r.tpot_ms);
  v("tpot_stat", r.tpot_stat);
  v("tokens_per_s_per_user", r.tokens_per_s_per_user);
  v("release", r.provenance.release);
  v("kind", r.provenance.kind);
  v("source", r.provenance.source);
  v("date", r.provenance.date);
  v("hardware", r.provenance.hardware);
  v("software", r.provenance.software);
  v("made_by", r.provenance.made_by);
  v("file", r.file);
  v("path", r.provenance.path);
}

template <typename V>
void Fields(V& v, ScoredMetric& m) {
  v("key", m.key);
  v("stat", m.stat);
  v("name", m.name);
  v("unit", m.unit);
  v("larger_is_better", m.larger_is_better);
  v("measured", m.measured);
  v("reference", m.reference);
  v("score", m.score);
  v("outcome", m.outcome);
  v("note", m.note);
}

template <typename V>
void Fields(V& v, PhasePointSummary& p) {
  v("point", p.point);
  v("output_tokens_per_s_per_gpu", p.output_tokens_per_s_per_gpu);
  v("tokens_per_s_per_user", p.tokens_per_s_per_user);
  v("ttft_ms", p.ttft_ms);
  v("tpot_ms", p.tpot_ms);
  v("used", p.used);
  v("why", p.why);
}

template <typename V>
void Fields(V& v, ScoredPhase& s) {
  namespace keys = validation_keys;
  v(keys::kId, s.phase.id);
  v("phase", s.phase);
  v(keys::kOutcome, s.outcome);
  v(keys::kReason, s.reason);
  v("metrics", s.metrics);
  v(keys::kReference, s.reference);
  v("files", s.files);
  v("format", s.format);
  v.computed("point", [&]() -> std::optional<std::string> {
    if (!s.point) return std::nullopt;
    const ServingPoint& p = *s.point;
    if (p.max_concurrency) return "concurrency " + std::to_string(*p.max_concurrency);
    return std::string(ServingModeName(p.mode));
  });
  v("point_tokens_per_s_per_user", s.point_tokens_per_s_per_user);
  v("refused", s.refused);
  v("points", s.points);
  v.optional("prediction", s.prediction);
}

namespace scorecard_json {

// The document: a suite and its scorecard, with the tool that wrote it, and the predicted
// column when there is one (written by the report layer's own field list).
struct Document {
  const Suite& suite;
  const Scorecard& card;
  const nlohmann::ordered_json* prediction;
};

struct Verdict {
  bool pass = false;
  std::string text;
  std::string state;  // "pass", "fail", "inconclusive"
};

template <typename V>
void Fields(V& v, Verdict& x) {
  namespace keys = validation_keys;
  v(keys::kPass, x.pass);
  v(keys::kState, x.state);
  v(keys::kText, x.text);
}

template <typename V>
void Fields(V& v, Document& d) {
  namespace keys = validation_keys;
  v.computed("schema_version", [] { return kValidationSchemaVersion; });
  v.computed(keys::kKind, [] { return kValidationDocumentKind; });
  v.computed(keys::kTool, [] {
    return std::vector<std::pair<std::string, std::string>>{
        {"name", "yardstick"},
        {keys::kToolVersion, std::string(kVersion) + " (" + kGitDescribe + ")"}};
  });
  v(keys::kSuite, d.suite);
  v(keys::kWorkloads, d.card.rows);
  if (!d.card.phases.empty()) v("phases", d.card.phases);
  v.computed(keys::kVerdict, [&] { return Verdict{d.card.pass, d.card.verdict, d.card.State()}; });
  if (d.prediction != nullptr) v("prediction", *d.prediction);
}

// The schema walks the document without and with a prediction (validate --predict), and with
// serving phases.
std::vector<Document> JsonSchemaSamples(const Document*) {
  static const nlohmann::ordered_json kPrediction = nlohmann::ordered_json::object();
  static const Scorecard kWithPhases = [] {
    Scorecard c;
    c.phases.emplace_back();
    return c;
  }();
  const auto& suite = json_fields::SampleOf<Suite>();
  const auto& card = json_fields::SampleOf<Scorecard>();
  return {Document{suite, card, nullptr}, Document{suite, card, &kPrediction},
          Document{suite, kWithPhases, nullptr}};
}

YS_DOCUMENT_SCHEMA("validation", Document, "yardstick validation document (validation.json)",
                   "A suite's scorecard: each workload's measured step time against its "
                   "reference, its score and outcome, the verdict, and the predicted step "
                   "times when validate ran with --predict.");

}  // namespace scorecard_json

nlohmann::ordered_json ToJson(const Suite& suite, const Scorecard& card,
                              const nlohmann::ordered_json* prediction) {
  return json_fields::Write(scorecard_json::Document{suite, card, prediction});
}

namespace {

void Diff(const nlohmann::json& a, const nlohmann::json& b, const std::string& where,
          std::vector<std::string>& out) {
  // Where the files were read from, not what they say: an archive's copy is elsewhere.
  static const std::set<std::string> kIgnored = {"tool", "created_at", "log", "path", "files"};
  if (a.is_number() && b.is_number()) {
    double x = a.get<double>(), y = b.get<double>();
    double scale = std::max({std::fabs(x), std::fabs(y), 1e-300});
    if (std::fabs(x - y) / scale > 1e-9)
      out.push_back(where + ": claimed " + JsonForMessage(a) + ", recomputed " + JsonForMessage(b));
    return;
  }
  if (a.type() != b.type()) {
    out.push_back(where + ": claimed " + JsonForMessage(a) + ", recomputed " + JsonForMessage(b));
    return;
  }
  if (a.is_object()) {
    std::set<std::string> keys;
    for (const auto& [k, v] : a.items()) keys.insert(k);
    for (const auto& [k, v] : b.items()) keys.insert(k);
    for (const auto& k : keys) {
      if (kIgnored.count(k)) continue;
      std::string w = where.empty() ? k : where + "." + k;
      if (!a.contains(k)) {
        // Documents written before verdict.state existed say the same with verdict.pass.
        if (w == "verdict.state") continue;
        out.push_back(w + ": missing from the claimed document");
      } else if (!b.contains(k)) {
        out.push_back(w + ": not in the recomputed document");
      } else {
        Diff(a[k], b[k], w, out);
      }
    }
    return;
  }
  if (a.is_array()) {
    if (a.size() != b.size()) {
      out.push_back(where + ": claimed " + std::to_string(a.size()) + " entries, recomputed " +
                    std::to_string(b.size()));
      return;
    }
    for (size_t i = 0; i < a.size(); ++i) {
      std::string w = where + "[" + std::to_string(i) + "]";
      if (a[i].is_object() && a[i].contains("id"))
        w = where + "[" + JsonForMessage(a[i]["id"]) + "]";
      Diff(a[i], b[i], w, out);
    }
    return;
  }
  if (a != b)
    out.push_back(where + ": claimed " + JsonForMessage(a) + ", recomputed " + JsonForMessage(b));
}

}  // namespace

std::vector<std::string> CompareValidation(const nlohmann::json& claimed,
                                           const nlohmann::json& recomputed) {
  std::vector<std::string> out;
  Diff(claimed, recomputed, "", out);
  return out;
}

}  // namespace ys::validate
