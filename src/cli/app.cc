#include "cli/app.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cli/command.h"
#include "core/build_info.h"
#include "core/did_you_mean.h"
#include "core/exit_codes.h"
#include "core/log.h"
#include "core/progress.h"

namespace ys::cli {
namespace {

// Every name an option of `app` answers to: "--json", "-v".
std::vector<std::string> OptionNames(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* o : app.get_options()) {
    for (const std::string& l : o->get_lnames()) names.push_back("--" + l);
    for (const std::string& s : o->get_snames()) names.push_back("-" + s);
  }
  return names;
}

// After a usage error: "did you mean" for a mistyped command or option, on stderr.
void SuggestAfterUsageError(int argc, char** argv, const CLI::App& app,
                            const std::map<std::string, CLI::App*>& subs) {
  if (argc < 2 || argv[1][0] == '-') return;
  std::string word = argv[1];
  auto sub = subs.find(word);
  if (sub == subs.end()) {
    std::vector<std::string> names;
    for (const auto& entry : subs) names.push_back(entry.first);
    std::string near = NearestName(word, names);
    if (!near.empty())
      std::fprintf(stderr, "unknown command '%s'; did you mean '%s'?\n", argv[1], near.c_str());
    return;
  }
  std::vector<std::string> names = OptionNames(*sub->second);
  for (const std::string& n : OptionNames(app)) names.push_back(n);
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.size() < 2 || arg[0] != '-' || arg == "--") continue;
    arg = arg.substr(0, arg.find('='));
    if (sub->second->get_option_no_throw(arg) != nullptr || app.get_option_no_throw(arg) != nullptr)
      continue;
    std::string near = NearestName(arg, names);
    if (!near.empty()) {
      std::fprintf(stderr, "unknown option '%s' of %s; did you mean '%s'?\n", arg.c_str(),
                   word.c_str(), near.c_str());
    }
  }
}

// Every command takes --quiet: no progress on stderr (the check-running commands also print only
// the verdict line). A command that declares its own keeps it.
void AddQuietFlag(CLI::App& sub) {
  if (sub.get_option_no_throw("--quiet") != nullptr) return;
  std::string names = sub.get_option_no_throw("-q") == nullptr ? "-q,--quiet" : "--quiet";
  static bool requested = false;  // read back through the option's count (StartProgress)
  sub.add_flag(names, requested, "No progress on stderr");
}

// Progress (core/progress.h) names the chosen command and is silenced by its --quiet.
void StartProgress(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands()) {
    Progress().Start(sub->get_name());
    const CLI::Option* quiet = sub->get_option_no_throw("--quiet");
    if (quiet != nullptr && quiet->count() > 0) Progress().SetQuiet(true);
  }
}

}  // namespace

int Main(int argc, char** argv) {
  CLI::App app{
      "yardstick: tells whether a GPU node or cluster performs like its reference system, and "
      "when it does not, which layer loses the throughput and what recovers it."};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("yardstick ") + kVersion + " (" + kGitDescribe +
                                        ", " + kBuildType + " build)");
  int verbosity = 0;
  app.add_flag("-v,--verbose", verbosity, "More log output on stderr (-v info, -vv debug)");
  app.set_help_all_flag("--help-all", "Help for every subcommand");

  Action chosen;
  std::map<std::string, CLI::App*> subs;
  for (const RegisteredUnit* cmd : UnitRegistry::Global().List(UnitKind::kCommand)) {
    std::unique_ptr<Unit> made = cmd->factory();
    const auto* command = dynamic_cast<const Command*>(made.get());
    if (command == nullptr) continue;
    CLI::App* sub = app.add_subcommand(std::string(cmd->info.id), std::string(cmd->info.summary));
    subs[std::string(cmd->info.id)] = sub;
    Action action = command->Setup(*sub);
    AddQuietFlag(*sub);
    sub->callback([&chosen, action] { chosen = action; });
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    SuggestAfterUsageError(argc, argv, app, subs);
    return kExitUsage;
  }
  if (verbosity >= 2) {
    SetLogLevel(LogLevel::kDebug);
  } else if (verbosity == 1) {
    SetLogLevel(LogLevel::kInfo);
  }
  if (!chosen) return kExitUsage;
  StartProgress(app);
  return RunAction(chosen);
}

}  // namespace ys::cli
