#include "slurm/cluster_config.h"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <initializer_list>
#include <set>
#include <span>

#include "core/document_file.h"
#include "core/range_check.h"
#include "core/toml_reader.h"
#include "slurm/shell_quote.h"

namespace ys::slurm {

namespace {

constexpr std::string_view kPlaceholders[] = {"workload", "model",     "size",          "dtype",
                                              "gpus",     "nodes",     "gpus_per_node", "seq_len",
                                              "gbs",      "framework", "runs_dir",      "log_dir"};

// sbatch options yardstick sets itself from the suite and [slurm]; a duplicate would silently win.
constexpr std::string_view kOwnedSbatchOptions[] = {
    "--job-name",  "-J",          "--output",
    "-o",          "--error",     "-e",
    "--nodes",     "-N",          "--ntasks-per-node",
    "--gres",      "--partition", "-p",
    "--account",   "-A",          "--qos",
    "-q",          "--time",      "-t",
    "--exclusive", "--mem",       "--parsable",
    "--chdir",     "-D"};

Status ValidateTimeLimit(const std::string& v) {
  if (v == "UNLIMITED" || v == "INFINITE") return Status::Ok();
  bool ok = !v.empty();
  for (char c : v) ok = ok && ((c >= '0' && c <= '9') || c == ':' || c == '-');
  if (ok) return Status::Ok();
  return Status::Invalid("'" + v + "': expected a Slurm time limit (MM, HH:MM:SS or D-HH:MM:SS)");
}

Status ValidateMount(const std::string& m) {
  if (m.find(',') != std::string::npos)
    return Status::Invalid("'" + m + "': a mount cannot contain ','");
  std::vector<std::string> parts;
  size_t b = 0;
  for (size_t e; (e = m.find(':', b)) != std::string::npos; b = e + 1)
    parts.push_back(m.substr(b, e - b));
  parts.push_back(m.substr(b));
  if (parts.size() > 3 || parts[0].empty() || parts[0][0] != '/' ||
      (parts.size() > 1 && (parts[1].empty() || parts[1][0] != '/'))) {
    return Status::Invalid("'" + m + "': expected /host/path[:/container/path[:flags]]");
  }
  if (m.find('\0') != std::string::npos || m.find('\n') != std::string::npos)
    return Status::Invalid("a mount cannot contain a control character");
  return Status::Ok();
}

Status ValidateContainerPath(const std::string& p) {
  if (p.empty() || p[0] != '/' || p.find_first_of(":,\n") != std::string::npos) {
    return Status::Invalid("'" + p + "': expected an absolute path without ':' or ','");
  }
  return Status::Ok();
}

// [serving]: the placeholders of the server commands, and those the load command adds.
constexpr std::string_view kServingPlaceholders[] = {
    "phase",         "model", "served_model", "stack", "gpus",     "nodes",
    "gpus_per_node", "tp",    "ep",           "dp",    "pp",       "port",
    "isl",           "osl",   "host",         "url",   "runs_dir", "log_dir"};
constexpr std::string_view kLoadPlaceholders[] = {"concurrency", "requests", "warmup_requests",
                                                  "artifact_dir"};

// Every {name} of `arg` must be one of `known` (or of `more`).
Status ValidatePlaceholders(const std::string& arg, std::span<const std::string_view> known,
                            std::span<const std::string_view> more = {}) {
  for (size_t b = arg.find('{'); b != std::string::npos; b = arg.find('{', b + 1)) {
    size_t e = arg.find('}', b);
    std::string_view name = e == std::string::npos ? std::string_view()
                                                   : std::string_view(arg).substr(b + 1, e - b - 1);
    bool found = false;
    for (auto p : known) found = found || p == name;
    for (auto p : more) found = found || p == name;
    if (!found) {
      std::string list;
      for (auto p : known) list += fmt::format(" {{{}}}", p);
      for (auto p : more) list += fmt::format(" {{{}}}", p);
      return Status::Invalid("'" + arg + "': unknown placeholder; known:" + list);
    }
  }
  return Status::Ok();
}

// [slurm]: where and how long each job runs, and the sbatch options the site adds.
Status ReadSlurmTable(const toml::table& root, const std::string& path, ClusterConfig& c) {
  auto slurm_or = TomlSubTable(root, path, "slurm");
  if (!slurm_or.ok()) return slurm_or.status();
  const toml::table* slurm = *slurm_or;
  if (slurm == nullptr) return Status::Invalid(path + ": missing table [slurm]");
  TomlTableReader s(*slurm, path, "[slurm]");
  YS_RETURN_IF_ERROR(s.OnlyKeys({"partition", "account", "qos", "time_limit", "gpus_per_node",
                                 "nodes", "gres", "sbatch_options"}));
  YS_RETURN_IF_ERROR(s.String("partition", &c.partition, /*required=*/true, /*allow_empty=*/false));
  YS_RETURN_IF_ERROR(s.Check("partition", ValidateSbatchToken("partition", c.partition)));
  YS_RETURN_IF_ERROR(s.String("account", &c.account, /*required=*/false, /*allow_empty=*/false));
  if (!c.account.empty())
    YS_RETURN_IF_ERROR(s.Check("account", ValidateSbatchToken("account", c.account)));
  YS_RETURN_IF_ERROR(s.String("qos", &c.qos, /*required=*/false, /*allow_empty=*/false));
  if (!c.qos.empty()) YS_RETURN_IF_ERROR(s.Check("qos", ValidateSbatchToken("qos", c.qos)));
  YS_RETURN_IF_ERROR(
      s.String("time_limit", &c.time_limit, /*required=*/true, /*allow_empty=*/false));
  YS_RETURN_IF_ERROR(s.Check("time_limit", ValidateTimeLimit(c.time_limit)));
  YS_RETURN_IF_ERROR(s.Int("gpus_per_node", &c.gpus_per_node, 1, 64, /*required=*/true));
  YS_RETURN_IF_ERROR(s.Int("nodes", &c.nodes, 1, 1000000, /*required=*/false));
  YS_RETURN_IF_ERROR(s.Bool("gres", &c.gres));
  YS_RETURN_IF_ERROR(s.Strings("sbatch_options", &c.sbatch_options, /*required=*/false));
  for (const auto& o : c.sbatch_options) {
    YS_RETURN_IF_ERROR(s.Check("sbatch_options", ValidateSbatchToken("option", o)));
    if (o.size() < 2 || o[0] != '-')
      return s.Error("sbatch_options",
                     "'" + o + "': expected an option such as --reservation=NAME");
    std::string name = o.substr(0, o.find('='));
    for (auto owned : kOwnedSbatchOptions) {
      if (name == owned) {
        return s.Error("sbatch_options", "'" + o + "': yardstick sets " + name +
                                             " itself (from the suite and [slurm])");
      }
    }
  }
  return s.NoOtherKeys();
}

// [container] (optional): the Pyxis image, its mounts and the NCCL topology file.
Status ReadContainerTable(const toml::table& root, const std::string& path, ClusterConfig& c) {
  auto t_or = TomlSubTable(root, path, "container");
  if (!t_or.ok()) return t_or.status();
  const toml::table* t = *t_or;
  if (t != nullptr) {
    TomlTableReader r(*t, path, "[container]");
    YS_RETURN_IF_ERROR(r.OnlyKeys({"image", "mounts", "nccl_topo_file", "nccl_topo_mount"}));
    YS_RETURN_IF_ERROR(r.String("image", &c.image, /*required=*/true, /*allow_empty=*/false));
    YS_RETURN_IF_ERROR(r.Strings("mounts", &c.mounts, /*required=*/false));
    for (const auto& m : c.mounts) YS_RETURN_IF_ERROR(r.Check("mounts", ValidateMount(m)));
    YS_RETURN_IF_ERROR(
        r.String("nccl_topo_file", &c.nccl_topo_file, /*required=*/false, /*allow_empty=*/false));
    if (!c.nccl_topo_file.empty())
      YS_RETURN_IF_ERROR(r.Check("nccl_topo_file", ValidateContainerPath(c.nccl_topo_file)));
    YS_RETURN_IF_ERROR(
        r.String("nccl_topo_mount", &c.nccl_topo_mount, /*required=*/false, /*allow_empty=*/false));
    YS_RETURN_IF_ERROR(r.Check("nccl_topo_mount", ValidateContainerPath(c.nccl_topo_mount)));
    YS_RETURN_IF_ERROR(r.NoOtherKeys());
  }
  return Status::Ok();
}

// [launch]: the command every rank runs, with its placeholders, and extra srun options.
Status ReadLaunchTable(const toml::table& root, const std::string& path, ClusterConfig& c) {
  auto launch_or = TomlSubTable(root, path, "launch");
  if (!launch_or.ok()) return launch_or.status();
  const toml::table* launch = *launch_or;
  if (launch == nullptr) {
    if (c.serving.present) return Status::Ok();  // serving phases only
    return Status::Invalid(path + ": missing table [launch] with command = [...]");
  }
  TomlTableReader l(*launch, path, "[launch]");
  YS_RETURN_IF_ERROR(l.OnlyKeys({"command", "srun_options"}));
  YS_RETURN_IF_ERROR(
      l.Strings("command", &c.command, /*required=*/true, /*allow_empty_list=*/false));
  for (const auto& a : c.command)
    YS_RETURN_IF_ERROR(l.Check("command", ValidatePlaceholders(a, kPlaceholders)));
  YS_RETURN_IF_ERROR(l.Strings("srun_options", &c.srun_options, /*required=*/false));
  for (const auto& o : c.srun_options) {
    if (o.empty() || o[0] != '-')
      return l.Error("srun_options", "'" + o + "': expected an option such as --cpu-bind=none");
  }
  return l.NoOtherKeys();
}

// One command list of [serving] (optional): non-empty, each argument's placeholders known.
Status ReadServingCommand(TomlTableReader& r, const char* key, std::vector<std::string>* out) {
  YS_RETURN_IF_ERROR(r.Strings(key, out, /*required=*/false, /*allow_empty_list=*/false));
  const bool load = std::string_view(key) == "load_command";
  for (const auto& a : *out) {
    YS_RETURN_IF_ERROR(
        r.Check(key, ValidatePlaceholders(a, kServingPlaceholders,
                                          load ? std::span(kLoadPlaceholders)
                                               : std::span<const std::string_view>())));
  }
  return Status::Ok();
}

// [serving] (optional): how serving phases run; every command overrides yardstick's own.
Status ReadServingTable(const toml::table& root, const std::string& path, ClusterConfig& c) {
  auto t_or = TomlSubTable(root, path, "serving");
  if (!t_or.ok()) return t_or.status();
  if (*t_or == nullptr) return Status::Ok();
  ServingConfig& s = c.serving;
  s.present = true;
  TomlTableReader r(**t_or, path, "[serving]");
  YS_RETURN_IF_ERROR(r.OnlyKeys({"image", "port", "health_path", "health_timeout_s",
                                 "telemetry_interval_ms", "server_command", "frontend_command",
                                 "prefill_command", "decode_command", "load_command"}));
  YS_RETURN_IF_ERROR(r.String("image", &s.image, /*required=*/false, /*allow_empty=*/false));
  YS_RETURN_IF_ERROR(r.Int("port", &s.port, 1, 65535, /*required=*/false));
  YS_RETURN_IF_ERROR(r.String("health_path", &s.health_path, /*required=*/false));
  if (s.health_path.empty() || s.health_path[0] != '/' ||
      s.health_path.find_first_of(" \t\n'\"") != std::string::npos) {
    return r.Error("health_path", "expected a URL path such as /health or /v1/models");
  }
  YS_RETURN_IF_ERROR(r.Int("health_timeout_s", &s.health_timeout_s, 1, 86400, false));
  YS_RETURN_IF_ERROR(r.Int("telemetry_interval_ms", &s.telemetry_interval_ms, 100, 600000, false));
  YS_RETURN_IF_ERROR(ReadServingCommand(r, "server_command", &s.server_command));
  YS_RETURN_IF_ERROR(ReadServingCommand(r, "frontend_command", &s.frontend_command));
  YS_RETURN_IF_ERROR(ReadServingCommand(r, "prefill_command", &s.prefill_command));
  YS_RETURN_IF_ERROR(ReadServingCommand(r, "decode_command", &s.decode_command));
  YS_RETURN_IF_ERROR(ReadServingCommand(r, "load_command", &s.load_command));
  return r.NoOtherKeys();
}

// [environment] (optional): variables every job exports.
Status ReadEnvironmentTable(const toml::table& root, const std::string& path, ClusterConfig& c) {
  auto env_or = TomlSubTable(root, path, "environment");
  if (!env_or.ok()) return env_or.status();
  const toml::table* env = *env_or;
  if (env != nullptr) {
    for (const auto& [k, v] : *env) {
      std::string key(k.str());
      auto at = [&, &v = v](std::string_view what) {
        return Status::Invalid(TomlWhere(path, "[environment]", key, &v) + ": " +
                               std::string(what));
      };
      if (Status st = ValidateEnvName("name", key); !st.ok()) return at(st.message());
      if (!v.is_string()) return at("expected a string value");
      if (key == "NCCL_TOPO_FILE" && !c.nccl_topo_file.empty())
        return at("set by [container] nccl_topo_file");
      c.environment[key] = *v.value<std::string>();
    }
  }
  return Status::Ok();
}

}  // namespace

Result<ClusterConfig> ParseClusterConfig(std::string_view toml_text, const std::string& path) {
  auto parsed = ParseToml(toml_text, path);
  if (!parsed.ok()) return parsed.status();
  const toml::table& root = *parsed;
  ClusterConfig c;
  c.path = path;
  for (const auto& [k, v] : root) {
    std::string key(k.str());
    if (key != "slurm" && key != "container" && key != "launch" && key != "environment" &&
        key != "serving") {
      return Status::Invalid(
          fmt::format("{}:{}: unknown table or key '{}'; expected [slurm], [container], "
                      "[launch], [serving], [environment]",
                      path, v.source().begin.line, key));
    }
  }
  YS_RETURN_IF_ERROR(ReadSlurmTable(root, path, c));
  YS_RETURN_IF_ERROR(ReadContainerTable(root, path, c));
  YS_RETURN_IF_ERROR(ReadServingTable(root, path, c));
  YS_RETURN_IF_ERROR(ReadLaunchTable(root, path, c));
  YS_RETURN_IF_ERROR(ReadEnvironmentTable(root, path, c));
  return c;
}

Result<ClusterConfig> LoadClusterConfig(const std::string& path) {
  auto text = ReadDocumentFile(path, DocumentKind::kToml);
  if (!text.ok()) return text.status();
  return ParseClusterConfig(*text, path);
}

}  // namespace ys::slurm
