#include "core/document_schemas.h"

#include <cxxabi.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <typeinfo>

#include "core/json_schema.h"

namespace ys {
namespace {

std::map<std::string, RegisteredSchema>& Schemas() {
  static std::map<std::string, RegisteredSchema> schemas;
  return schemas;
}

}  // namespace

bool RegisterDocumentSchema(const std::string& name, std::function<nlohmann::ordered_json()> make) {
  if (Schemas().count(name)) {
    std::fprintf(stderr, "document schema \"%s\" registered twice\n", name.c_str());
    std::abort();
  }
  Schemas()[name] = RegisteredSchema{name, std::move(make)};
  return true;
}

std::vector<const RegisteredSchema*> DocumentSchemas() {
  std::vector<const RegisteredSchema*> out;
  for (const auto& [name, s] : Schemas()) out.push_back(&s);
  return out;
}

namespace json_fields {

std::string SchemaDefName(const std::type_info& type) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> demangled(
      abi::__cxa_demangle(type.name(), nullptr, nullptr, &status), std::free);
  std::string name = status == 0 && demangled ? demangled.get() : type.name();
  name = name.substr(0, name.find('<'));  // a template's name without its arguments
  if (auto colon = name.rfind("::"); colon != std::string::npos) name = name.substr(colon + 2);
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    bool word = std::isupper(static_cast<unsigned char>(c)) && i > 0 &&
                (std::islower(static_cast<unsigned char>(name[i - 1])) ||
                 (i + 1 < name.size() && std::islower(static_cast<unsigned char>(name[i + 1]))));
    if (word && out.back() != '_') out += '_';
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

}  // namespace json_fields
}  // namespace ys
