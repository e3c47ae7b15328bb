// The planner page: builds a `decodesim plan|serve|frontier` command line from the form (and the
// URL), runs it in a worker on the decodesim CLI compiled to WebAssembly (decodesim.js,
// sim/web/explorer_bindings.cpp), shows its progress, and lays out what `--json` printed. No
// physics here: every figure is a field of the command's JSON, and the frontier chart is the SVG
// `frontier --svg` draws.
"use strict";

(function () {
  const kAll = ["plan", "serve", "frontier"];
  // Each field is the flag of that name (and the URL key), shown for the questions listed. An
  // empty field leaves its flag out, so the CLI's own default applies.
  const kFields = [
    { flag: "model", questions: kAll, label: "Model", kind: "model", value: "llama-3.1-8b" },
    { flag: "hardware", questions: kAll, label: "Hardware (comma-separated; serve: one)", kind: "hardware", value: "h100-sxm" },
    { flag: "formats", questions: ["plan"], label: "Weight formats to try", placeholder: "bf16" },
    { flag: "weights", questions: ["serve", "frontier"], label: "Weights", placeholder: "bf16" },
    { flag: "kv", questions: ["serve", "frontier"], label: "KV cache", placeholder: "bf16" },
    { flag: "tp", questions: ["serve"], label: "Tensor parallel", placeholder: "1" },
    { flag: "runtime", questions: kAll, label: "Runtime", placeholder: "vllm" },
    { flag: "scenario", questions: kAll, label: "Scenario", kind: "select", options: ["", "chat", "code", "summarize", "agent", "batch"] },
    { flag: "users", questions: ["plan"], label: "Users (closed loop)", placeholder: "or a rate" },
    { flag: "think-time", questions: ["plan"], label: "Think time (s)", placeholder: "0" },
    { flag: "rate", questions: ["plan", "serve"], label: "Rate (requests/s)", value: "5" },
    { flag: "concurrency", questions: ["serve", "frontier"], label: "Concurrency (clients)", placeholder: "serve: or a rate; frontier: 1:256:x2" },
    { flag: "prompt", questions: kAll, label: "Prompt tokens", placeholder: "1000" },
    { flag: "output", questions: kAll, label: "Output tokens", placeholder: "plan, serve: 200; frontier: 1000" },
    { flag: "ttft-p99", questions: ["plan"], label: "TTFT p99 target (s)", value: "2" },
    { flag: "tpot-p99", questions: ["plan"], label: "TPOT p99 target (s)", value: "0.05" },
    { flag: "min-tokens-per-s-per-user", questions: ["plan"], label: "Or: tokens/s a user, at least" },
    { flag: "requests", questions: ["serve"], label: "Requests", placeholder: "1000" },
    { flag: "requests-per-client", questions: ["frontier"], label: "Requests a client", placeholder: "10" },
    { flag: "seed", questions: ["serve", "frontier"], label: "Seed", placeholder: "1" },
  ];
  const kFrontierSvg = "/tmp/planner-frontier.svg";

  const element = (id) => document.getElementById(id);
  let worker = null;
  let nextId = 1;
  const waiting = new Map();  // request id -> {resolve, onProgress}
  let progressReports = 0;

  // The worker: the engine instantiated once, each message a command line run to its end, its
  // progress posted as it goes. Its source is this function's text, handed to a Blob with
  // decodesim.js's factory: a page opened from disk (file://) may not load a worker script by URL.
  function workerMain() {
    let engine = null;
    const ready = createDecodesim().then((module) => {
      engine = module;
    });
    self.onmessage = (event) => {
      const { id, args, readFile } = event.data;
      ready
        .then(() => {
          if (args === null) {
            self.postMessage({ id, ids: { hardware: engine.profile_ids("hardware"), models: engine.profile_ids("models") } });
            return;
          }
          const progress = (what, done, total) => self.postMessage({ id, progress: { what, done, total } });
          const result = engine.run_with_progress(args, progress);
          const file = readFile && result.exit_code === 0 ? engine.read_file(readFile) : null;
          self.postMessage({ id, result: { exitCode: result.exit_code, out: result.out, err: result.err, file } });
        })
        .catch((error) => self.postMessage({ id, failed: String(error) }));
    };
  }

  function startWorker() {
    const source = `var _scriptDir = undefined;\nvar createDecodesim = ${createDecodesim.toString()};\n(${workerMain.toString()})();\n`;
    const started = new Worker(URL.createObjectURL(new Blob([source], { type: "text/javascript" })));
    started.onmessage = (event) => {
      const { id, progress, result, ids, failed } = event.data;
      const entry = waiting.get(id);
      if (!entry) return;
      if (progress) {
        entry.onProgress(progress);
        return;
      }
      waiting.delete(id);
      if (failed) entry.reject(new Error(failed));
      else entry.resolve(result || ids);
    };
    return started;
  }

  // Sends a command line (or null: the catalog's ids) to the worker; resolves with its result.
  function ask(args, onProgress = () => {}, readFile = null) {
    const id = nextId++;
    return new Promise((resolve, reject) => {
      waiting.set(id, { resolve, reject, onProgress });
      worker.postMessage({ id, args, readFile });
    });
  }

  function buildForm(ids) {
    const form = element("inputs");
    const list = element("hardware-ids");
    for (const id of ids.hardware) list.append(new Option(id, id));
    for (const field of kFields) {
      const label = document.createElement("label");
      label.dataset.questions = field.questions.join(" ");
      label.append(field.label + " ");
      let control;
      if (field.kind === "model" || field.kind === "select") {
        control = document.createElement("select");
        for (const value of field.kind === "model" ? ids.models : field.options) control.append(new Option(value || "none", value));
      } else {
        control = document.createElement("input");
        control.type = "text";
        if (field.kind === "hardware") control.setAttribute("list", "hardware-ids");
        if (field.placeholder) control.placeholder = field.placeholder;
      }
      control.id = `field-${field.flag}`;
      control.name = field.flag;
      label.append(control);
      form.append(label);
    }
  }

  function setControl(control, value) {
    if (control.tagName === "SELECT" && ![...control.options].some((option) => option.value === value)) {
      control.append(new Option(value, value));  // kept, so that the CLI can say why it is wrong
    }
    control.value = value;
  }

  function showQuestion() {
    const question = element("question").value;
    for (const label of element("inputs").querySelectorAll("label[data-questions]")) {
      label.hidden = !label.dataset.questions.split(" ").includes(question);
    }
  }

  // The question and the shown, non-empty fields, in the form's order: the command line and the URL.
  function readInputs() {
    const question = element("question").value;
    const values = [];
    for (const field of kFields) {
      if (!field.questions.includes(question)) continue;
      const value = element(`field-${field.flag}`).value.trim();
      if (value !== "") values.push([field.flag, value]);
    }
    return { question, values };
  }

  function writeUrl(inputs) {
    const query = new URLSearchParams();
    query.set("question", inputs.question);
    for (const [flag, value] of inputs.values) query.set(flag, value);
    try {
      history.replaceState(null, "", "?" + query.toString());
    } catch (error) {
      // Some browsers refuse to rewrite file:// addresses; the page still works.
    }
  }

  function showMessages(id, text) {
    const box = element(id);
    box.textContent = text.trim();
    box.hidden = text.trim() === "";
  }

  const number = (value, digits = 4) => (value === null || value === undefined ? "–" : Number(value).toPrecision(digits));
  function seconds(value) {
    if (value === null || value === undefined) return "–";
    return value >= 1 ? `${value.toPrecision(4)} s` : `${(value * 1000).toPrecision(4)} ms`;
  }

  // A table from rows of [text, data-value] cells; the raw number rides in data-value for tests.
  function table(header, rows) {
    const html = document.createElement("table");
    const head = html.createTHead().insertRow();
    for (const name of header) head.append(Object.assign(document.createElement("th"), { textContent: name }));
    const body = html.createTBody();
    for (const row of rows) {
      const line = body.insertRow();
      for (const [text, value] of row) {
        const cell = line.insertCell();
        cell.textContent = text;
        if (value !== undefined) cell.dataset.value = String(value);
      }
    }
    return html;
  }

  function paragraph(text, id) {
    const p = document.createElement("p");
    p.textContent = text;
    if (id) p.id = id;
    return p;
  }

  function showPlan(document_) {
    const results = element("results");
    const rows = document_.options.map((option) => [
      [option.hardware],
      [`${option.devices}`, option.devices],
      [`tp${option.tp}${option.pp > 1 ? ` pp${option.pp}` : ""}${option.ep > 1 ? ` ep${option.ep}` : ""} x ${option.replicas}`],
      [`${option.weights}/${option.kv}`],
      [option.cost_per_hour === null || option.cost_per_hour === undefined ? "–" : option.cost_per_hour.toFixed(2), option.cost_per_hour],
      [number(option.cost_per_million_output_tokens), option.cost_per_million_output_tokens],
      [option.binding],
      [seconds(option.ttft_p99_s), option.ttft_p99_s],
      [seconds(option.tpot_p99_s), option.tpot_p99_s],
      [option.verified_by_serve ? `${(100 * option.verified_by_serve.share_on_target).toFixed(1)}%` : "–"],
    ]);
    results.append(
      table(["hardware", "devices", "layout x replicas", "weights/kv", "$/hour", "$/M out", "binding", "TTFT p99", "TPOT p99", "serve on target"], rows));
    const best = document_.options.find((option) => option.best);
    if (best) {
      results.append(paragraph(`best: ${best.devices} x ${best.hardware}`, "best"));
      if (best.launch) {
        results.append(paragraph(`launch: ${best.launch.serve}`));
        results.append(paragraph(`check it: ${best.launch.verify}`));
      }
    }
    for (const rejected of document_.rejected || []) results.append(paragraph(`${rejected.hardware}: ${rejected.reason}`));
  }

  function showServe(document_) {
    const rows = ["ttft_s", "tpot_s", "itl_s", "e2e_s"].map((key) => [
      [key.replace("_s", "").toUpperCase()],
      [seconds(document_[key].p50), document_[key].p50],
      [seconds(document_[key].p90), document_[key].p90],
      [seconds(document_[key].p99), document_[key].p99],
      [seconds(document_[key].mean), document_[key].mean],
    ]);
    const results = element("results");
    results.append(table(["latency", "p50", "p90", "p99", "mean"], rows));
    results.append(paragraph(
      `${number(document_.throughput.output_tokens_per_s)} output tokens/s, ${number(document_.throughput.requests_per_s)} requests/s; ` +
      `mean running batch ${number(document_.mean_running_batch, 3)}; ${document_.preemptions} preemptions; ` +
      (document_.saturated ? "saturated: arrivals outran service" : "not saturated"), "serve-summary"));
  }

  function showFrontier(document_, svg) {
    const results = element("results");
    const chart = document.createElement("div");
    chart.className = "curve";
    chart.id = "frontier-chart";
    if (svg) chart.innerHTML = svg;
    results.append(chart);
    const rows = [];
    for (const deployment of document_.deployments) {
      for (const point of deployment.points) {
        rows.push([
          [deployment.label],
          [`${point.concurrency}${point.concurrency === deployment.knee_concurrency ? " (knee)" : ""}`, point.concurrency],
          [number(point.tokens_per_s_per_user), point.tokens_per_s_per_user],
          [number(point.tokens_per_s_per_device), point.tokens_per_s_per_device],
          [seconds(point.ttft_s.p50), point.ttft_s.p50],
          [number(point.usd_per_million_output_tokens), point.usd_per_million_output_tokens],
        ]);
      }
    }
    results.append(table(["deployment", "clients", "tokens/s a user", "tokens/s a device", "TTFT p50", "$/M tokens"], rows));
  }

  async function run() {
    const inputs = readInputs();
    writeUrl(inputs);
    const args = [inputs.question];
    for (const [flag, value] of inputs.values) args.push(`--${flag}`, value);
    element("command").textContent = "decodesim " + args.join(" ");
    if (inputs.question === "frontier") args.push("--svg", kFrontierSvg);
    args.push("--json");
    element("results").replaceChildren();
    element("result-json").textContent = "";
    showMessages("error", "");
    showMessages("warnings", "");
    document.body.dataset.state = "running";
    element("run").disabled = true;
    const bar = element("progress");
    bar.hidden = false;
    bar.value = 0;
    element("progress-text").textContent = "starting";
    const onProgress = ({ what, done, total }) => {
      progressReports += 1;
      document.body.dataset.progressReports = String(progressReports);
      bar.value = total > 0 ? done / total : 0;
      element("progress-text").textContent = `${Math.round(done)} of ${Math.round(total)} ${what}`;
    };
    try {
      const result = await ask(args, onProgress, inputs.question === "frontier" ? kFrontierSvg : null);
      showMessages("warnings", result.exitCode === 0 ? result.err : "");
      if (result.exitCode !== 0) {
        showMessages("error", result.err || `decodesim exited with code ${result.exitCode}`);
        document.body.dataset.state = "error";
        return;
      }
      element("result-json").textContent = result.out;
      const answer = JSON.parse(result.out);
      if (inputs.question === "plan") showPlan(answer);
      else if (inputs.question === "serve") showServe(answer);
      else showFrontier(answer, result.file);
      document.body.dataset.state = "ready";
    } catch (error) {
      showMessages("error", `The engine failed: ${error}`);
      document.body.dataset.state = "error";
    } finally {
      element("run").disabled = false;
      bar.hidden = true;
      element("progress-text").textContent = "";
    }
  }

  async function start() {
    try {
      worker = startWorker();
    } catch (error) {
      showMessages("error", `This browser cannot start the engine's worker: ${error}`);
      document.body.dataset.state = "error";
      return;
    }
    const ids = await ask(null);
    buildForm(ids);
    const query = new URLSearchParams(location.search);
    const asked = query.get("question");
    if (asked) setControl(element("question"), asked);
    for (const field of kFields) {
      const control = element(`field-${field.flag}`);
      if (asked) setControl(control, query.get(field.flag) || "");
      else if (field.value) setControl(control, field.value);
    }
    showQuestion();
    element("question").addEventListener("change", showQuestion);
    element("run").addEventListener("click", run);
    element("run").disabled = false;
    document.body.dataset.state = "idle";
    // A shared address holds a question: answer it, so the link reproduces what its sender saw.
    if (asked) await run();
  }

  start().catch((error) => {
    showMessages("error", `The engine failed to start: ${error}`);
    document.body.dataset.state = "error";
  });
})();
