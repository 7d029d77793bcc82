// Compare two runs measurement by measurement: those present in both (same name, identity params
// and node) with their change and a noise-aware judgement (noise.h states the rule), and those
// present in only one.
#ifndef YARDSTICK_HISTORY_COMPARE_H_
#define YARDSTICK_HISTORY_COMPARE_H_

#include <vector>

#include "history/history.h"
#include "history/noise.h"

namespace ys::history {

struct MeasurementChange {
  MeasurementRow a, b;
  CompareVerdict verdict;
};

struct Comparison {
  std::vector<MeasurementChange> both;  // in B's order
  std::vector<MeasurementRow> only_a, only_b;
};

// A measurement that appears more than once with one identity in a run is paired in order.
Comparison CompareRows(const std::vector<MeasurementRow>& a, const std::vector<MeasurementRow>& b);

}  // namespace ys::history

#endif  // YARDSTICK_HISTORY_COMPARE_H_
