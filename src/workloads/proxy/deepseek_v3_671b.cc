// proxy.deepseek-v3_671b: the DeepSeek-V3 671B training-step proxy (models/deepseek-v3_671b.toml; see proxy_unit.h).
#include "workloads/proxy/proxy_unit.h"

YS_REGISTER_PROXY(deepseek_v3_671b, "deepseek-v3_671b", "DeepSeek-V3 671B")
