#include "slurm/serving_script.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "core/path_component.h"
#include "slurm/serving_commands.h"
#include "slurm/shell_quote.h"

namespace ys::slurm {

namespace {

using validate::ServingPhase;
using Placeholders = std::map<std::string, std::string>;

// The job's variables, where it stops its steps and how it fails. Fixed text: nothing of the
// phase or the cluster is in it.
constexpr const char* kServingPrologue =
    R"sh(mapfile -t ys_nodes < <(scontrol show hostnames "$SLURM_JOB_NODELIST")
ys_head=${ys_nodes[0]}
ys_url="http://${ys_head}:${ys_port}"
ys_pids=()         # every step started in the background: stopped on exit
ys_server_pids=()  # the serving stack's steps: the job fails when one ends before it is ready
mkdir -p "$ys_dir"
ys_stop() {
  local rc=$? p alive
  trap - EXIT
  if ((${#ys_pids[@]})); then
    echo "yardstick: stopping ${#ys_pids[@]} background step(s)"
    kill -TERM "${ys_pids[@]}" 2>/dev/null || true
    for _ in $(seq 1 30); do
      alive=0
      for p in "${ys_pids[@]}"; do if kill -0 "$p" 2>/dev/null; then alive=1; fi; done
      if ((alive == 0)); then break; fi
      sleep 1
    done
    kill -KILL "${ys_pids[@]}" 2>/dev/null || true
  fi
  # The kernel log of every node (XIDs), for the diagnosis.
  srun --overlap --nodes="${#ys_nodes[@]}" --ntasks="${#ys_nodes[@]}" --ntasks-per-node=1 bash -c 'if k=$(dmesg -T 2>/dev/null); then printf "%s\n" "$k" > "$1/dmesg_$(hostname -s).txt"; else echo "yardstick: dmesg not readable on $(hostname -s): no kernel log kept" >&2; fi' ys_dmesg "$ys_dir" || true
  echo "yardstick: job ends with exit code $rc"
  exit "$rc"
}
trap ys_stop EXIT
trap 'exit 143' TERM INT
ys_fail() {
  echo "yardstick: FAILED: $*" >&2
  exit 1
}
command -v curl >/dev/null 2>&1 || ys_fail "curl not found on $(hostname): cannot wait for the server"
echo "yardstick: phase ${YARDSTICK_PHASE} on ${ys_nodes[*]}; outputs in $ys_dir"
)sh";

// One nvidia-smi per node through the run, or a note where there is none ($1 folder, $2 ms).
constexpr const char* kTelemetryScript = R"sh(f="$1/gpu_telemetry_$(hostname -s)"
q=timestamp,index,uuid,name,pstate,utilization.gpu,memory.used,memory.total,power.draw,power.limit,temperature.gpu,clocks.sm,clocks.max.sm,clocks.mem,clocks_event_reasons.active
if command -v nvidia-smi >/dev/null 2>&1; then
  # Drivers older than the clocks_event_reasons fields name them clocks_throttle_reasons.
  nvidia-smi --query-gpu="$q" --format=csv,noheader -i 0 >/dev/null 2>&1 || q=${q/clocks_event_reasons/clocks_throttle_reasons}
  exec nvidia-smi --query-gpu="$q" --format=csv -lms "$2" -f "$f.csv"
fi
echo "yardstick: nvidia-smi not found on $(hostname -s): no GPU telemetry" | tee "$f.txt" >&2)sh";

// Polls the health URL until it answers 200 (for /v1/models: with a model listed, as a router
// answers an empty list before its workers register), the stack ends, or the time is out.
constexpr const char* kHealthWait = R"sh(ys_ready() {
  local start=$SECONDS p body
  echo "yardstick: waiting for ${ys_url}${ys_health_path} (at most ${ys_health_timeout} s)"
  while :; do
    if body=$(curl -sf --max-time 10 "${ys_url}${ys_health_path}" 2>/dev/null); then
      if [ "$ys_health_path" != /v1/models ] || [[ $body == *'"id"'* ]]; then break; fi
    fi
    for p in "${ys_server_pids[@]}"; do
      kill -0 "$p" 2>/dev/null || ys_fail "the serving stack ended before ${ys_url}${ys_health_path} answered; its logs are in $ys_dir"
    done
    if ((SECONDS - start >= ys_health_timeout)); then
      ys_fail "${ys_url}${ys_health_path} did not answer within ${ys_health_timeout} s ([serving] health_timeout_s); the stack's logs are in $ys_dir"
    fi
    sleep 2
  done
  echo "yardstick: the serving stack answered after $((SECONDS - start)) s"
}
ys_ready
)sh";

// A word of a command: static placeholders filled in, then {host} and {url} left to the job's
// shell ("$ys_head", "$ys_url") between single-quoted pieces.
Result<std::string> ShellWord(const std::string& arg, const Placeholders& values) {
  const std::string text = SubstitutePlaceholders(arg, values);
  std::string out;
  size_t from = 0;
  auto piece = [&](size_t to) -> Status {
    if (to == from) return Status::Ok();
    auto q = ShellQuote(std::string_view(text).substr(from, to - from));
    if (!q.ok()) return q.status();
    out += *q;
    return Status::Ok();
  };
  for (size_t i = 0; i < text.size(); ++i) {
    for (auto [name, var] : {std::pair{"{host}", "\"$ys_head\""}, {"{url}", "\"$ys_url\""}}) {
      if (text.compare(i, std::string_view(name).size(), name) != 0) continue;
      YS_RETURN_IF_ERROR(piece(i));
      out += var;
      i += std::string_view(name).size() - 1;
      from = i + 1;
      break;
    }
  }
  YS_RETURN_IF_ERROR(piece(text.size()));
  return out.empty() ? std::string("''") : out;
}

// " word word ...", each word as ShellWord makes it; `what` names the list in errors.
Result<std::string> ShellWords(const std::vector<std::string>& args, const Placeholders& values,
                               std::string_view what) {
  std::string out;
  for (const auto& a : args) {
    auto w = ShellWord(a, values);
    if (!w.ok()) return Status::Invalid(std::string(what) + ": " + w.status().message());
    out += " " + *w;
  }
  return out;
}

Placeholders PhaseValues(const ClusterConfig& c, const ServingPhase& p, const SbatchJob& job,
                         const std::string& runs) {
  return {{"phase", p.id},
          {"model", p.model},
          {"served_model", p.served_model.empty() ? p.model : p.served_model},
          {"stack", p.stack},
          {"gpus", std::to_string(p.gpus)},
          {"nodes", std::to_string(job.nodes)},
          {"gpus_per_node", std::to_string(c.gpus_per_node)},
          {"tp", std::to_string(p.tp)},
          {"ep", std::to_string(p.ep)},
          {"dp", std::to_string(p.dp)},
          {"pp", std::to_string(p.pp)},
          {"port", std::to_string(c.serving.port)},
          {"isl", std::to_string(p.isl)},
          {"osl", std::to_string(p.osl)},
          {"runs_dir", runs},
          {"log_dir", job.log_dir}};
}

// "srun --overlap ..." for a background step: its nodes, tasks and container, then `--`.
struct StepShape {
  std::string nodelist;  // shell text: "$ys_head", "${ys_nodes[2]},${ys_nodes[3]}"; empty: all
  int nodes = 1;
  int tasks_per_node = 1;
  bool mpi = false;
};

Result<std::string> SrunPrefix(const ClusterConfig& c, const std::string& image,
                               const StepShape& s) {
  // --ntasks always: a step would otherwise inherit the allocation's task count.
  std::string line = fmt::format("srun --overlap --nodes={} --ntasks={} --ntasks-per-node={}",
                                 s.nodes, s.nodes * s.tasks_per_node, s.tasks_per_node);
  if (!s.nodelist.empty()) line += " --nodelist=\"" + s.nodelist + "\"";
  if (s.mpi) line += " --mpi=pmix";
  auto container = ContainerFlags(c, image);
  if (!container.ok()) return container.status();
  line += *container;
  for (const auto& o : c.srun_options) YS_RETURN_IF_ERROR(AppendQuoted(&line, o));
  return line + " --";
}

// A background step of the stack: its output to <phase dir>/<log>, its pid recorded.
Result<std::string> StackStep(const ClusterConfig& c, const std::string& image,
                              const StepShape& shape, const std::string& words,
                              const std::string& log) {
  auto srun = SrunPrefix(c, image, shape);
  if (!srun.ok()) return srun.status();
  return fmt::format("{}{} > \"$ys_dir\"/{} 2>&1 &\nys_pids+=($!)\nys_server_pids+=($!)\n", *srun,
                     words, log);
}

// The aggregated stack: one step over the allocation (one MPI rank per GPU for TRT-LLM across
// nodes, else one task).
Result<std::string> AggregatedSteps(const ClusterConfig& c, const ServingPhase& p,
                                    const SbatchJob& job, const std::string& image,
                                    const Placeholders& values) {
  const bool multinode = job.nodes > 1;
  std::vector<std::string> cmd = c.serving.server_command;
  if (cmd.empty()) {
    auto made = DefaultServerCommand(p, multinode);
    if (!made.ok()) return made.status();
    cmd = *made;
  }
  auto words = ShellWords(cmd, values, "[serving] server_command");
  if (!words.ok()) return words.status();
  StepShape shape;
  shape.nodes = job.nodes;
  if (multinode && p.stack == "trtllm") {
    shape.tasks_per_node = c.gpus_per_node;
    shape.mpi = true;
  }
  return StackStep(c, image, shape, *words, "server.log");
}

// "${ys_nodes[i]},..." for `count` nodes from `first`.
std::string NodeList(int first, int count) {
  std::string s;
  for (int i = first; i < first + count; ++i)
    s += fmt::format("{}${{ys_nodes[{}]}}", s.empty() ? "" : ",", i);
  return s;
}

// NATS and etcd (Dynamo's discovery and messaging) and the frontend on the first node.
Result<std::string> DynamoFrontSteps(const ClusterConfig& c, const std::string& image,
                                     const Placeholders& values) {
  std::string s;
  StepShape head{"$ys_head"};
  if (c.serving.frontend_command.empty()) {
    auto infra =
        StackStep(c, image, head,
                  " bash -c 'nats-server -js & etcd --listen-client-urls "
                  "http://0.0.0.0:2379 --advertise-client-urls \"http://$(hostname):2379\" "
                  "--data-dir \"/tmp/ys-etcd-$SLURM_JOB_ID\" & wait'",
                  "infra.log");
    if (!infra.ok()) return infra.status();
    s += *infra;
  }
  s += "export ETCD_ENDPOINTS=\"http://${ys_head}:2379\" NATS_SERVER=\"nats://${ys_head}:4222\"\n";
  std::vector<std::string> cmd = c.serving.frontend_command;
  if (cmd.empty()) cmd = {"python3", "-m", "dynamo.frontend", "--http-port", "{port}"};
  auto words = ShellWords(cmd, values, "[serving] frontend_command");
  if (!words.ok()) return words.status();
  auto front = StackStep(c, image, head, *words, "frontend.log");
  if (!front.ok()) return front.status();
  return s + *front;
}

// The disaggregated stack: infrastructure and frontend, then every worker where the layout puts
// it (one MPI rank per GPU; CUDA_VISIBLE_DEVICES where it shares a node).
Result<std::string> DisaggregatedSteps(const ClusterConfig& c, const ServingPhase& p,
                                       const std::vector<ServingWorker>& layout,
                                       const std::string& image, const Placeholders& values) {
  if (p.stack != "dynamo-trtllm" &&
      (c.serving.prefill_command.empty() || c.serving.decode_command.empty())) {
    return Status::Invalid(fmt::format(
        "phase {}: yardstick launches disaggregated serving with dynamo-trtllm only; for stack "
        "'{}' set [serving] prefill_command and decode_command (and frontend_command)",
        p.id, p.stack));
  }
  auto s = DynamoFrontSteps(c, image, values);
  if (!s.ok()) return s.status();
  for (const ServingWorker& w : layout) {
    const bool prefill = w.role == "prefill";
    std::vector<std::string> cmd = prefill ? c.serving.prefill_command : c.serving.decode_command;
    if (cmd.empty()) {
      cmd.insert(cmd.end(),
                 {"trtllm-llmapi-launch", "python3", "-m", "dynamo.trtllm", "--model-path",
                  "{served_model}", "--served-model-name", "{served_model}",
                  "--disaggregation-mode", w.role, "--tensor-parallel-size", "{tp}"});
    }
    if (!w.devices.empty()) cmd.insert(cmd.begin(), {"env", "CUDA_VISIBLE_DEVICES=" + w.devices});
    Placeholders worker = values;
    worker["tp"] = std::to_string(w.tp);
    auto words =
        ShellWords(cmd, worker, prefill ? "[serving] prefill_command" : "[serving] decode_command");
    if (!words.ok()) return words.status();
    StepShape shape{NodeList(w.first_node, w.nodes), w.nodes,
                    w.devices.empty() ? c.gpus_per_node : w.tp, true};
    auto step = StackStep(c, image, shape, *words, fmt::format("{}_{}.log", w.role, w.index));
    if (!step.ok()) return step.status();
    *s += *step;
  }
  return s;
}

// The load generator once per concurrency point, its exports in <phase dir>/c<C>; the first
// failure ends the job with its exit code.
Result<std::string> LoadSteps(const ClusterConfig& c, const ServingPhase& p,
                              const Placeholders& values, const std::string& phase_dir) {
  const std::vector<std::string> cmd =
      c.serving.load_command.empty() ? DefaultLoadCommand(p) : c.serving.load_command;
  std::string s;
  for (int conc : p.concurrency) {
    Placeholders v = values;
    v["concurrency"] = std::to_string(conc);
    v["requests"] = std::to_string(p.requests);
    v["warmup_requests"] = std::to_string(p.warmup_requests);
    v["artifact_dir"] = fmt::format("{}/c{}", phase_dir, conc);
    auto words = ShellWords(cmd, v, "[serving] load_command");
    if (!words.ok()) return words.status();
    auto dir = ShellQuote(v["artifact_dir"]);
    if (!dir.ok()) return dir.status();
    s += fmt::format(
        "echo \"yardstick: {} at concurrency {}: {} requests, {} warm-up\"\nmkdir -p {}\n"
        "ys_rc=0\n{} || ys_rc=$?\n"
        "if ((ys_rc != 0)); then\n"
        "  echo \"yardstick: FAILED: the load generator exited $ys_rc at concurrency {}\" >&2\n"
        "  exit \"$ys_rc\"\nfi\n",
        p.load_generator, conc, p.requests, p.warmup_requests, *dir, words->substr(1), conc);
  }
  return s + "echo \"yardstick: phase ${YARDSTICK_PHASE} done\"\n";
}

}  // namespace

