// A section of the run document that a layer above core defines and owns (the burn-in report of
// `yardstick burnin`: burnin_report/burnin_section.h). Core sees no type of it: the run document
// holds it by this interface under its key, writes it through ToJson, asks it whether it fails
// the run (core/verdict.h), and reads it back and describes it in the schema through the codec
// its layer registered for the key at start-up (RegisterRunSection, one line beside the
// section's code).
//
// Thread safety: registration happens during static initialisation; the registry is read-only
// afterwards.
#ifndef YARDSTICK_CORE_RUN_SECTION_H_
#define YARDSTICK_CORE_RUN_SECTION_H_

#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "core/json_fields_styles.h"
#include "core/status.h"

namespace ys {
namespace json_fields {
struct Path;
template <typename OrderedJson>
class BasicSchemaWriter;
}  // namespace json_fields

class RunSection {
 public:
  virtual ~RunSection() = default;
  // The value under the section's key.
  virtual nlohmann::ordered_json ToJson() const = 0;
  // Set when the section fails acceptance whatever the units say: the verdict's one-line reason
  // ("burn-in: 2 faults (first: ...)").
  virtual std::optional<std::string> FailReason() const = 0;
};

// How a layer reads its section back and describes it: `read` gets the value under the key,
// where it sits ("run.burnin") and the document's style, and names a bad field by that path;
// `schema` returns the key's schema through the document's schema walker (so its structs join
// the document's "$defs").
struct RunSectionCodec {
  Result<std::shared_ptr<const RunSection>> (*read)(const nlohmann::json& j,
                                                    const json_fields::Path& at,
                                                    json_fields::Style style) = nullptr;
  nlohmann::ordered_json (*schema)(json_fields::BasicSchemaWriter<nlohmann::ordered_json>& walker) =
      nullptr;
};

// Returns true so that it can initialise a namespace-scope bool. Aborts on a key registered
// twice or a codec without both functions.
bool RegisterRunSection(const std::string& key, RunSectionCodec codec);
// The codec registered for `key`; null when this program registered none.
const RunSectionCodec* FindRunSection(std::string_view key);

}  // namespace ys

#endif  // YARDSTICK_CORE_RUN_SECTION_H_
