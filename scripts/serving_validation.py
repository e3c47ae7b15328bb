#!/usr/bin/env python3
"""Compare `decodesim serve` / `decodesim plan` against public serving measurements.

Usage: python3 scripts/serving_validation.py build/decodesim [--csv validation/serving.csv] [--only ID_PREFIX]

Reads validation/serving.csv (one measured figure per row, each with its source) and, for every row,
asks the decodesim binary for the same figure under the row's conditions. Nothing is fitted: every
prediction uses decodesim's shipped profiles and runtime presets. Prints predicted vs measured and
the signed error per row, then the median absolute error per metric and overall. Exits 0.

How each kind of row is predicted (choices documented here and in docs/validation.md):

* Open-loop rows (rate_per_s set; e.g. MLPerf Server latency percentiles at the scheduled Poisson
  rate): `decodesim serve --rate R --tp TP --replicas N --requests max(1000, R x 1200) --seed 1
  --json`, read the matching field (ttft_s.p50/p99/mean, tpot_s.p50/p99/mean,
  throughput.output_tokens_per_s). The run is lengthened beyond 1000 requests to >= 20 minutes of
  arrivals (see open_loop_requests): at ~100 req/s, 1000 requests never reach steady state.
* max_rate_per_s_at_slo rows (MLPerf Server sustained rate under its p99 TTFT/TPOT limits, taken
  from the notes as ttft_p99=..;tpot_p99=..): `decodesim plan --hardware H --model M --formats W
  --kv KV --tp <the row's tp> --rate 1 ... --ttft-p99 X --tpot-p99 Y --json`, then
  options[0].max_rate_at_targets x (row devices / option devices). plan's max rate comes from its
  analytic steady state, not from bisecting the simulator. (Letting plan choose among tp 1,2,4,8
  was tried and dropped: at --rate 1 it picks the cheapest shape for 1 req/s, e.g. tp1 on H100,
  whose per-device capacity is not what an 8-GPU system would deploy.)
* Fixed-concurrency rows (concurrency C set, no rate; NIM/AIPerf, LLMPerf, `vllm bench serve
  --max-concurrency` and similar sweeps with C clients and no think time): `decodesim serve
  --concurrency C --requests N --seed 1 --json`, C clients each sending its next request when its
  last one finished; N is the row's stated request count (requests=N in the notes), else
  max(1000, 10 C). TTFT is the client's (the runtime profile's request path included).
* A row without a stated prompt length would use ASSUMED_PROMPT_TOKENS and be flagged "assumed
  prompt" (none is left: the MLPerf llama2-70b rows state the OpenOrca subset's mean, 222 tokens).
* KV-cache format: "kv=FORMAT" in the notes, else decodesim's default.
* Engine -> --runtime: vllm -> vllm; sglang -> sglang; tensorrt-llm -> tensorrt-llm; llama.cpp -> llama.cpp
  (each the current build's profile).
* Conditions read from the notes as tokens: "dp-attention=N" (--dp-attention N, --tp tp/N and --ep
  tp: SGLang's --enable-dp-attention with --dp N over the row's tp devices) and "ep=N" (--ep);
  "client=in_process" (--in-process: MLPerf's LoadGen calls the engine in its own process, so no
  request path); "graphs=off" (--cuda-graphs off: the run captured no CUDA graph, so the host
  dispatched every op of every pass, e.g. TensorRT-LLM's PyTorch backend before 1.0 without
  use_cuda_graph); "chunked-prefill=on" (--chunked-prefill: the launch turned chunking on where the
  runtime's default prefills each prompt whole, TensorRT-LLM's --enable_chunked_prefill);
  "prefix-caching=off" (--no-prefix-caching: vLLM's --no-enable-prefix-caching, SGLang's
  --disable-radix-cache); "admission=incremental" or "admission=whole_request" (--admission: the
  capacity scheduler a launch set against its runtime's default, e.g. MLPerf's NVIDIA harness's
  'max_util' on TensorRT-LLM, whose default reserves each request's whole cache); "prompt=SPEC"
  and "output=SPEC" (a length distribution, as serve's --prompt takes
  it: the lengths the benchmark drew, e.g. bench_serving's uniform 1..N at range ratio 0; the
  columns keep the means); "lengths=dataset" (a run on a dataset such as ShareGPT, whose
  per-request lengths the source states only as means: serve's dataset:MEAN about the columns'
  means, as validation/measurements.csv's lengths=dataset); "max-seqs=N" and "max-batched-tokens=N"
  (--max-seqs, --max-batched-tokens: the scheduler limits a submission configured, e.g. MLPerf's
  gpu_batch_size and max_num_tokens).
  "runtime=ID" (--runtime ID: the build the row ran where its engine's current one is not it).
  "warm-up=N" and "warm-prefix=K" (--warm-up, --warm-prefix, closed-loop rows: the prompts the
  server's prefix cache held at the start, from the client's untimed first request and the sweep's
  previous run; warm_flags).
  A row whose notes state "speculative=..." is predicted only where they state the acceptance its
  run reached, as the serving log printed it: "draft=mtp" (or a draft model), "spec-length=K" and
  "accept-length=L" (--draft, --spec-length, --accept-length: L tokens a verification step, the
  server's own mean); chain drafts only (speculation_flags).
* Sustained rates (the issue target for MLPerf-style limits): the max_rate_per_s_at_slo rows' median
  |error| per runtime build, their signed range and how many are within 15%.
* Closed-loop runs (the issue target): the rows of one run (same source, device, model, format,
  engine, tp, concurrency and lengths) give one TTFT error and one TPOT error, the mean row's where
  the run has one, else the median's; the summary gives the median |error| of each and the share of
  runs within 20% on both, over all runs, per engine and on the devices the target names (H100,
  H200, B200). A burst (every request sent at once, written as concurrency = requests) is not a run
  at a fixed concurrency: its line is apart and its runs are in no other.
* A row whose simulation refused requests (a prompt longer than a pass without chunked prefill, or
  than the cache) gets no prediction: the figures of the requests served are not the run's.

Standard library only.
"""
import csv
import json
import math
import os
import re
import statistics
import subprocess
import sys

