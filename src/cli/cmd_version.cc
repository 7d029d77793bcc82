// `yardstick version`: the tool's version, build and compiler.
#include <fmt/format.h>

#include "cli/command.h"
#include "core/build_info.h"
#include "core/report.h"

namespace ys::cli {
namespace {

Action Setup(CLI::App& sub) {
  auto json = std::make_shared<bool>(false);
  sub.add_flag("--json", *json, "Print as JSON");
  return [json] {
    if (*json) {
      fmt::print(
          "{{\"name\":\"yardstick\",\"version\":\"{}\",\"git\":\"{}\",\"build_type\":\"{}\","
          "\"compiler\":\"{}\",\"run_schema_version\":{}}}\n",
          kVersion, kGitDescribe, kBuildType, kCompiler, kRunSchemaVersion);
    } else {
      fmt::print("yardstick {} ({}, {} build, {})\nrun document schema version {}\n", kVersion,
                 kGitDescribe, kBuildType, kCompiler, kRunSchemaVersion);
    }
    return 0;
  };
}

}  // namespace

YS_REGISTER(CommandOf<Setup>,
            {.id = "version", .summary = "Print the version, build type and compiler"})

}  // namespace ys::cli
