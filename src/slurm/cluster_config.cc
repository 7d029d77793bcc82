#include "slurm/cluster_config.h"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <initializer_list>
#include <set>

#include "core/document_file.h"
#include "core/range_check.h"
#include "slurm/shell_quote.h"
#include "validate/toml_util.h"

namespace ys::slurm {

namespace {

constexpr std::string_view kPlaceholders[] = {"workload", "model", "size", "dtype", "gpus", "nodes",
                                              "gpus_per_node", "seq_len", "gbs", "framework",
                                              "runs_dir", "log_dir"};

// sbatch options yardstick sets itself from the suite and [slurm]; a duplicate would silently win.
constexpr std::string_view kOwnedSbatchOptions[] = {
    "--job-name", "-J", "--output", "-o", "--error", "-e", "--nodes", "-N", "--ntasks-per-node",
    "--gres", "--partition", "-p", "--account", "-A", "--qos", "-q", "--time", "-t", "--exclusive",
    "--mem", "--parsable", "--chdir", "-D"};

// Reads one table strictly; every message is "<file>:<line>: [table] key: what was expected".
class Reader {
 public:
  Reader(const toml::table& t, std::string path, std::string table)
      : t_(t), path_(std::move(path)), table_(std::move(table)) {}

  // "cluster.toml:4: [slurm] gpus_per_node"
  std::string Where(const toml::node* n, std::string_view key) const {
    int line = n != nullptr ? static_cast<int>(n->source().begin.line) : 0;
    if (line == 0) line = static_cast<int>(t_.source().begin.line);
    return fmt::format("{}:{}: [{}] {}", path_, line, table_, key);
  }
  Status Error(const toml::node* n, std::string_view key, std::string_view what) const {
    return Status::Invalid(fmt::format("{}: {}", Where(n, key), what));
  }
  Status Missing(std::string_view key, std::string_view what) const { return Error(nullptr, key, "missing; " + std::string(what)); }

  const toml::node* Get(const char* key) {
    used_.insert(key);
    return t_.get(key);
  }

  Status String(const char* key, std::string* out, bool required) {
    const toml::node* n = Get(key);
    if (n == nullptr) return required ? Missing(key, "expected a string") : Status::Ok();
    if (!n->is_string()) return Error(n, key, "expected a string");
    *out = *n->value<std::string>();
    if (out->empty()) return Error(n, key, "expected a non-empty string");
    return Status::Ok();
  }
  Status Int(const char* key, int* out, int lo, int hi, bool required) {
    const toml::node* n = Get(key);
    if (n == nullptr) return required ? Missing(key, "expected a whole number") : Status::Ok();
    auto v = n->is_integer() ? n->value<int64_t>() : std::nullopt;
    if (!v) return Error(n, key, fmt::format("expected a whole number from {} to {}", lo, hi));
    YS_RETURN_IF_ERROR(CheckIntRange(*v, lo, hi, Where(n, key)));
    *out = static_cast<int>(*v);
    return Status::Ok();
  }
  Status Bool(const char* key, bool* out) {
    const toml::node* n = Get(key);
    if (n == nullptr) return Status::Ok();
    if (!n->is_boolean()) return Error(n, key, "expected true or false");
    *out = *n->value<bool>();
    return Status::Ok();
  }
  Status Strings(const char* key, std::vector<std::string>* out, bool required) {
    const toml::node* n = Get(key);
    if (n == nullptr) return required ? Missing(key, "expected a list of strings") : Status::Ok();
    const toml::array* a = n->as_array();
    if (a == nullptr) return Error(n, key, "expected a list of strings");
    for (const toml::node& e : *a) {
      if (!e.is_string()) return Error(&e, key, "expected a list of strings; an element is not a string");
      out->push_back(*e.value<std::string>());
    }
    if (required && out->empty()) return Error(n, key, "expected a non-empty list of strings");
    return Status::Ok();
  }
  // Valid values get further checks that report at the key's line.
  Status Check(const char* key, const Status& s) const {
    if (s.ok()) return s;
    return Error(t_.get(key), key, s.message());
  }
  // Checked first, so that a misspelt key is reported as such rather than as a missing one.
  Status OnlyKeys(std::initializer_list<std::string_view> known) const {
    for (const auto& [k, v] : t_) {
      bool ok = false;
      for (auto name : known) ok = ok || name == k.str();
      if (!ok) return Error(&v, k.str(), "unknown key");
    }
    return Status::Ok();
  }
  Status NoOtherKeys() const {
    for (const auto& [k, v] : t_) {
      if (!used_.count(std::string(k.str()))) return Error(&v, k.str(), "unknown key");
    }
    return Status::Ok();
  }