ASSUMED_PROMPT_TOKENS = 512  # MLPerf llama2-70b rows: mean prompt not stated in the sources (cap 1024)
REQUESTS = 1000
OPEN_LOOP_WINDOW_S = 1200.0  # open-loop rows: simulate at least 20 minutes of arrivals (MLPerf runs 10-40 min)
SEED = 1
TARGET_DEVICES = {"h100-sxm", "h100-pcie", "h200-sxm", "b200"}  # the devices the closed-loop target names
# Runs a constant was fitted on (a row id prefix each, with the constant): left out of the held-out
# lines of the closed-loop summary.
FITTED_RUNS = {
    "ck-dsr1-8xb200-i1ko1k-c1-": "sglang kernel_graph launch_time on nvidia-blackwell",
    "ck-dsr1-8xb200-i1ko8k-c1-": "sglang kernel_graph launch_time on nvidia-blackwell",
    "ck-dsr1-8xb200-i8ko1k-c1-": "sglang kernel_graph launch_time on nvidia-blackwell",
    "gpustack-gptoss20b-h100-vllm-sharegpt-burst-": "vllm@0.8 request_path per_output_token",
    "gpustack-gptoss20b-h100-vllm-async-sharegpt-burst-": "vllm@0.8 request_path per_output_token",
}
RUNTIME = {"vllm": "vllm", "sglang": "sglang", "tensorrt-llm": "tensorrt-llm", "llama.cpp": "llama.cpp", "ideal": "ideal"}


