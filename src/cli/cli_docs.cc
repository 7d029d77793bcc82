#include "cli/cli_docs.h"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "core/build_info.h"

namespace ys::cli {
namespace {

// Every name of an option: "-q", "--quiet".
std::vector<std::string> NamesOf(const CLI::Option& o) {
  std::vector<std::string> names;
  for (const std::string& s : o.get_snames()) names.push_back("-" + s);
  for (const std::string& l : o.get_lnames()) names.push_back("--" + l);
  return names;
}

bool TakesValue(const CLI::Option& o) { return o.get_items_expected_max() > 0; }

// The subcommands in the order they were registered, help's own flags left out.
std::vector<const CLI::App*> Commands(const CLI::App& app) {
  std::vector<const CLI::App*> out;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    out.push_back(sub);
  return out;
}

std::vector<const CLI::Option*> Options(const CLI::App& app) {
  std::vector<const CLI::Option*> out;
  for (const CLI::Option* o : app.get_options()) {
    if (o->nonpositional()) out.push_back(o);
  }
  return out;
}

// Text for roff: a backslash doubled, a leading dot or quote kept from being a request, '-'
// as \- (a minus, so that copying from the page gives the ASCII hyphen).
std::string Roff(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else {
      out += c;
    }
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out = "\\&" + out;
  return out;
}

std::string ManOptions(const CLI::App& app) {
  std::string out;
  for (const CLI::Option* o : Options(app)) {
    std::string names;
    for (const std::string& n : NamesOf(*o))
      names += (names.empty() ? "" : ", ") + ("\\fB" + Roff(n) + "\\fR");
    if (TakesValue(*o)) {
      // A long choice list ({auto,aiperf-csv,...}) may break after its commas (\: is groff's
      // break point that prints nothing), so that troff need not overrun the line.
      std::string type = Roff(o->get_type_name().empty() ? "VALUE" : o->get_type_name());
      for (size_t at = type.find(','); at != std::string::npos; at = type.find(',', at + 3)) {
        type.insert(at + 1, "\\:");
      }
      names += " \\fI" + type + "\\fR";
    }
    out += ".TP\n" + names + "\n" +
           Roff(o->get_description().empty() ? "(no description)" : o->get_description()) + "\n";
  }
  return out;
}

// Text inside single quotes in a shell script.
std::string ShellQuoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// An _arguments description for zsh: brackets and colons escaped, one line.
std::string ZshText(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '[' || c == ']' || c == ':' || c == '\\') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out;
}

}  // namespace

std::string ManPage(const CLI::App& app) {
  std::string out =
      fmt::format(".TH YARDSTICK 1 \"\" \"yardstick {}\" \"User Commands\"\n", kVersion);
  // Left-aligned, not justified: option lists and choice lists are long words that a justified
  // line cannot stretch around.
  out += ".ad l\n";
  out += ".SH NAME\nyardstick \\- GPU node and cluster validation against a reference system\n";
  out += ".SH SYNOPSIS\n.B yardstick\n[\\fB\\-v\\fR] \\fICOMMAND\\fR [\\fIOPTIONS\\fR]\n";
  out += ".SH DESCRIPTION\n" + Roff(app.get_description()) + "\n";
  out +=
      ".PP\nEvery command takes \\fB\\-\\-help\\fR. Results go to standard output, logs and "
      "progress to standard error (progress only on a terminal, never with \\fB\\-\\-quiet\\fR).\n";
  out += ".SH GLOBAL OPTIONS\n" + ManOptions(app);
  out += ".SH COMMANDS\n";
  for (const CLI::App* sub : Commands(app)) {
    out += ".SS " + Roff(sub->get_name()) + "\n" + Roff(sub->get_description()) + "\n";
    out += ManOptions(*sub);
  }
  out +=
      ".SH EXIT STATUS\n"
      ".TP\n0\nPASS or WARN: the verdict holds.\n"
      ".TP\n1\nFAIL: a check failed or a workload is below its reference.\n"
      ".TP\n2\nINCONCLUSIVE (what should have been judged could not be), or the tool could not "
      "do what was asked (bad input, a missing file).\n"
      ".TP\n64\nA usage error.\n";
  out +=
      ".SH ENVIRONMENT\n"
      ".TP\nYARDSTICK_DATA\nThe directory holding suites/, baselines/, models/, specs/ and "
      "calibration/ (default: the installed data directory, or the source tree of a build); "
      "\\fB\\-\\-data\\fR overrides it.\n"
      ".TP\nNO_COLOR\nSet to anything but the empty string: no colour on a terminal.\n"
      ".TP\nXDG_DATA_HOME\nWhere the run history lives (yardstick/history.db; default "
      "~/.local/share).\n";
  out +=
      ".SH FILES\n"
      ".TP\n\\&./yardstick\\-runs/\nWhat \\fBrun\\fR and \\fBburnin\\fR write when no "
      "\\fB\\-\\-out\\fR is given.\n"
      ".TP\n$XDG_DATA_HOME/yardstick/history.db\nThe run history.\n";
  out += ".SH SEE ALSO\n\\fBnvidia\\-smi\\fR(1), \\fBdcgmi\\fR(1), \\fBsrun\\fR(1)\n";
  return out;
}

