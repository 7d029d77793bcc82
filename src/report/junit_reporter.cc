#include "report/junit_reporter.h"

#include <fmt/format.h>

#include <vector>

namespace ys::report {

std::string XmlEscape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // XML 1.0 forbids most control characters; drop them rather than emit invalid XML.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' && c != '\r') break;
        out += c;
    }
  }
  return out;
}

namespace {

std::string FindingsText(const CheckResult& c) {
  std::string text;
  for (const auto& f : c.findings) {
    text += fmt::format("{} {} {}: {}\n", SeverityName(f.severity), f.code, f.entity, f.message);
    for (const auto& [k, v] : f.evidence) text += fmt::format("  {} = {}\n", k, v);
    if (!f.fix.empty()) text += "  fix: " + f.fix + "\n";
  }
  return text;
}

}  // namespace

void WriteJunit(const RunDocument& doc, std::ostream& out) {
  // Checks and benchmarks alike are test cases.
  std::vector<const CheckResult*> units = doc.AllUnits();
  auto counts = doc.Counts();
  auto n = [&](Outcome o) { return counts.count(o) ? counts.at(o) : 0; };
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << fmt::format(
      "<testsuites name=\"yardstick\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" "
      "time=\"{:.3f}\">\n",
      units.size(), n(Outcome::kFail), n(Outcome::kError), n(Outcome::kSkip),
      doc.duration_ms / 1000.0);
  out << fmt::format(
      "  <testsuite name=\"yardstick.{}\" hostname=\"{}\" timestamp=\"{}\" tests=\"{}\" "
      "failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{:.3f}\">\n",
      XmlEscape(doc.command), XmlEscape(doc.host.hostname), XmlEscape(doc.started_at), units.size(),
      n(Outcome::kFail), n(Outcome::kError), n(Outcome::kSkip), doc.duration_ms / 1000.0);
  for (const CheckResult* unit : units) {
    const CheckResult& c = *unit;
    std::string area = c.unit_id.substr(0, c.unit_id.find('.'));
    out << fmt::format("    <testcase classname=\"yardstick.{}\" name=\"{}\" time=\"{:.3f}\"",
                       XmlEscape(area), XmlEscape(c.unit_id), c.duration_ms / 1000.0);
    std::string findings = FindingsText(c);
    switch (c.outcome) {
      case Outcome::kPass:
        out << "/>\n";
        continue;
      case Outcome::kSkip:
        out << fmt::format(">\n      <skipped message=\"{}\"/>\n", XmlEscape(c.summary));
        break;
      case Outcome::kError:
        out << fmt::format(">\n      <error message=\"{}\"/>\n", XmlEscape(c.summary));
        break;
      case Outcome::kFail: {
        std::string first = c.findings.empty()
                                ? c.summary
                                : c.findings.front().code + ": " + c.findings.front().message;
        out << fmt::format(
            ">\n      <failure message=\"{}\" type=\"{}\">{}</failure>\n", XmlEscape(first),
            c.findings.empty() ? "fail" : XmlEscape(c.findings.front().code), XmlEscape(findings));
        break;
      }
      case Outcome::kWarn:
        out << fmt::format(">\n      <system-out>{}</system-out>\n", XmlEscape(findings));
        break;
    }
    out << "    </testcase>\n";
  }
  out << "  </testsuite>\n</testsuites>\n";
}

}  // namespace ys::report
