#include "checks/site_expectations.h"

#include <functional>
#include <map>

#include "checks/unit_aliases.h"
#include "core/document_file.h"
#include "core/registry.h"
#include "core/toml_reader.h"
#include "core/unit_param_reader.h"

namespace ys::checks {

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
  return [=](const toml::node& n, const std::string& where) {
    return Store(ReadTomlPolicy(n, where, allow_enabled_words), out);
  };
}

Setter StringSetter(std::string* out) {
  return [=](const toml::node& n, const std::string& where) {
    return Store(ReadTomlString(n, where), out);
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

Setter StringListSetter(std::vector<std::string>* out) {
  return [=](const toml::node& n, const std::string& where) -> Status {
    return Store(ReadTomlStrings(n, where), out);
  };
}

// The units a `[unit."<id>"]` table stands for: the check or benchmark of that id, or the units
// that replaced a retired id.
std::vector<const RegisteredUnit*> UnitsOfTable(std::string_view id) {
  const UnitRegistry& reg = UnitRegistry::Global();
  for (UnitKind kind : {UnitKind::kCheck, UnitKind::kBenchmark}) {
    if (const RegisteredUnit* u = reg.Find(kind, id)) return {u};
  }
  std::vector<const RegisteredUnit*> out;
  if (const UnitAlias* alias = FindUnitAlias(id)) {
    for (std::string_view new_id : alias->ids) {
      if (const RegisteredUnit* u = reg.Find(UnitKind::kCheck, new_id)) out.push_back(u);
    }
  }
  return out;
}

// The ids of the units that declare parameters, for the unknown-id message.
std::string IdsWithParams() {
  std::string out;
  for (const RegisteredUnit* u :
       UnitRegistry::Global().List({UnitKind::kCheck, UnitKind::kBenchmark})) {
    if (!u->info.params.empty()) out += (out.empty() ? "" : ", ") + std::string(u->info.id);
  }
  return out;
}

// A unit parameter written under its older flat key (`[gpu] ecc`).
Setter UnitParamSetter(const RegisteredUnit* unit, const ParamSpec* spec, UnitParamValues* out) {
  return [=](const toml::node& n, const std::string& where) -> Status {
    auto v = ReadParamValue(*spec, n, where);
    if (!v.ok()) return v.status();
    out->Set(unit->info.id, spec->name, std::move(*v));
    return Status::Ok();
  };
}

}  // namespace

Result<SiteExpectations> ParseSiteExpectations(std::string_view text, const std::string& path) {
  SiteExpectations e;
  e.source = path;
  auto parsed = ParseToml(text, path);
  if (!parsed.ok()) return parsed.status();
  const toml::table& doc = *parsed;
  std::map<std::string, std::map<std::string, Setter>> schema = {
      {"cpu",
       {{"turbo", PolicySetter(&e.cpu.turbo)},
        {"governor", StringSetter(&e.cpu.governor)},
        {"deep_cstates", PolicySetter(&e.cpu.deep_cstates, /*allow_enabled_words=*/true)}}},
      {"devices",
       {{"gpus", OptIntSetter(&e.devices.gpus, 0, 1024)},
        {"nics", OptIntSetter(&e.devices.nics, 0, 1024)},
        {"min_link_rate_gbps", OptNumberSetter(&e.devices.min_link_rate_gbps, 0.0, 100000.0)},
        {"intended_hcas", StringListSetter(&e.devices.intended_hcas)}}},
      {"gpu", {{"driver_version", StringSetter(&e.gpu.driver_version)}}},
  };
  for (const RegisteredUnit* u : UnitRegistry::Global().List(UnitKind::kCheck)) {
    for (const ParamSpec& p : u->info.params) {
      if (p.site_table.empty()) continue;
      schema[std::string(p.site_table)][std::string(p.name)] = UnitParamSetter(u, &p, &e.params);
    }
  }
  // [unit."<id>"] is read after the flat tables, so that it wins over a flat key.
  const toml::node* unit_tables = nullptr;
  for (const auto& [table_name, node] : doc) {
    std::string tname(table_name.str());
    if (tname == "unit") {
      unit_tables = &node;
      continue;
    }
    auto st = schema.find(tname);
    if (st == schema.end()) {
      std::string known;
      for (const auto& [k, _] : schema) known += (known.empty() ? "" : ", ") + k;
      known += ", unit";
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
  if (unit_tables != nullptr) {
    YS_RETURN_IF_ERROR(
        ReadUnitParamTables(*unit_tables, path, UnitsOfTable, IdsWithParams(), &e.params));
  }
  return e;
}

Result<SiteExpectations> LoadSiteExpectations(const std::string& path) {
  auto text = ReadDocumentFile(path, DocumentKind::kToml);
  if (!text.ok()) return text.status();
  return ParseSiteExpectations(*text, path);
}

}  // namespace ys::checks
