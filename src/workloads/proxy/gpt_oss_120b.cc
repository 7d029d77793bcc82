// proxy.gpt_oss_120b: the GPT-OSS 120B training-step proxy (models/gpt_oss_120b.toml; see proxy_unit.h).
#include "workloads/proxy/proxy_unit.h"

YS_REGISTER_PROXY(gpt_oss_120b, "gpt_oss_120b", "GPT-OSS 120B")
