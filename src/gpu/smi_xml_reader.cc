// `nvidia-smi -q -x` XML into the dump tree (smi_dump_tree.h). nvidia-smi writes plain XML: a
// declaration, a DOCTYPE naming its DTD, elements with an occasional attribute (<gpu id=...>),
// and text. This reader takes that subset and refuses anything else with the line it is on; it
// is no general XML parser (no namespaces, CDATA or external entities).
#include <string>
#include <vector>

#include "core/text.h"
#include "gpu/smi_dump_tree.h"

namespace ys::gpu {
namespace {

class XmlReader {
 public:
  explicit XmlReader(std::string_view text) : s_(text) {}

  Result<SmiEntry> Read() {
    SmiEntry doc;
    open_ = {{&doc, {}}};
    while (pos_ < s_.size()) {
      Status st = s_[pos_] == '<' ? Markup() : Text();
      if (!st.ok()) return st;
    }
    if (open_.size() != 1) return Fail("<" + open_.back().entry->key + "> is never closed");
    if (doc.children.size() != 1) return Fail("expected one root element <nvidia_smi_log>");
    return std::move(doc.children.front());
  }

 private:
  struct Open {
    SmiEntry* entry;
    std::string text;
  };

  Status Fail(const std::string& why) const {
    return Status::Invalid("line " + std::to_string(line_) + ": " + why);
  }

  // Moves to just past `end` (counting lines); false when it never comes.
  bool SkipPast(std::string_view end) {
    size_t at = s_.find(end, pos_);
    if (at == std::string_view::npos) return false;
    Advance(at + end.size());
    return true;
  }
  void Advance(size_t to) {
    for (; pos_ < to; ++pos_) line_ += s_[pos_] == '\n';
  }

  static bool NameChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.' || c == ':';
  }
  std::string_view Name() {
    size_t b = pos_;
    while (pos_ < s_.size() && NameChar(s_[pos_])) ++pos_;
    return s_.substr(b, pos_ - b);
  }
  void SkipSpace() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) {
      Advance(pos_ + 1);
    }
  }

  Status Markup() {
    std::string_view rest = s_.substr(pos_);
    if (StartsWith(rest, "<?")) return SkipPast("?>") ? Status::Ok() : Fail("unterminated <?");
    if (StartsWith(rest, "<!--")) {
      return SkipPast("-->") ? Status::Ok() : Fail("unterminated comment");
    }
    if (StartsWith(rest, "<![CDATA[")) return Fail("CDATA is not part of an nvidia-smi dump");
    if (StartsWith(rest, "<!")) return Doctype();
    if (StartsWith(rest, "</")) return Close();
    return Element();
  }

  // <!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">, possibly with an internal subset.
  Status Doctype() {
    size_t gt = s_.find('>', pos_);
    size_t bracket = s_.find('[', pos_);
    bool subset = bracket != std::string_view::npos && bracket < gt;
    bool done = subset ? SkipPast("]>") : SkipPast(">");
    return done ? Status::Ok() : Fail("unterminated <!DOCTYPE");
  }

  Status Close() {
    ++pos_;
    ++pos_;
    std::string_view name = Name();
    SkipSpace();
    if (pos_ >= s_.size() || s_[pos_] != '>') return Fail("malformed closing tag");
    ++pos_;
    if (open_.size() == 1) return Fail("</" + std::string(name) + "> closes nothing");
    Open& top = open_.back();
    if (name != top.entry->key) {
      return Fail("</" + std::string(name) + "> closes <" + top.entry->key + ">");
    }
    top.entry->value = std::string(Trim(top.text));
    open_.pop_back();
    return Status::Ok();
  }

  // name="value" or name='value' pairs up to > or />; keeps id.
  Status Attributes(SmiEntry& e) {
    while (true) {
      SkipSpace();
      if (pos_ >= s_.size()) return Fail("unterminated tag <" + e.key);
      if (s_[pos_] == '>' || s_[pos_] == '/') return Status::Ok();
      std::string_view name = Name();
      SkipSpace();
      if (name.empty() || pos_ >= s_.size() || s_[pos_] != '=') {
        return Fail("malformed attribute in <" + e.key + ">");
      }
      ++pos_;
      SkipSpace();
      if (pos_ >= s_.size() || (s_[pos_] != '"' && s_[pos_] != '\'')) {
        return Fail("attribute " + std::string(name) + " of <" + e.key + "> has no quoted value");
      }
      char quote = s_[pos_++];
      size_t end = s_.find(quote, pos_);
      if (end == std::string_view::npos) return Fail("unterminated attribute value");
      std::string value;
      Status st = Decode(s_.substr(pos_, end - pos_), value);
      if (!st.ok()) return st;
      Advance(end + 1);
      if (name == "id") e.id = std::move(value);
    }
  }

  Status Element() {
    ++pos_;
    SmiEntry e;
    e.line = line_;
    e.key = std::string(Name());
    if (e.key.empty()) return Fail("'<' not followed by a tag name");
    if (open_.size() > static_cast<size_t>(kMaxSmiDepth)) {
      return Fail("nested deeper than " + std::to_string(kMaxSmiDepth) + " elements");
    }
    Status st = Attributes(e);
    if (!st.ok()) return st;
    bool empty = s_[pos_] == '/';
    if (empty && (pos_ + 1 >= s_.size() || s_[pos_ + 1] != '>')) {
      return Fail("malformed empty tag <" + e.key + "/>");
    }
    pos_ += empty ? 2 : 1;
    SmiEntry* parent = open_.back().entry;
    parent->children.push_back(std::move(e));
    if (!empty) open_.push_back({&parent->children.back(), {}});
    return Status::Ok();
  }

  Status Text() {
    size_t lt = s_.find('<', pos_);
    if (lt == std::string_view::npos) lt = s_.size();
    std::string_view raw = s_.substr(pos_, lt - pos_);
    if (open_.size() == 1 && !Trim(raw).empty()) return Fail("text outside the root element");
    Status st = Decode(raw, open_.back().text);
    Advance(lt);
    return st;
  }

  // Appends `raw` with &lt; &gt; &amp; &quot; &apos; and &#N; / &#xN; (ASCII) decoded.
  Status Decode(std::string_view raw, std::string& out) const {
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] != '&') {
        out += raw[i];
        continue;
      }
      size_t semi = raw.find(';', i);
      if (semi == std::string_view::npos || semi - i > 10) return Fail("unterminated '&' entity");
      std::string_view name = raw.substr(i + 1, semi - i - 1);
      static constexpr std::pair<std::string_view, char> kNamed[] = {
          {"lt", '<'}, {"gt", '>'}, {"amp", '&'}, {"quot", '"'}, {"apos", '\''}};
      bool done = false;
      for (const auto& [n, c] : kNamed) {
        if (name == n) {
          out += c;
          done = true;
        }
      }
      if (!done && StartsWith(name, "#")) {
        bool hex = name.size() > 1 && (name[1] == 'x' || name[1] == 'X');
        auto code = hex ? ParseHex(name.substr(2)) : ParseUint(name.substr(1));
        if (code) {
          out += *code > 0 && *code < 128 ? static_cast<char>(*code) : '?';
          done = true;
        }
      }
      if (!done) return Fail("unknown entity &" + std::string(name) + ";");
      i = semi;
    }
    return Status::Ok();
  }

  std::string_view s_;
  size_t pos_ = 0;
  int line_ = 1;
  std::vector<Open> open_;
};

}  // namespace

Result<SmiEntry> ParseSmiXml(std::string_view text) { return XmlReader(text).Read(); }

}  // namespace ys::gpu
