#include "checks/site_expectations.h"

#include <functional>
#include <map>

#include "core/document_file.h"
#include "core/toml_reader.h"

namespace ys::checks {

const char* PolicyName(Policy p) {
  switch (p) {
    case Policy::kAny:
      return "any";
    case Policy::kOn:
      return "on";
    case Policy::kOff:
      return "off";
  }
  return "any";
}

namespace {

// Binds one key of one table to a setter that validates and stores the value.
using Setter = std::function<Status(const toml::node&, const std::string& where)>;

std::string Where(const std::string& path, const std::string& table, const std::string& key,
                  const toml::node& n) {
  return TomlWhere(path, "[" + table + "]", key, &n);
}

// Stores the value of a core/toml_reader.h read, or passes its error on.
template <typename T, typename Out>
Status Store(Result<T> v, Out* out) {
  if (!v.ok()) return v.status();
  *out = std::move(*v);
  return Status::Ok();
}

Setter PolicySetter(Policy* out, bool allow_enabled_words = false) {
  return [=](const toml::node& n, const std::string& where) -> Status {
    auto s = n.value<std::string>();
    if (s) {
      if (*s == "on" || (allow_enabled_words && *s == "enabled")) {
        *out = Policy::kOn;
        return {};
      }
      if (*s == "off" || (allow_enabled_words && *s == "disabled")) {
        *out = Policy::kOff;
        return {};
      }
      if (*s == "any") {
        *out = Policy::kAny;
        return {};
      }
    }
    return Status::Invalid(where + ": expected \"on\", \"off\" or \"any\"");
  };
}

Setter StringSetter(std::string* out, std::vector<std::string> allowed) {
  return [=](const toml::node& n, const std::string& where) -> Status {
    auto s = n.value<std::string>();
    if (s) {
      if (allowed.empty()) {
        *out = *s;
        return {};
      }
      for (const auto& a : allowed) {
        if (*s == a) {
          *out = *s;
          return {};
        }
      }
    }
    std::string expect;
    for (const auto& a : allowed) expect += (expect.empty() ? "\"" : ", \"") + a + "\"";
    return Status::Invalid(where + ": expected " +
                           (allowed.empty() ? "a string" : "one of " + expect));
  };
}

Setter NumberSetter(double* out, double lo, double hi) {
  return [=](const toml::node& n, const std::string& where) -> Status {
    return Store(ReadTomlNumber(n, where, lo, hi), out);
  };
}

Setter IntSetter(int* out, int lo, int hi) {
  return [=](const toml::node& n, const std::string& where) -> Status {
    return Store(ReadTomlInt(n, where, lo, hi), out);
  };
}

Setter OptIntSetter(std::optional<int>* out, int lo, int hi) {
  return [=](const toml::node& n, const std::string& where) -> Status {
    return Store(ReadTomlInt(n, where, lo, hi), out);
  };
}

Setter OptNumberSetter(std::optional<double>* out, double lo, double hi) {
  return [=](const toml::node& n, const std::string& where) -> Status {
    return Store(ReadTomlNumber(n, where, lo, hi), out);
  };
}

Setter BoolSetter(bool* out) {
  return [=](const toml::node& n, const std::string& where) -> Status {
    return Store(ReadTomlBool(n, where), out);
  };
}

Setter MemlockSetter(bool* out) {
  return [=](const toml::node& n, const std::string& where) -> Status {
    auto s = n.value<std::string>();
    if (s && *s == "unlimited") {
      *out = true;
      return {};
    }
    if (s && *s == "any") {
      *out = false;
      return {};
    }
    return Status::Invalid(where + ": expected \"unlimited\" or \"any\"");
  };
}

Setter StringListSetter(std::vector<std::string>* out) {
  return [=](const toml::node& n, const std::string& where) -> Status {
    return Store(ReadTomlStrings(n, where), out);
  };
}

Setter IntListSetter(std::vector<int>* out, int lo, int hi) {
  return [=](const toml::node& n, const std::string& where) -> Status {
    return Store(ReadTomlInts(n, where, lo, hi), out);
  };
}

}  // namespace

Result<SiteExpectations> ParseSiteExpectations(std::string_view text, const std::string& path) {
  SiteExpectations e;
  e.source = path;
  auto parsed = ParseToml(text, path);
  if (!parsed.ok()) return parsed.status();
  const toml::table& doc = *parsed;
  const std::map<std::string, std::map<std::string, Setter>> schema = {
      {"cpu",
       {{"smt", PolicySetter(&e.cpu.smt)},
        {"mitigations", PolicySetter(&e.cpu.mitigations)},
        {"turbo", PolicySetter(&e.cpu.turbo)},
        {"governor", StringSetter(&e.cpu.governor, {})},
        {"deep_cstates", PolicySetter(&e.cpu.deep_cstates, /*allow_enabled_words=*/true)},
        {"min_busy_clock_ratio", NumberSetter(&e.cpu.min_busy_clock_ratio, 0.0, 2.0)},
        {"busy_clock_cpus", IntSetter(&e.cpu.busy_clock_cpus, 0, 4096)},
        {"busy_clock_ms", IntSetter(&e.cpu.busy_clock_ms, 1, 1000)}}},
      {"numa",
       {{"max_remote_share", NumberSetter(&e.numa.max_remote_share, 0.0, 1.0)},
        {"balancing", PolicySetter(&e.numa.balancing)}}},
      {"memory",
       {{"thp", StringSetter(&e.memory.thp, {"always", "madvise", "never", "any"})},
        {"swap", PolicySetter(&e.memory.swap)},
        {"memlock", MemlockSetter(&e.memory.memlock_unlimited)}}},
      {"devices",
       {{"gpus", OptIntSetter(&e.devices.gpus, 0, 1024)},
        {"nics", OptIntSetter(&e.devices.nics, 0, 1024)},
        {"min_link_rate_gbps", OptNumberSetter(&e.devices.min_link_rate_gbps, 0.0, 100000.0)},
        {"intended_hcas", StringListSetter(&e.devices.intended_hcas)}}},
      {"virt", {{"iommu_passthrough", PolicySetter(&e.virt.iommu_passthrough)}}},
      {"isolation", {{"irqs_on_job_cores", BoolSetter(&e.isolation.irqs_on_job_cores)}}},
      {"gpu",
       {{"persistence", PolicySetter(&e.gpu.persistence)},
        {"ecc", PolicySetter(&e.gpu.ecc)},
        {"mig", PolicySetter(&e.gpu.mig)},
        {"driver_version", StringSetter(&e.gpu.driver_version, {})},
        {"min_power_limit_ratio", NumberSetter(&e.gpu.min_power_limit_ratio, 0.0, 1.0)},
        {"temperature_margin_c", IntSetter(&e.gpu.temperature_margin_c, 0, 50)},
        {"fatal_xids", IntListSetter(&e.gpu.fatal_xids, 1, 1000)},
        {"ignored_xids", IntListSetter(&e.gpu.ignored_xids, 1, 1000)},
        {"nvlinks_expected_up", OptIntSetter(&e.gpu.nvlinks_expected_up, 0, 64)},
        {"max_pcie_replays", IntSetter(&e.gpu.max_pcie_replays, 0, 1000000000)}}},
  };
  for (const auto& [table_name, node] : doc) {
    std::string tname(table_name.str());
    auto st = schema.find(tname);
    if (st == schema.end()) {
      std::string known;
      for (const auto& [k, _] : schema) known += (known.empty() ? "" : ", ") + k;
      return Status::Invalid(path + ": unknown table [" + tname + "]; expected one of " + known);
    }
    const toml::table* tbl = node.as_table();
    if (tbl == nullptr) return Status::Invalid(path + ": " + tname + " must be a table");
    for (const auto& [key, value] : *tbl) {
      std::string k(key.str());
      auto setter = st->second.find(k);
      if (setter == st->second.end()) {
        std::string known;
        for (const auto& [kk, _] : st->second) known += (known.empty() ? "" : ", ") + kk;
        return Status::Invalid(Where(path, tname, k, value) + ": unknown key; expected one of " +
                               known);
      }
      YS_RETURN_IF_ERROR(setter->second(value, Where(path, tname, k, value)));
    }
  }
  return e;
}

Result<SiteExpectations> LoadSiteExpectations(const std::string& path) {
  auto text = ReadDocumentFile(path, DocumentKind::kToml);
  if (!text.ok()) return text.status();
  return ParseSiteExpectations(*text, path);
}

}  // namespace ys::checks
