// The inputs of `yardstick merge` (fleet/merge.h): which run documents they name, and one run
// document read and checked.
#ifndef YARDSTICK_FLEET_INPUTS_H_
#define YARDSTICK_FLEET_INPUTS_H_

#include <functional>
#include <string>
#include <vector>

#include "core/run_document.h"
#include "core/status.h"

namespace ys::fleet {

// Calls visit(path) for each run document the inputs name:
//   FILE    itself (whatever its name);
//   DIR     every run.json or *.run.json under it, recursively, in directory order;
//   @LIST   each line of LIST (blank lines and lines starting with # ignored), itself an input.
// Paths are not kept: each call walks the inputs again. Invalid names an unreadable list, a
// directory without run documents, or a path that does not exist.
Status ForEachInputDocument(const std::vector<std::string>& inputs,
                            const std::function<void(const std::string& path)>& visit);

// Reads and checks one run document. Invalid names the file and the field.
Result<RunDocument> ReadRunDocument(const std::string& path);

}  // namespace ys::fleet

#endif  // YARDSTICK_FLEET_INPUTS_H_
