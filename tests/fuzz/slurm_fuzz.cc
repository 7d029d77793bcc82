// Fuzz target: Slurm command output (slurm/slurm_state.cc), by selector byte:
//   0 scontrol show job   1 squeue   2 sacct   3 scontrol show node   4 a Slurm time
#include "fuzz_target.h"
#include "fuzz_util.h"
#include "slurm/slurm_state.h"

YS_FUZZ_TARGET(slurm) {
  using namespace ys::slurm;
  std::string_view text = ys::fuzz::AsText(data, size);
  std::optional<int> which = ys::fuzz::TakeSelector(&text, 5);
  if (!which) return 0;
  switch (*which) {
    case 0:
      (void)ParseScontrolJob(text);
      break;
    case 1:
      (void)ParseSqueue(text);
      break;
    case 2:
      (void)ParseSacct(text, "4242");
      break;
    case 3:
      (void)ParseScontrolNode(text);
      break;
    case 4:
      (void)ParseSlurmTime(text);
      break;
  }
  return 0;
}
