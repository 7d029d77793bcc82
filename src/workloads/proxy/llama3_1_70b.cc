// proxy.llama3.1_70b: the Llama 3.1 70B training-step proxy (models/llama3.1_70b.toml; see proxy_unit.h).
#include "workloads/proxy/proxy_unit.h"

YS_REGISTER_PROXY(llama3_1_70b, "llama3.1_70b", "Llama 3.1 70B")