Result<std::vector<ServingWorker>> DisaggregatedLayout(const ServingPhase& p, int gpn, int* nodes) {
  std::vector<ServingWorker> out;
  int node = 0, used = 0;  // the node being filled and its GPUs taken
  for (auto [role, count, tp] : {std::tuple{"prefill", p.prefill_workers, p.prefill_tp},
                                 std::tuple{"decode", p.decode_workers, p.decode_tp}}) {
    if (tp > gpn && tp % gpn != 0) {
      return Status::Invalid(
          fmt::format("phase {}: {} TP {} spans nodes of {} GPUs but is not a whole number of them",
                      p.id, role, tp, gpn));
    }
    for (int i = 0; i < count; ++i) {
      ServingWorker w{role, i, tp};
      if (tp >= gpn) {
        if (used > 0) {
          ++node;
          used = 0;
        }
        w.first_node = node;
        w.nodes = tp / gpn;
        node += w.nodes;
      } else {
        if (used + tp > gpn) {
          ++node;
          used = 0;
        }
        w.first_node = node;
        for (int g = used; g < used + tp; ++g)
          w.devices += (w.devices.empty() ? "" : ",") + std::to_string(g);
        used += tp;
      }
      out.push_back(w);
    }
  }
  *nodes = node + (used > 0 ? 1 : 0);
  return out;
}

