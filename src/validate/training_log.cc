#include "validate/training_log.h"

#include <fmt/format.h>

#include "validate/log_line.h"

namespace ys::validate {

std::optional<double> GradNormOnLine(std::string_view line) {
  if (auto v = NumberAfter(line, "grad norm:")) return v;
  return NumberAfter(line, "grad_norm:");
}

IterationSample* SampleCollector::Add(IterationSample s) {
  auto [it, inserted] = by_step_.emplace(s.step, s);
  if (!inserted) {
    if (duplicates_++ == 0) first_duplicate_step_ = s.step;
    return nullptr;
  }
  return &it->second;
}

IterationSample* SampleCollector::Find(int64_t step) {
  auto it = by_step_.find(step);
  return it == by_step_.end() ? nullptr : &it->second;
}

void SampleCollector::MoveTo(ParsedLog& out) {
  out.samples.clear();
  out.samples.reserve(by_step_.size());
  for (auto& [step, s] : by_step_) out.samples.push_back(std::move(s));
  by_step_.clear();
  if (duplicates_ > 0) {
    out.notes.push_back(fmt::format(
        "{} iteration line(s) repeat an iteration already seen (first: step {}); the first "
        "occurrence of each is kept",
        duplicates_, first_duplicate_step_));
  }
}

std::unique_ptr<LogParser> MakeLogParser(LogFormat format) {
  switch (format) {
    case LogFormat::kNemo2:
      return MakeNemo2Parser();
    case LogFormat::kMegatron:
      return MakeMegatronParser();
    case LogFormat::kTorchtitan:
      return MakeTorchtitanParser();
    case LogFormat::kAuto:
    case LogFormat::kInferenceJson:
      return nullptr;
  }
  return nullptr;
}

ParsedLog ParseTrainingLog(LogFormat format, std::string_view text) {
  std::unique_ptr<LogParser> parser = MakeLogParser(format);
  if (!parser) {
    ParsedLog empty;
    empty.notes.push_back(fmt::format("'{}' is not a training-log format", LogFormatName(format)));
    return empty;
  }
  ForEachLine(text, [&](std::string_view line, int64_t no) { parser->Feed(line, no); });
  return parser->Finish();
}

ParsedLog ParseNemo2Log(std::string_view text) { return ParseTrainingLog(LogFormat::kNemo2, text); }
ParsedLog ParseMegatronLog(std::string_view text) {
  return ParseTrainingLog(LogFormat::kMegatron, text);
}
ParsedLog ParseTorchtitanLog(std::string_view text) {
  return ParseTrainingLog(LogFormat::kTorchtitan, text);
}

}  // namespace ys::validate
