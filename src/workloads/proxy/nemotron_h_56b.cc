// proxy.nemotron-h_56b: the Nemotron-H 56B training-step proxy (models/nemotron-h_56b.toml; see proxy_unit.h).
#include "workloads/proxy/proxy_unit.h"

YS_REGISTER_PROXY(nemotron_h_56b, "nemotron-h_56b", "Nemotron-H 56B")
