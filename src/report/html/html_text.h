// Text for the HTML report: escaping (every piece of text from a document goes through
// EscapeHtml, so a hostile hostname or finding message stays text) and number formatting.
#ifndef YARDSTICK_REPORT_HTML_HTML_TEXT_H_
#define YARDSTICK_REPORT_HTML_HTML_TEXT_H_

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

namespace ys::report::html {

// & < > " ' as character references; invalid UTF-8 bytes become U+FFFD.
std::string EscapeHtml(std::string_view text);

// JSON to embed in <script type="application/json">: < > & as \u escapes, so no "</script>" or
// "<!--" inside a string can end the block early; invalid UTF-8 becomes U+FFFD.
std::string ScriptSafeJson(const nlohmann::ordered_json& j);

// Text safe inside <script>...</script> (Chart.js's source): every "</" becomes "<\/", which means
// the same inside the strings and regular expressions where minified code has it.
std::string ScriptSafeSource(std::string_view js);

// Three significant figures, no exponent for everyday magnitudes: "0.253", "118", "1.05e+06".
std::string FormatValue(double v);
// "12.3%"
std::string FormatPercent(double pct);
// Bytes as the size axis reads them: "1 KiB", "32 MiB", "512 B".
std::string FormatBytes(double bytes);

}  // namespace ys::report::html

#endif  // YARDSTICK_REPORT_HTML_HTML_TEXT_H_
