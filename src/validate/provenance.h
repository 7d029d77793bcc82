// Where a reference's figures come from: the chip, the kind ("published" tables, a "recorded"
// golden run; for serving also "site", figures a site was given, and "proxy", public figures that
// stand in for a reference nobody published), the release they belong to, the source, and the
// system they were measured on. Shown with every verdict made against them.
#ifndef YARDSTICK_VALIDATE_PROVENANCE_H_
#define YARDSTICK_VALIDATE_PROVENANCE_H_

#include <string>

namespace ys::validate {

struct Provenance {
  std::string chip;
  std::string kind;     // "published" | "recorded"
  std::string release;  // recipe release the numbers belong to
  std::string source;
  std::string date;
  std::string hardware;
  std::string software;
  std::string made_by;
  std::string note;
  std::string path;  // the file it was loaded from
};

}  // namespace ys::validate

#endif  // YARDSTICK_VALIDATE_PROVENANCE_H_
