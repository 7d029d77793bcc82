// The shape both forms of an `nvidia-smi -q` dump share, before any field is interpreted: a tree
// of named entries, each with its text value (possibly empty) and its children in dump order.
//
//   text  (`nvidia-smi -q`):     "    Clocks"  /  "        SM   : 1980 MHz"  (indentation nests)
//   XML   (`nvidia-smi -q -x`):  <clocks><sm_clock>1980 MHz</sm_clock></clocks>
//
// The root's children are the dump's top-level entries ("Driver Version", <driver_version>) and
// one entry per GPU ("GPU 00000000:18:00.0" in text, <gpu id="..."> in XML, with `id` set).
// Keys are kept as written; gpu/smi_dump.cc looks them up by both spellings.
#ifndef YARDSTICK_GPU_SMI_DUMP_TREE_H_
#define YARDSTICK_GPU_SMI_DUMP_TREE_H_

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace ys::gpu {

struct SmiEntry {
  std::string key;    // "Clocks Event Reasons", "clocks_event_reasons"
  std::string value;  // trimmed; "" for a section
  std::string id;     // XML attribute id (<gpu id="00000000:18:00.0">); text: ""
  int line = 0;       // 1-based, for messages
  std::vector<SmiEntry> children;
};

// Entries nested deeper than this are refused (a dump nests 5 deep).
inline constexpr int kMaxSmiDepth = 24;

// `nvidia-smi -q` text. Lines before the "==NVSMI LOG==" banner are ignored (a shell prompt, a
// command). Errors name the line: "line 12: indented under nothing".
Result<SmiEntry> ParseSmiText(std::string_view text);

// `nvidia-smi -q -x` XML: the subset nvidia-smi writes (declaration, DOCTYPE, comments,
// elements with attributes, text with the five predefined entities and numeric references).
// Errors name the line: "line 40: </clocks> closes <sm_clock>".
Result<SmiEntry> ParseSmiXml(std::string_view text);

}  // namespace ys::gpu

#endif  // YARDSTICK_GPU_SMI_DUMP_TREE_H_
