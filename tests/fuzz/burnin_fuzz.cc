// Fuzz target: burn-in documents read back, by selector byte:
//   0 the burn-in report in a run document (burnin_report/burnin_json.cc BurninReportFromJson)
//   1 one burn-in entity (burnin_report/burnin_json.cc BurninEntityFromJson)
//   2 a cycle's entity samples (burnin/observation.cc EntitySamplesFromJson)
//   3 the checkpoint file (burnin/resume_checkpoint.cc LoadCheckpoint) and the analyser state in it
//     (burnin/analyser_state.cc Analyser::LoadState), as a resumed burn-in reads them
//   4 the heartbeat file (burnin/resume_checkpoint.cc ReadHeartbeat)
#include <nlohmann/json.hpp>

#include "burnin/analyser.h"
#include "burnin/observation.h"
#include "burnin/resume_checkpoint.h"
#include "burnin_report/burnin_json.h"
#include "fuzz_target.h"
#include "fuzz_util.h"

YS_FUZZ_TARGET(burnin) {
  using namespace ys::burnin;
  std::string_view text = ys::fuzz::AsText(data, size);
  std::optional<int> which = ys::fuzz::TakeSelector(&text, 5);
  if (!which) return 0;
  if (*which == 3) {
    ys::fuzz::WriteScratch(kCheckpointFile, text);
    auto c = LoadCheckpoint(ys::fuzz::ScratchDir());
    if (c.ok() && c->has_value()) (void)Analyser::LoadState(*(*c)->analyser, "analyser");
    return 0;
  }
  if (*which == 4) {
    ys::fuzz::WriteScratch(kHeartbeatFile, text);
    (void)ReadHeartbeat(ys::fuzz::ScratchDir());
    return 0;
  }
  std::optional<nlohmann::json> j = ys::fuzz::ParseJson(text);
  if (!j) return 0;
  switch (*which) {
    case 0:
      (void)ys::BurninReportFromJson(*j, "burnin");
      break;
    case 1:
      (void)ys::BurninEntityFromJson(*j, "entity");
      break;
    case 2:
      (void)EntitySamplesFromJson(*j, "samples");
      break;
  }
  return 0;
}
