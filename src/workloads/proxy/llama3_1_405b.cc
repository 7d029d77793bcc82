// proxy.llama3.1_405b: the Llama 3.1 405B training-step proxy (models/llama3.1_405b.toml; see proxy_unit.h).
#include "workloads/proxy/proxy_unit.h"

YS_REGISTER_PROXY(llama3_1_405b, "llama3.1_405b", "Llama 3.1 405B")
