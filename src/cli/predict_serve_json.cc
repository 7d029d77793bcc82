// `predict --serve --json`: the serving answer's field list (core/json_fields.h), from which the
// schema predict_serve is generated (docs/schemas.md). Declared in cli/predict_serve.h.
#include <nlohmann/json.hpp>

#include "cli/predict_serve.h"
#include "core/document_schemas.h"
#include "core/json_fields.h"
#include "core/json_fields_values.h"
#include "core/json_schema.h"
#include "predict/serve_phase_prediction.h"

namespace ys::predict {

template <typename V>
void Fields(V& v, ServeTerm& t) {
  v("name", t.name);
  v("seconds", t.seconds);
  v("basis", t.basis);
}

}  // namespace ys::predict

namespace ys::cli {
namespace predict_serve_json {

struct Breakdown {
  const std::vector<predict::ServeTerm>& prefill;
  const std::vector<predict::ServeTerm>& decode;
};

template <typename V>
void Fields(V& v, Breakdown& b) {
  v("prefill", b.prefill);
  v("decode", b.decode);
}

// The command line's inputs, as given (the model as its file names it).
struct Inputs {
  const ServeArgs& a;
};

template <typename V>
void Fields(V& v, Inputs& x) {
  const ServeArgs& a = x.a;
  v("model", a.model);
  v("chip", a.chip);
  v("dtype", a.dtype);
  v("gpus", a.gpus);
  v("tp", a.tp);
  v("pp", a.pp);
  v("ep", a.ep);
  v("prefill_gpus", a.prefill_gpus);
  v("decode_gpus", a.decode_gpus);
  v("isl", a.isl);
  v("osl", a.osl);
  v("concurrency", a.concurrency);
  v("max_throughput", a.max_throughput);
  v("sets", a.sets);
  v("measured", a.measured);
}

struct ServeDocument {
  const ServeArgs& a;
  const predict::ServePrediction& p;
  const predict::ServeExpectedError& e;
  const std::string& constants;
  const std::vector<std::string>& measured;  // each rate a --measured document gave, one line
};

template <typename V>
void Fields(V& v, ServeDocument& d) {
  v("kind", json_fields::Exactly<std::string>{"serving"});
  v("output_tokens_per_s_per_gpu", d.p.output_tokens_per_s_per_gpu);
  v("output_tokens_per_s", d.p.output_tokens_per_s);
  v("tokens_per_s_per_user", d.p.tokens_per_s_per_user);
  v("ttft_s", d.p.ttft_s);
  v("tpot_s", d.p.tpot_s);
  v("batch_per_instance", d.p.batch_per_instance);
  v("instances", d.p.instances);
  v.computed("breakdown", [&] { return Breakdown{d.p.prefill, d.p.decode}; });
  v("expected_error", d.e);
  v("notes", d.p.notes);
  v("constants", d.constants);
  v("measured", d.measured);
  v.computed("inputs", [&] { return Inputs{d.a}; });
}

YS_DOCUMENT_SCHEMA("predict_serve", ServeDocument, "yardstick predict --serve --json",
                   "A serving deployment predicted from a model's shape, a precision, a layout "
                   "and a load: output tokens/s, tokens/s per user, TTFT and TPOT, the prefill "
                   "and decode breakdowns that add up to them, the expected error of the chip "
                   "and precision, and the inputs.");

}  // namespace predict_serve_json

nlohmann::json ServeJson(const ServeArgs& a, const predict::ServePrediction& p,
                         const predict::ServeExpectedError& e, const std::string& constants_path,
                         const std::vector<std::string>& measured) {
  return nlohmann::json(
      json_fields::Write(predict_serve_json::ServeDocument{a, p, e, constants_path, measured}));
}

}  // namespace ys::cli