std::string BashCompletion(const CLI::App& app) {
  std::string commands, cases;
  for (const CLI::App* sub : Commands(app)) {
    commands += (commands.empty() ? "" : " ") + sub->get_name();
    std::string opts, valued;
    for (const CLI::Option* o : Options(*sub)) {
      for (const std::string& n : NamesOf(*o)) {
        opts += (opts.empty() ? "" : " ") + n;
        if (TakesValue(*o)) valued += (valued.empty() ? "" : "|") + n;
      }
    }
    cases += fmt::format("    {}) opts={}; valued={} ;;\n", sub->get_name(), ShellQuoted(opts),
                         ShellQuoted(valued));
  }
  std::string globals;
  for (const CLI::Option* o : Options(app)) {
    for (const std::string& n : NamesOf(*o)) globals += " " + n;
  }
  return fmt::format(
      "# bash completion for yardstick, generated by `yardstick completion bash`.\n"
      "_yardstick() {{\n"
      "  local cur=${{COMP_WORDS[COMP_CWORD]}} prev=${{COMP_WORDS[COMP_CWORD-1]}} cmd= i\n"
      "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
      "    case ${{COMP_WORDS[i]}} in -*) ;; *) cmd=${{COMP_WORDS[i]}}; break ;; esac\n"
      "  done\n"
      "  if [[ -z $cmd ]]; then\n"
      "    COMPREPLY=($(compgen -W {} -- \"$cur\"))\n"
      "    return 0\n"
      "  fi\n"
      "  local opts= valued=\n"
      "  case $cmd in\n{}"
      "    *) return 0 ;;\n"
      "  esac\n"
      "  if [[ -n $valued && $prev == -* ]] && [[ \"|$valued|\" == *\"|$prev|\"* ]]; then\n"
      "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
      "    return 0\n"
      "  fi\n"
      "  if [[ $cur == -* ]]; then\n"
      "    COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
      "  else\n"
      "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
      "  fi\n"
      "}}\n"
      "complete -o filenames -F _yardstick yardstick\n",
      ShellQuoted(commands + globals), cases);
}

std::string ZshCompletion(const CLI::App& app) {
  std::string commands, cases;
  for (const CLI::App* sub : Commands(app)) {
    commands +=
        "    " + ShellQuoted(sub->get_name() + ":" + ZshText(sub->get_description())) + "\n";
    std::string specs;
    for (const CLI::Option* o : Options(*sub)) {
      for (const std::string& n : NamesOf(*o)) {
        std::string spec = n + "[" + ZshText(o->get_description()) + "]";
        if (TakesValue(*o)) spec += ":value:_files";
        specs += " \\\n        " + ShellQuoted(spec);
      }
    }
    cases += fmt::format("    {})\n      _arguments{} ;;\n", sub->get_name(), specs);
  }
  return fmt::format(
      "#compdef yardstick\n"
      "# zsh completion for yardstick, generated by `yardstick completion zsh`.\n"
      "_yardstick() {{\n"
      "  local -a commands\n"
      "  commands=(\n{}  )\n"
      "  if (( CURRENT == 2 )); then\n"
      "    _describe 'command' commands\n"
      "    return\n"
      "  fi\n"
      "  shift words\n"
      "  (( CURRENT-- ))\n"
      "  case $words[1] in\n{}"
      "  esac\n"
      "}}\n"
      "_yardstick \"$@\"\n",
      commands, cases);
}

}  // namespace ys::cli
