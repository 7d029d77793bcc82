// The one reader of unit parameters from a site file: the `[unit."<id>"]` tables, and the value
// of one declared parameter wherever it is written (the older flat tables use it too). Strict,
// in core/toml_reader.h's wording: an unknown unit id names the known ids; an unknown key, a
// value of the wrong type or out of range names file:line, the table, the key and what was
// expected.
#ifndef YARDSTICK_CORE_UNIT_PARAM_READER_H_
#define YARDSTICK_CORE_UNIT_PARAM_READER_H_

#include <toml++/toml.h>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/registry.h"
#include "core/status.h"
#include "core/unit_params.h"

namespace ys {

// The value of `spec` written at `n`; `where` (from TomlWhere) starts every message.
Result<ParamValue> ReadParamValue(const ParamSpec& spec, const toml::node& n,
                                  const std::string& where);

// A site policy: "on", "off" or "any"; where `allow_enabled_words`, also "enabled" (on) and
// "disabled" (off).
Result<Policy> ReadTomlPolicy(const toml::node& n, const std::string& where,
                              bool allow_enabled_words = false);

// The units a table's id stands for: the unit of that id, or the units that replaced a retired
// id; empty when the id names no unit.
using UnitTableTargets = std::function<std::vector<const RegisteredUnit*>(std::string_view id)>;

// Reads the node of the site file's `unit` key: one table per unit id, each key one declared
// parameter of that unit (of one of the units, for a retired id: it sets the parameter in every
// replacing unit that declares it). `known_ids` is listed when an id is unknown.
Status ReadUnitParamTables(const toml::node& unit, const std::string& path,
                           const UnitTableTargets& targets, std::string_view known_ids,
                           UnitParamValues* out);

}  // namespace ys

#endif  // YARDSTICK_CORE_UNIT_PARAM_READER_H_
