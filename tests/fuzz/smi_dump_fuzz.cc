// Fuzz target: an nvidia-smi -q dump, text or -x XML (gpu/smi_dump.cc ReadSmiDump and the two
// tree readers under it), told from the content as --nvml-state does.
#include "fuzz_target.h"
#include "fuzz_util.h"
#include "gpu/smi_dump.h"

YS_FUZZ_TARGET(smi_dump) {
  std::string_view text = ys::fuzz::AsText(data, size);
  (void)ys::gpu::DetectSmiDump(text);
  (void)ys::gpu::ReadSmiDump(text, "fuzz.dump");
  return 0;
}
