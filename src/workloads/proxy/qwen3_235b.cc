// proxy.qwen3_235b: the Qwen3 235B-A22B training-step proxy (models/qwen3_235b.toml; see proxy_unit.h).
#include "workloads/proxy/proxy_unit.h"

YS_REGISTER_PROXY(qwen3_235b, "qwen3_235b", "Qwen3 235B-A22B")