def run_json(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise RuntimeError((p.stderr.strip() or p.stdout.strip()).splitlines()[-1] if (p.stderr or p.stdout) else f"exit {p.returncode}")
    return json.loads(p.stdout)


def served_whole(d):
    """A serve run's figures describe the run only when it served every request: a request the
    simulated server refused (a prompt longer than a pass without chunking, or than the cache) leaves
    the figures to the others, which is not the run the row measured."""
    if d.get("rejected"):
        raise RuntimeError(f"the simulated server refused {d['rejected']} requests "
                           f"({d.get('rejected_longer_than_pass', 0)} longer than a pass): not the run the row measured")
    return d


def runtime_of(row):
    """The build the row ran: "runtime=ID" in the notes (e.g. MLPerf's TensorRT-LLM engines, the 0.x
    build), else the engine's current build."""
    m = re.search(r"\bruntime=([A-Za-z0-9_.@-]+)", row["notes"])
    return m.group(1) if m else RUNTIME.get(row["engine"], row["engine"])


def common_flags(row, prompt):
    f = ["--hardware", row["hardware"], "--model", row["model"], "--weights", row["weights"],
         "--runtime", runtime_of(row),
         "--tp", str(tensor_degree(row)), "--prompt", length_of(row, "prompt", prompt),
         "--output", length_of(row, "output", row["output_tokens"])]
    kv = kv_of(row)
    if kv:
        f += ["--kv", kv]
    return f + condition_flags(row) + speculation_flags(row)


def length_of(row, which, mean):
    """A length distribution the notes state as a token (prompt=uniform:1:1000, as serve's --prompt
    takes it); for a run on a conversation dataset ("lengths=dataset"), serve's dataset:MEAN about
    the row's mean (workload::dataset_lengths: fixed lengths would keep a closed loop's clients in
    step, which no run on a dataset does); else the row's mean length."""
    m = re.search(r"\b" + which + r"=((?:uniform|normal|lognormal):[0-9.:]+)", row["notes"])
    if m:
        return m.group(1)
    if re.search(r"\blengths=dataset\b", row["notes"]):
        return f"dataset:{mean}"
    return str(mean)


def dp_attention(row):
    m = re.search(r"\bdp-attention=([0-9]+)", row["notes"])
    return int(m.group(1)) if m else 1


def tensor_degree(row):
    """decodesim's --tp: the devices of one attention replica. SGLang's `--tp 8 --dp 8
    --enable-dp-attention` runs eight attention replicas of one device each over the row's 8 devices
    (the row's tp column), so --tp is tp / dp-attention."""
    return max(1, int(row["tp"]) // dp_attention(row))


def condition_flags(row):
    """The deployment conditions a row's notes state as tokens (see the docstring). With data-parallel
    attention the routed experts span every device of the stage (--ep = the row's tp)."""
    f = []
    if dp_attention(row) > 1:
        f += ["--dp-attention", str(dp_attention(row)), "--ep", str(int(row["tp"]))]
    else:
        m = re.search(r"\bep=([0-9]+)", row["notes"])
        if m:
            f += ["--ep", m.group(1)]
    if re.search(r"\bclient=in_process\b", row["notes"]):
        f.append("--in-process")
    if re.search(r"\bgraphs=off\b", row["notes"]):
        f += ["--cuda-graphs", "off"]
    if re.search(r"\bchunked-prefill=on\b", row["notes"]):
        f.append("--chunked-prefill")
    if re.search(r"\bprefix-caching=off\b", row["notes"]):
        f.append("--no-prefix-caching")
    m = re.search(r"\badmission=(incremental|whole_request)\b", row["notes"])
    if m:
        f += ["--admission", m.group(1)]
    for key in ("max-seqs", "max-batched-tokens"):
        m = re.search(r"\b" + key + r"=([0-9]+)", row["notes"])
        if m:
            f += ["--" + key, m.group(1)]
    return f


def warm_flags(row):
    """A warm prefix cache at the start (serve --warm-up, --warm-prefix): "warm-up=N" where the client
    sent its first N prompts once, untimed, before the run (vllm bench serve's initial test run,
    SGLang bench_serving's warm-up), "warm-prefix=K" where the sweep's previous run sent prompts
    beginning with the same K tokens (vLLM's seeded random dataset)."""
    f = []
    for key in ("warm-up", "warm-prefix"):
        m = re.search(r"\b" + key + r"=([0-9]+)", row["notes"])
        if m:
            f += ["--" + key, m.group(1)]
    return f


def speculation_flags(row):
    """--draft, --spec-length and --accept-length for a row that decoded speculatively and states
    the acceptance its server printed; a speculative row that does not is refused."""
    if not re.search(r"\bspeculative=", row["notes"]):
        return []
    draft = re.search(r"\bdraft=([A-Za-z0-9_.@/-]+)", row["notes"])
    length = re.search(r"\bspec-length=([0-9]+)", row["notes"])
    accepted = re.search(r"\baccept-length=([0-9.]+)", row["notes"])
    if not (draft and length and accepted):
        raise RuntimeError("speculative decoding: the run's acceptance rate is not a stated condition")
    return ["--draft", draft.group(1), "--spec-length", length.group(1), "--accept-length", accepted.group(1)]


def kv_of(row):
    m = re.search(r"\bkv=([a-z0-9_]+)", row["notes"])
    return m.group(1) if m else None


def slo_of(row):
    t = re.search(r"ttft_p99=([0-9.eE+-]+)", row["notes"])
    p = re.search(r"tpot_p99=([0-9.eE+-]+)", row["notes"])
    return float(t.group(1)), float(p.group(1))


SERVE_FIELD = {
    "ttft_p50_s": ("ttft_s", "p50"), "ttft_p99_s": ("ttft_s", "p99"), "ttft_mean_s": ("ttft_s", "mean"),
    "tpot_p50_s": ("tpot_s", "p50"), "tpot_p99_s": ("tpot_s", "p99"), "tpot_mean_s": ("tpot_s", "mean"),
    "output_tokens_per_s": ("throughput", "output_tokens_per_s"),
}

_cache = {}


def predict_open(binary, row, prompt):
    key = ("open", row["hardware"], row["model"], row["weights"], row["engine"], row["tp"], row["replicas"],
           row["rate_per_s"], prompt, row["output_tokens"], kv_of(row), tuple(condition_flags(row)), tuple(speculation_flags(row)))
    if key not in _cache:
        cmd = [binary, "serve"] + common_flags(row, prompt) + [
            "--replicas", str(int(row["replicas"] or 1)), "--rate", row["rate_per_s"],
            "--requests", str(open_loop_requests(float(row["rate_per_s"]))), "--seed", str(SEED), "--json"]
        _cache[key] = run_json(cmd)
    d = served_whole(_cache[key])
    a, b = SERVE_FIELD[row["metric"]]
    return d[a][b], ("saturated" if d.get("saturated") else "")


def open_loop_requests(rate):
    """At least REQUESTS, and at least OPEN_LOOP_WINDOW_S of arrivals: a 1000-request run at ~100 req/s
    lasts 10 s, shorter than one request's end-to-end latency, so it starts from an empty server, never
    reaches steady state, hides saturation and dilutes throughput with the drain at the end."""
    return max(REQUESTS, math.ceil(rate * OPEN_LOOP_WINDOW_S))


def predict_max_rate(binary, row, prompt):
    devices = int(row["tp"]) * int(row["replicas"] or 1)
    tps = str(int(row["tp"]))  # the row's deployment shape, as for its serve rows
    ttft, tpot = slo_of(row)
    cmd = [binary, "plan", "--hardware", row["hardware"], "--model", row["model"], "--formats", row["weights"],
           "--runtime", runtime_of(row), "--tp", tps, "--rate", "1",
           "--prompt", str(prompt), "--output", row["output_tokens"],
           "--ttft-p99", str(ttft), "--tpot-p99", str(tpot), "--json"] + condition_flags(row)
    kv = kv_of(row)
    if kv:
        cmd[cmd.index("--runtime"):cmd.index("--runtime")] = ["--kv", kv]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        d = json.loads(p.stdout)
    except json.JSONDecodeError:
        raise RuntimeError((p.stderr.strip() or f"exit {p.returncode}").splitlines()[-1])
    if not d.get("options"):
        # The model's answer is that no rate meets the limits on this system: a sustained rate of 0,
        # an error of -100% against the rate the run sustained, not a row left out.
        missed = [r["reason"] for r in d.get("rejected", []) if "misses the targets" in r["reason"]]
        if missed:
            return 0.0, "plan: no rate meets the limits (" + missed[0] + ")"
        raise RuntimeError((p.stderr.strip() or "plan found no deployment meeting the targets").splitlines()[-1])
    o = d["options"][0]
    return o["max_rate_at_targets"] * devices / o["devices"], f"plan tp{o['tp']}"


def closed_requests(row, c):
    """The row's request count when its notes state one (requests=N), else ten per client and at least
    REQUESTS: enough rounds that the first wave's start-up is a small share of the run."""
    m = re.search(r"\brequests=([0-9]+)", row["notes"])
    return int(m.group(1)) if m else max(REQUESTS, 10 * c)


def predict_closed(binary, row, prompt):
    """C clients, each sending its next request when its last one finished (`serve --concurrency C`),
    as the benchmark ran them; the figure is the run's own (client-side TTFT, TPOT excluding the first
    token, output tokens over the run's duration)."""
    c = int(row["concurrency"])
    key = ("closed", row["hardware"], row["model"], row["weights"], row["engine"], row["tp"], row["replicas"],
           c, prompt, row["output_tokens"], kv_of(row), tuple(condition_flags(row)), tuple(speculation_flags(row)), tuple(warm_flags(row)),
           closed_requests(row, c))
    if key not in _cache:
        _cache[key] = run_json([binary, "serve"] + common_flags(row, prompt) + warm_flags(row) + [
            "--replicas", str(int(row["replicas"] or 1)), "--concurrency", str(c),
            "--requests", str(closed_requests(row, c)), "--seed", str(SEED), "--json"])
    d = served_whole(_cache[key])
    if row["metric"] not in SERVE_FIELD:
        raise RuntimeError(f"metric {row['metric']} not supported for closed-loop rows")
    a, b = SERVE_FIELD[row["metric"]]
    return d[a][b], f"closed loop C={c}"


def run_key(r):
    return (r["source"], r["hardware"], r["model"], r["weights"], r["engine"], r["tp"], r["concurrency"],
            r["prompt_tokens"], r["output_tokens"])


def closed_loop_summary(results):
    """The issue's closed-loop target: per run one TTFT and one TPOT error (the mean's, else the median's)."""
    runs = {}
    fitted = set()
    for r, _, _, err, _ in results:
        if any(r["id"].startswith(prefix) for prefix in FITTED_RUNS):
            fitted.add(run_key(r))
        if r["rate_per_s"] or not r["concurrency"]:
            continue
        kind = r["metric"].split("_")[0]
        if kind not in ("ttft", "tpot") or r["metric"].endswith("p99_s"):
            continue
        statistic = "mean" if "_mean_" in r["metric"] else "p50"
        slot = runs.setdefault(run_key(r), {})
        slot["burst"] = int(r["concurrency"]) >= closed_requests(r, int(r["concurrency"]))
        if statistic == "mean" or kind not in slot:
            slot[kind] = err
    every = [(k, v) for k, v in runs.items() if "ttft" in v and "tpot" in v]
    # A burst (every request sent at once: request rate inf and no --max-concurrency, written as
    # concurrency = requests) is not a run at a fixed concurrency: its clients leave one by one and
    # none comes back. It gets its own line and stays out of the target's.
    bursts = [(k, v) for k, v in every if v.get("burst")]
    both = [(k, v) for k, v in every if not v.get("burst")]
    if not both:
        return
    print()
    print("closed-loop runs (TTFT and TPOT of one run; the mean's error, else the median's):")
    print(f"{'engine':<24} {'runs':>5} {'TPOT median':>12} {'TTFT median':>12} {'within 20% on both':>19}")
    groups = {"all": both}
    for k, v in both:
        groups.setdefault(k[4], []).append((k, v))
    # The target names these devices: the same runs on them alone.
    on_target = [(k, v) for k, v in both if k[1] in TARGET_DEVICES]
    if on_target:
        groups["on H100, H200, B200"] = on_target
    # The same without the runs a constant was fitted on (FITTED_RUNS).
    held_out = [(k, v) for k, v in both if k not in fitted]
    if len(held_out) < len(both):
        groups["all, held out"] = held_out
        groups["H100/H200/B200, held out"] = [(k, v) for k, v in on_target if k not in fitted]
    if bursts:
        groups["bursts (not in the above)"] = bursts
        held_out_bursts = [(k, v) for k, v in bursts if k not in fitted]
        if len(held_out_bursts) < len(bursts):
            groups["bursts, held out"] = held_out_bursts
    for name, group in groups.items():
        tpot = statistics.median(abs(v["tpot"]) for _, v in group)
        ttft = statistics.median(abs(v["ttft"]) for _, v in group)
        within = sum(1 for _, v in group if abs(v["tpot"]) <= 20.0 and abs(v["ttft"]) <= 20.0)
        print(f"{name:<24} {len(group):>5} {tpot:>11.1f}% {ttft:>11.1f}% {within:>8} ({100.0 * within / len(group):.0f}%)")


def sustained_rate_summary(results):
    """The issue's MLPerf target: the sustained rate under the latency limits within 15%, per runtime
    (the build each row ran, runtime_of)."""
    groups = {}
    for r, _, _, err, _ in results:
        if r["metric"] == "max_rate_per_s_at_slo":
            groups.setdefault(runtime_of(r), []).append(err)
    if not groups:
        return
    print()
    print("sustained rate under the latency limits (max_rate_per_s_at_slo), per runtime build:")
    print(f"{'runtime':<24} {'systems':>7} {'median |error|':>15} {'signed range':>20} {'within 15%':>11}")
    for name, errors in sorted(groups.items()):
        median = statistics.median(abs(e) for e in errors)
        within = sum(1 for e in errors if abs(e) <= 15.0)
        span = f"{min(errors):+.1f}% to {max(errors):+.1f}%"
        print(f"{name:<24} {len(errors):>7} {median:>14.1f}% {span:>20} {within:>11}")


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        print(__doc__)
        return 0
    binary = args[0]
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "..", "validation", "serving.csv")
    only = None
    i = 1
    while i < len(args):
        if args[i] == "--csv":
            path, i = args[i + 1], i + 2
        elif args[i] == "--only":
            only, i = args[i + 1], i + 2
        else:
            i += 1
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if only:
        rows = [r for r in rows if r["id"].startswith(only)]

    results, failures = [], []
    print(f"{'id':<46} {'metric':<22} {'measured':>11} {'predicted':>11} {'error':>8}  note")
    for r in rows:
        prompt = r["prompt_tokens"] or ASSUMED_PROMPT_TOKENS
        note = "" if r["prompt_tokens"] else "assumed prompt"
        try:
            if r["metric"] == "max_rate_per_s_at_slo":
                pred, how = predict_max_rate(binary, r, prompt)
            elif r["rate_per_s"]:
                pred, how = predict_open(binary, r, prompt)
            elif r["concurrency"]:
                pred, how = predict_closed(binary, r, prompt)
            else:
                raise RuntimeError("row has neither rate nor concurrency")
        except Exception as e:  # noqa: BLE001 - report and continue
            failures.append((r, str(e)))
            print(f"{r['id']:<46} {r['metric']:<22} {float(r['value']):>11.5g} {'-':>11} {'-':>8}  no prediction: {e}")
            continue
        meas = float(r["value"])
        err = (pred - meas) / meas * 100.0
        results.append((r, meas, pred, err, "saturated" in how))
        print(f"{r['id']:<46} {r['metric']:<22} {meas:>11.5g} {pred:>11.5g} {err:>+7.1f}%  {'; '.join(x for x in (how, note) if x)}")

    print()
    print(f"rows: {len(rows)}, predicted: {len(results)}, no prediction: {len(failures)}")
    by_metric = {}
    for r, _, _, err, _ in results:
        by_metric.setdefault(r["metric"], []).append(abs(err))
    print(f"{'metric':<24} {'rows':>5} {'median |error|':>15}")
    for m in sorted(by_metric):
        print(f"{m:<24} {len(by_metric[m]):>5} {statistics.median(by_metric[m]):>14.1f}%")
    if results:
        print(f"{'overall':<24} {len(results):>5} {statistics.median(abs(x[3]) for x in results):>14.1f}%")
    unsat = [x for x in results if not x[4]]
    if len(unsat) != len(results):
        print()
        print(f"excluding the {len(results) - len(unsat)} rows whose simulation saturated (offered rate above decodesim's capacity):")
        by_m = {}
        for r, _, _, err, _ in unsat:
            by_m.setdefault(r["metric"], []).append(abs(err))
        for m in sorted(by_m):
            print(f"{m:<24} {len(by_m[m]):>5} {statistics.median(by_m[m]):>14.1f}%")
        print(f"{'overall':<24} {len(unsat):>5} {statistics.median(abs(x[3]) for x in unsat):>14.1f}%")
    by_source = {}
    for r, _, _, err, _ in results:
        by_source.setdefault(r["id"].split("-")[0], []).append(abs(err))
    print()
    print(f"{'row group (id prefix)':<24} {'rows':>5} {'median |error|':>15}")
    for s in sorted(by_source):
        print(f"{s:<24} {len(by_source[s]):>5} {statistics.median(by_source[s]):>14.1f}%")
    closed_loop_summary(results)
    sustained_rate_summary(results)
    print()
    print("worst 10 rows by |error|:")
    for r, meas, pred, err, _ in sorted(results, key=lambda x: -abs(x[3]))[:10]:
        print(f"  {r['id']:<46} measured {meas:.5g} predicted {pred:.5g} ({err:+.1f}%)")
    for r, e in failures:
        print(f"  no prediction: {r['id']}: {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
