// Fuzz target: the format room (core/format_registry.cc, src/formats/): every format's sniffer
// on one input, the choice `ingest` makes from them, and the chosen format's reader on the input
// written to a scratch file, the path every file an operator hands yardstick takes.
#include <any>

#include "core/format_registry.h"
#include "fuzz_target.h"
#include "fuzz_util.h"

YS_FUZZ_TARGET(format_sniff) {
  std::string_view text = ys::fuzz::AsText(data, size);
  const auto ranked = ys::FormatRegistry::Global().Rank(text);
  for (const ys::ChosenFormat& c : ranked) {
    if (!(c.sniff.confidence >= 0 && c.sniff.confidence <= 1)) __builtin_trap();
  }
  ys::fuzz::WriteScratch("format.input", text);
  const std::string path = ys::fuzz::ScratchDir() + "/format.input";
  auto chosen = ys::ChooseFormat(path, text);
  if (!chosen.ok()) return 0;
  (void)chosen->format->read(ys::FormatRequest{.path = path});
  return 0;
}