 private:
  const toml::table& t_;
  std::string path_, table_;
  std::set<std::string> used_;
};

Status ValidateTimeLimit(const std::string& v) {
  if (v == "UNLIMITED" || v == "INFINITE") return Status::Ok();
  bool ok = !v.empty();
  for (char c : v) ok = ok && ((c >= '0' && c <= '9') || c == ':' || c == '-');
  if (ok) return Status::Ok();
  return Status::Invalid("'" + v + "': expected a Slurm time limit (MM, HH:MM:SS or D-HH:MM:SS)");
}

Status ValidateMount(const std::string& m) {
  if (m.find(',') != std::string::npos) return Status::Invalid("'" + m + "': a mount cannot contain ','");
  std::vector<std::string> parts;
  size_t b = 0;
  for (size_t e; (e = m.find(':', b)) != std::string::npos; b = e + 1) parts.push_back(m.substr(b, e - b));
  parts.push_back(m.substr(b));
  if (parts.size() > 3 || parts[0].empty() || parts[0][0] != '/' || (parts.size() > 1 && (parts[1].empty() || parts[1][0] != '/'))) {
    return Status::Invalid("'" + m + "': expected /host/path[:/container/path[:flags]]");
  }
  if (m.find('\0') != std::string::npos || m.find('\n') != std::string::npos) return Status::Invalid("a mount cannot contain a control character");
  return Status::Ok();
}

Status ValidateContainerPath(const std::string& p) {
  if (p.empty() || p[0] != '/' || p.find_first_of(":,\n") != std::string::npos) {
    return Status::Invalid("'" + p + "': expected an absolute path without ':' or ','");
  }
  return Status::Ok();
}

Status ValidatePlaceholders(const std::string& arg) {
  for (size_t b = arg.find('{'); b != std::string::npos; b = arg.find('{', b + 1)) {
    size_t e = arg.find('}', b);
    std::string_view name = e == std::string::npos ? std::string_view() : std::string_view(arg).substr(b + 1, e - b - 1);
    bool known = false;
    for (auto p : kPlaceholders) known = known || p == name;
    if (!known) {
      return Status::Invalid("'" + arg + "': unknown placeholder; known: {workload} {model} {size} {dtype} {gpus} "
                             "{nodes} {gpus_per_node} {seq_len} {gbs} {framework} {runs_dir} {log_dir}");
    }
  }
  return Status::Ok();
}

const toml::table* SubTable(const toml::table& root, const char* name, const std::string& path, Status* error) {
  const toml::node* n = root.get(name);
  if (n == nullptr) return nullptr;
  if (!n->is_table()) {
    *error = Status::Invalid(fmt::format("{}:{}: {}: expected a table [{}]", path, n->source().begin.line, name, name));
  }
  return n->as_table();
}

}  // namespace

Result<ClusterConfig> ParseClusterConfig(std::string_view toml_text, const std::string& path) {
  auto parsed = validate::ParseToml(toml_text, path);
  if (!parsed.ok()) return parsed.status();
  const toml::table& root = *parsed;
  ClusterConfig c;
  c.path = path;
  for (const auto& [k, v] : root) {
    std::string key(k.str());
    if (key != "slurm" && key != "container" && key != "launch" && key != "environment") {
      return Status::Invalid(fmt::format("{}:{}: unknown table or key '{}'; expected [slurm], [container], "
                                         "[launch], [environment]",
                                         path, v.source().begin.line, key));
    }
  }
  Status error;
  const toml::table* slurm = SubTable(root, "slurm", path, &error);
  YS_RETURN_IF_ERROR(error);
  if (slurm == nullptr) return Status::Invalid(path + ": missing table [slurm]");
  Reader s(*slurm, path, "slurm");
  YS_RETURN_IF_ERROR(s.OnlyKeys({"partition", "account", "qos", "time_limit", "gpus_per_node", "nodes", "gres",
                                 "sbatch_options"}));
  YS_RETURN_IF_ERROR(s.String("partition", &c.partition, true));
  YS_RETURN_IF_ERROR(s.Check("partition", ValidateSbatchToken("partition", c.partition)));
  YS_RETURN_IF_ERROR(s.String("account", &c.account, false));
  if (!c.account.empty()) YS_RETURN_IF_ERROR(s.Check("account", ValidateSbatchToken("account", c.account)));
  YS_RETURN_IF_ERROR(s.String("qos", &c.qos, false));
  if (!c.qos.empty()) YS_RETURN_IF_ERROR(s.Check("qos", ValidateSbatchToken("qos", c.qos)));
  YS_RETURN_IF_ERROR(s.String("time_limit", &c.time_limit, true));
  YS_RETURN_IF_ERROR(s.Check("time_limit", ValidateTimeLimit(c.time_limit)));
  YS_RETURN_IF_ERROR(s.Int("gpus_per_node", &c.gpus_per_node, 1, 64, true));
  YS_RETURN_IF_ERROR(s.Int("nodes", &c.nodes, 1, 1000000, false));
  YS_RETURN_IF_ERROR(s.Bool("gres", &c.gres));
  YS_RETURN_IF_ERROR(s.Strings("sbatch_options", &c.sbatch_options, false));
  for (const auto& o : c.sbatch_options) {
    YS_RETURN_IF_ERROR(s.Check("sbatch_options", ValidateSbatchToken("option", o)));
    if (o.size() < 2 || o[0] != '-') return s.Error(slurm->get("sbatch_options"), "sbatch_options", "'" + o + "': expected an option such as --reservation=NAME");
    std::string name = o.substr(0, o.find('='));
    for (auto owned : kOwnedSbatchOptions) {
      if (name == owned) {
        return s.Error(slurm->get("sbatch_options"), "sbatch_options",
                       "'" + o + "': yardstick sets " + name + " itself (from the suite and [slurm])");
      }
    }
  }
  YS_RETURN_IF_ERROR(s.NoOtherKeys());

  if (const toml::table* t = SubTable(root, "container", path, &error); t != nullptr) {
    Reader r(*t, path, "container");
    YS_RETURN_IF_ERROR(r.OnlyKeys({"image", "mounts", "nccl_topo_file", "nccl_topo_mount"}));
    YS_RETURN_IF_ERROR(r.String("image", &c.image, true));
    YS_RETURN_IF_ERROR(r.Strings("mounts", &c.mounts, false));
    for (const auto& m : c.mounts) YS_RETURN_IF_ERROR(r.Check("mounts", ValidateMount(m)));
    YS_RETURN_IF_ERROR(r.String("nccl_topo_file", &c.nccl_topo_file, false));
    if (!c.nccl_topo_file.empty()) YS_RETURN_IF_ERROR(r.Check("nccl_topo_file", ValidateContainerPath(c.nccl_topo_file)));
    YS_RETURN_IF_ERROR(r.String("nccl_topo_mount", &c.nccl_topo_mount, false));
    YS_RETURN_IF_ERROR(r.Check("nccl_topo_mount", ValidateContainerPath(c.nccl_topo_mount)));
    YS_RETURN_IF_ERROR(r.NoOtherKeys());
  }
  YS_RETURN_IF_ERROR(error);

  const toml::table* launch = SubTable(root, "launch", path, &error);
  YS_RETURN_IF_ERROR(error);
  if (launch == nullptr) return Status::Invalid(path + ": missing table [launch] with command = [...]");
  Reader l(*launch, path, "launch");
  YS_RETURN_IF_ERROR(l.OnlyKeys({"command", "srun_options"}));
  YS_RETURN_IF_ERROR(l.Strings("command", &c.command, true));
  for (const auto& a : c.command) YS_RETURN_IF_ERROR(l.Check("command", ValidatePlaceholders(a)));
  YS_RETURN_IF_ERROR(l.Strings("srun_options", &c.srun_options, false));
  for (const auto& o : c.srun_options) {
    if (o.empty() || o[0] != '-') return l.Error(launch->get("srun_options"), "srun_options", "'" + o + "': expected an option such as --cpu-bind=none");
  }
  YS_RETURN_IF_ERROR(l.NoOtherKeys());

  if (const toml::table* env = SubTable(root, "environment", path, &error); env != nullptr) {
    for (const auto& [k, v] : *env) {
      std::string key(k.str());
      auto at = [&, &v = v](std::string_view what) {
        return Status::Invalid(fmt::format("{}:{}: [environment] {}: {}", path, v.source().begin.line, key, what));
      };
      if (Status st = ValidateEnvName("name", key); !st.ok()) return at(st.message());
      if (!v.is_string()) return at("expected a string value");
      if (key == "NCCL_TOPO_FILE" && !c.nccl_topo_file.empty()) return at("set by [container] nccl_topo_file");
      c.environment[key] = *v.value<std::string>();
    }
  }
  YS_RETURN_IF_ERROR(error);
  return c;
}

Result<ClusterConfig> LoadClusterConfig(const std::string& path) {
  auto text = ReadDocumentFile(path, DocumentKind::kToml);
  if (!text.ok()) return text.status();
  return ParseClusterConfig(*text, path);
}

}  // namespace ys::slurm