namespace {

// The job's nodes, tasks and paths (and, disaggregated, where each worker runs).
Result<SbatchJob> ServingJobShape(const ClusterConfig& c, const ServingPhase& p,
                                  const std::string& runs, std::vector<ServingWorker>* layout) {
  SbatchJob job{p.id, "ys_" + p.id};
  if (p.disaggregated()) {
    auto l = DisaggregatedLayout(p, c.gpus_per_node, &job.nodes);
    if (!l.ok()) return l.status();
    *layout = std::move(*l);
  } else if (p.gpus > c.gpus_per_node && p.gpus % c.gpus_per_node != 0) {
    return Status::Invalid(fmt::format(
        "phase {}: {} GPUs is not a whole number of nodes of {} GPUs ({} gpus_per_node)", p.id,
        p.gpus, c.gpus_per_node, c.path));
  } else {
    job.nodes = (p.gpus + c.gpus_per_node - 1) / c.gpus_per_node;
  }
  job.tasks_per_node = job.nodes > 1 ? c.gpus_per_node : std::min(p.gpus, c.gpus_per_node);
  if (c.nodes > 0 && job.nodes > c.nodes) {
    return Status::Invalid(fmt::format(
        "phase {}: needs {} nodes ({} GPUs at {} per node); {} says the cluster has {} (nodes)",
        p.id, job.nodes, p.gpus, c.gpus_per_node, c.path, c.nodes));
  }
  job.log_dir = runs + "/" + p.id + ".job";
  job.log_pattern = job.log_dir + "/slurm-" + p.id + "_%j.out";
  job.script_path = job.log_dir + "/" + p.id + ".sbatch";
  return job;
}

}  // namespace

