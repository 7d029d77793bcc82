// Finds each suite workload's training log in a runs directory: the llmb-run experiments layout
// (<dir>/workloads/<workload>/experiments/<exp>/log-<exp>_<jobid>_<retry>.out beside
// llmb-config_<jobid>.yaml, which names the model, size, precision and scale), or a plain
// layout (<dir>/<workload id>/...log or .out). Only the newest retry of a job counts; when a
// workload was run as several jobs, the newest job (highest id) counts and the others are listed.
#ifndef YARDSTICK_VALIDATE_RUN_DISCOVERY_H_
#define YARDSTICK_VALIDATE_RUN_DISCOVERY_H_

#include <map>
#include <string>
#include <vector>

#include "core/status.h"
#include "validate/suite.h"

namespace ys::validate {

struct DiscoveredRun {
  std::string log;  // the log that counts
  struct Superseded {
    std::string path;
    std::string why;  // "older retry of ...", "earlier job; ... counts"
  };
  std::vector<Superseded> superseded;
  std::vector<std::string>
      side_files;   // llmb-config, sbatch output, ... of the counted job's folder
  std::string how;  // "llmb-config_4242.yaml model_info", "folder name"
};

struct Discovery {
  std::map<std::string, DiscoveredRun> runs;  // by suite workload id
  std::vector<std::string> ignored;           // logs matching no suite workload, with why
};

// Errors only when `dir` is not a readable directory or a llmb-config is malformed.
Result<Discovery> DiscoverRuns(const Suite& suite, const std::string& dir);

}  // namespace ys::validate

#endif  // YARDSTICK_VALIDATE_RUN_DISCOVERY_H_
