// `yardstick version`: the tool's version, build and compiler.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "core/build_info.h"
#include "core/report.h"

namespace ys::cli::cmd_version {
namespace {

Action Setup(CLI::App& sub) {
  auto json = std::make_shared<bool>(false);
  sub.add_flag("--json", *json, "Print as JSON");
  return [json]() -> Result<int> {
    if (*json) {
      // One line, as the JSON documents of the tool are built: an object, dumped.
      const nlohmann::ordered_json j = {
          {"name", "yardstick"},   {"version", kVersion},
          {"git", kGitDescribe},   {"build_type", kBuildType},
          {"compiler", kCompiler}, {"run_schema_version", kRunSchemaVersion}};
      fmt::print("{}\n", j.dump());
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

}  // namespace ys::cli::cmd_version