Result<SbatchJob> MakeServingJob(const ClusterConfig& c, const validate::Suite& suite,
                                 const ServingPhase& p, const std::string& runs_dir) {
  YS_RETURN_IF_ERROR(ValidatePathComponent("phase id", p.id));
  auto runs = ScriptRunsDir(runs_dir);
  if (!runs.ok()) return runs.status();
  std::vector<ServingWorker> layout;
  auto shaped = ServingJobShape(c, p, *runs, &layout);
  if (!shaped.ok()) return shaped.status();
  SbatchJob& job = *shaped;
  const std::string phase_dir = *runs + "/" + p.id;

  auto s = SbatchPreamble(
      c, job,
      fmt::format("Generated by `yardstick submit`: suite {} ({}), serving phase {} ({}, {} {}), "
                  "{} GPUs on {} node(s).",
                  suite.chip, suite.recipe_release, p.id, p.phase, p.stack, p.stack_version, p.gpus,
                  job.nodes),
      {{"YARDSTICK_PHASE", p.id}});
  if (!s.ok()) return s.status();
  const std::string image = !c.serving.image.empty() ? c.serving.image : p.container;
  const Placeholders values = PhaseValues(c, p, job, *runs);
  auto q_dir = ShellQuote(phase_dir);
  auto q_health = ShellQuote(c.serving.health_path);
  if (!q_dir.ok() || !q_health.ok()) return Status::Invalid("phase " + p.id + ": a NUL in a path");
  *s += fmt::format("ys_dir={}\nys_port={}\nys_health_path={}\nys_health_timeout={}\n", *q_dir,
                    c.serving.port, *q_health, c.serving.health_timeout_s);
  *s += kServingPrologue;
  *s += fmt::format(
      "srun --overlap --nodes={0} --ntasks={0} --ntasks-per-node=1 bash -c {1} ys_telemetry "
      "\"$ys_dir\" {2} &\nys_pids+=($!)\n",
      job.nodes, *ShellQuote(kTelemetryScript), c.serving.telemetry_interval_ms);
  auto stack = p.disaggregated() ? DisaggregatedSteps(c, p, layout, image, values)
                                 : AggregatedSteps(c, p, job, image, values);
  if (!stack.ok()) return stack.status();
  auto q_stack = ShellQuote(p.stack);
  if (!q_stack.ok()) return q_stack.status();
  *s += "echo 'yardstick: starting' " + *q_stack + "\n" + *stack + kHealthWait;
  auto load = LoadSteps(c, p, values, phase_dir);
  if (!load.ok()) return load.status();
  job.script = std::move(*s) + *load;
  return std::move(job);
}

}  // namespace ys::slurm
