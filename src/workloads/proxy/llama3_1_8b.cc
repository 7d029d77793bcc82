// proxy.llama3.1_8b: the Llama 3.1 8B training-step proxy (models/llama3.1_8b.toml; see proxy_unit.h).
#include "workloads/proxy/proxy_unit.h"

YS_REGISTER_PROXY(llama3_1_8b, "llama3.1_8b", "Llama 3.1 8B")
