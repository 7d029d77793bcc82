#include "predict/release_choice.h"

namespace ys::predict {

std::string ReleaseConstantsChoice::Header() const {
  std::string s = "release " + (choice.used.empty() ? choice.asked : choice.used);
  s += choice.used.empty() ? " (base constants)" : " (calibrated; --release TAG to choose)";
  if (!choice.note.empty()) s += "; " + choice.note;
  return s;
}

}  // namespace ys::predict
