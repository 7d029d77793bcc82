// yardstick_schemas: writes the JSON Schema of every document yardstick writes, generated from
// the documents' field lists (core/document_schemas.h, core/json_schema.h). A build tool, not a
// subcommand: the build runs it into <build>/schemas/, the test schemas.up_to_date compares that
// with the committed schemas/, and `make schemas` refreshes them (docs/schemas.md).
//
//   yardstick_schemas --out DIR    writes DIR/<name>.schema.json for every document
//   yardstick_schemas --list       the documents' names
//   yardstick_schemas NAME         the one schema on stdout
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "core/document_schemas.h"

namespace {

std::string Text(const ys::RegisteredSchema& s) { return s.make().dump(2) + "\n"; }

int WriteAll(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  for (const ys::RegisteredSchema* s : ys::DocumentSchemas()) {
    const std::filesystem::path path = dir / (s->name + ".schema.json");
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << Text(*s);
    if (!out) {
      std::fprintf(stderr, "yardstick_schemas: cannot write %s\n", path.c_str());
      return 2;
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string arg = argc > 1 ? argv[1] : "";
  if (arg == "--out" && argc == 3) return WriteAll(argv[2]);
  if (arg == "--list" && argc == 2) {
    for (const ys::RegisteredSchema* s : ys::DocumentSchemas())
      std::printf("%s\n", s->name.c_str());
    return 0;
  }
  if (argc == 2 && !arg.starts_with("-")) {
    for (const ys::RegisteredSchema* s : ys::DocumentSchemas()) {
      if (s->name == arg) return std::fputs(Text(*s).c_str(), stdout) < 0 ? 2 : 0;
    }
    std::fprintf(stderr, "yardstick_schemas: no document named \"%s\" (--list names them)\n",
                 arg.c_str());
    return 2;
  }
  std::fprintf(stderr, "usage: yardstick_schemas --out DIR | --list | NAME\n");
  return 2;
}
