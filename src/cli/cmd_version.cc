// `yardstick version`: the tool's version, build and compiler.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "core/build_info.h"
#include "core/document_schemas.h"
#include "core/json_fields.h"
#include "core/json_schema.h"
#include "core/run_document.h"

namespace ys::cli::cmd_version {
namespace {

// What `version --json` prints, in this order.
struct VersionInfo {
  std::string name = "yardstick", version = kVersion, git = kGitDescribe, build_type = kBuildType,
              compiler = kCompiler;
  int run_schema_version = kRunSchemaVersion;
};

template <typename V>
void Fields(V& v, VersionInfo& i) {
  v("name", i.name);
  v("version", i.version);
  v("git", i.git);
  v("build_type", i.build_type);
  v("compiler", i.compiler);
  v("run_schema_version", i.run_schema_version);
}

YS_DOCUMENT_SCHEMA("version", VersionInfo, "yardstick version --json",
                   "The program's name, version, build and the run document's schema version.");

Action Setup(CLI::App& sub) {
  auto json = std::make_shared<bool>(false);
  sub.add_flag("--json", *json, "Print as JSON");
  return [json]() -> Result<int> {
    if (*json) {
      fmt::print("{}\n", json_fields::Write(VersionInfo{}).dump());
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
