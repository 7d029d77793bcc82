// llmb-config_<JOBID>.yaml, which llmb-run writes beside each job's log: what ran (model, size,
// precision, GPU count, GPU type, framework). Only the fields ingestion needs are read.
//
// There is no YAML library in the dependencies, so this is a small strict reader for the layout
// llmb-run writes (PyYAML block style): top-level sections of "key: scalar" pairs, scalars plain,
// 'single' or "double" quoted, or an empty flow collection ({} / []); a key with no value may
// hold a deeper block or a "- item" list, which is skipped. Anything else (tabs in indentation,
// a line that is not "key: value", a duplicate key, an unterminated quote, an indented line
// outside a section) is an error naming the file, the line and what was expected.
#ifndef YARDSTICK_VALIDATE_LLMB_CONFIG_H_
#define YARDSTICK_VALIDATE_LLMB_CONFIG_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"

namespace ys::validate {

struct YamlScalar {
  std::string value;  // unquoted
  int64_t line = 0;
};
// section -> key -> scalar; top-level scalars are in section "".
using YamlSections = std::map<std::string, std::map<std::string, YamlScalar>>;

// `name` is used in messages ("llmb-config_4242.yaml:7: ...").
Result<YamlSections> ParseFlatYaml(std::string_view text, std::string_view name);

struct LlmbConfig {
  std::string path;
  std::string job_id;      // job_info.job_id
  std::string framework;   // workload_info.framework: nemo2, megatron_bridge, ...
  std::string fw_version;  // workload_info.fw_version (container tag)
  std::string model_name;  // model_info.*
  std::string model_size;
  std::string dtype;
  std::optional<int64_t> scale;  // GPUs
  std::string gpu_type;
  std::optional<int64_t> gpus_per_node;  // cluster_info.gpus_per_node
  bool operator==(const LlmbConfig&) const = default;
};

// Requires a model_info section; integer fields must be positive integers.
Result<LlmbConfig> ParseLlmbConfig(std::string_view text, std::string_view name);
// Reads at most 1 MiB.
Result<LlmbConfig> ReadLlmbConfig(const std::string& path);

// "<dir of log>/llmb-config_<jobid>.yaml" for a retry log name, or empty.
std::string LlmbConfigPathFor(std::string_view log_path);

}  // namespace ys::validate

#endif  // YARDSTICK_VALIDATE_LLMB_CONFIG_H_
