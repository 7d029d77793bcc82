// The JSON streaming layer of the serving-result readers (see the header): a streambuf that quotes
// Python's bare NaN and Infinity, and a SAX handler that keeps each record's scalar fields.
#include "validate/json_record_stream.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <streambuf>

namespace ys::validate {
namespace {

using json = nlohmann::json;

// Python's json module writes NaN, Infinity and -Infinity bare (SGLang's "request_rate":
// Infinity, a NaN latency over zero completed requests); JSON has no such literals, so they pass
// to the parser as the strings "NaN", "Infinity", "-Infinity", which the serving readers read as
// a non-finite value. Text inside JSON strings is passed on untouched.
class BareNonFiniteQuoter : public std::streambuf {
 public:
  explicit BareNonFiniteQuoter(std::istream& in) : in_(in) {}

 protected:
  int_type underflow() override {
    while (gptr() == egptr()) {
      if (done_) return traits_type::eof();
      Refill();
    }
    return traits_type::to_int_type(*gptr());
  }

 private:
  void Refill() {
    char chunk[16384];
    in_.read(chunk, sizeof chunk);
    const std::streamsize got = in_.gcount();
    out_.clear();
    for (std::streamsize i = 0; i < got; ++i) Take(chunk[i]);
    if (got == 0) {  // the end: close what is open
      if (minus_) out_ += '-';
      if (word_) out_ += '"';
      minus_ = word_ = false;
      done_ = true;
    }
    setg(out_.data(), out_.data(), out_.data() + out_.size());
  }
  void Take(char c) {
    if (string_) {
      out_ += c;
      if (escape_) {
        escape_ = false;
      } else if (c == '\\') {
        escape_ = true;
      } else if (c == '"') {
        string_ = false;
      }
      return;
    }
    if (word_) {
      if (std::isalpha(static_cast<unsigned char>(c))) {
        out_ += c;
        return;
      }
      out_ += '"';
      word_ = false;
    }
    if (minus_) {
      minus_ = false;
      if (c == 'I') {
        out_ += "\"-I";
        word_ = true;
        return;
      }
      out_ += '-';
    }
    if (c == '-') {
      minus_ = true;
    } else if (c == 'N' || c == 'I') {  // NaN, Infinity: JSON's own literals are lower case
      out_ += '"';
      out_ += c;
      word_ = true;
    } else {
      if (c == '"') string_ = true;
      out_ += c;
    }
  }
  std::istream& in_;
  std::string out_;
  bool string_ = false, escape_ = false, word_ = false, minus_ = false, done_ = false;
};

// Keeps the scalar fields of each record object (the root object, or each object of a root
// array); a nested array or object is kept as an empty [] or {}, so per-request arrays never
// reach memory but a field of the wrong type is still seen. Two exceptions, both small: the
// per-request "input_lens" / "output_lens" arrays are summarised as they stream past ({count,
// sum, min, max}), and the scalar fields of SGLang's "server_info" object are kept as
// "server_info.<key>".
class RecordSax : public nlohmann::json_sax<json> {
 public:
  std::vector<JsonRecord> records;
  std::string error;

  bool null() override { return Scalar(json(nullptr)); }
  bool boolean(bool v) override { return Scalar(json(v)); }
  bool number_integer(number_integer_t v) override { return Scalar(json(v)); }
  bool number_unsigned(number_unsigned_t v) override { return Scalar(json(v)); }
  bool number_float(number_float_t v, const string_t&) override { return Scalar(json(v)); }
  bool string(string_t& v) override { return Scalar(json(v)); }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override {
    bool server_info = !stack_.empty() && stack_.back() == 'R' && key_ == "server_info";
    Scalar(json::object());  // a nested object stands as {} in its record
    bool record = stack_.empty() || (stack_.size() == 1 && stack_[0] == '[');
    stack_.push_back(record ? 'R' : server_info ? 'S' : '{');
    if (record) current_.clear();
    return true;
  }
  bool key(string_t& k) override {
    key_ = k;
    return true;
  }
  bool end_object() override {
    if (stack_.back() == 'R') records.push_back(std::move(current_));
    stack_.pop_back();
    return true;
  }
  bool start_array(std::size_t) override {
    bool lengths =
        !stack_.empty() && stack_.back() == 'R' && (key_ == "output_lens" || key_ == "input_lens");
    Scalar(json::array());  // a per-request array stands as [] in its record
    stack_.push_back(lengths ? 'L' : '[');
    if (lengths) lens_ = {key_, 0, 0, 0, 0};
    return true;
  }
  bool end_array() override {
    if (stack_.back() == 'L' && lens_.count > 0) {
      current_[lens_.key] =
          json{{"count", lens_.count}, {"sum", lens_.sum}, {"min", lens_.min}, {"max", lens_.max}};
    }
    stack_.pop_back();
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    error = e.what();
    return false;
  }

 private:
  struct Lengths {
    std::string key;
    int64_t count;
    double sum, min, max;
  };
  bool Scalar(json v) {
    if (stack_.empty()) return true;
    if (stack_.back() == 'R') current_[key_] = std::move(v);
    if (stack_.back() == 'S') current_["server_info." + key_] = std::move(v);
    if (stack_.back() == 'L' && v.is_number()) {
      double x = v.get<double>();
      lens_.min = lens_.count == 0 ? x : std::min(lens_.min, x);
      lens_.max = lens_.count == 0 ? x : std::max(lens_.max, x);
      lens_.sum += x;
      ++lens_.count;
    }
    return true;
  }
  std::vector<char> stack_;  // 'R' record, 'S' server_info, 'L' lengths, '{' object, '[' array
  JsonRecord current_;
  std::string key_;
  Lengths lens_{};
};

}  // namespace

bool IsNonFiniteText(const nlohmann::json& v) {
  if (!v.is_string()) return false;
  const std::string& s = v.get_ref<const std::string&>();
  return s == "NaN" || s == "Infinity" || s == "-Infinity";
}

JsonRecordStream ReadJsonRecords(std::istream& raw) {
  BareNonFiniteQuoter quoter(raw);
  std::istream in(&quoter);
  RecordSax sax;
  JsonRecordStream out;
  while (true) {
    int c;
    while ((c = in.peek()) != EOF && std::isspace(c)) in.get();
    if (c == EOF) break;
    ++out.values;
    if (!json::sax_parse(in, &sax, nlohmann::detail::input_format_t::json, /*strict=*/false)) {
      out.ok = false;
      out.error = sax.error;
      break;
    }
  }
  out.records = std::move(sax.records);
  return out;
}

}  // namespace ys::validate
