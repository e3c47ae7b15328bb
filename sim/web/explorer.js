// The explorer page: reads the inputs (and the URL), runs the decodesim CLI compiled to
// WebAssembly (decodesim.js, sim/web/explorer_bindings.cpp) and shows what it printed.
// No physics here: every figure is a field of `predict --json` or `why --json`, and the chart is
// the SVG `curve --svg` draws. This file only formats and lays out.
"use strict";

(function () {
  const kInputs = ["hardware", "model", "weights", "kv", "batch", "context"];
  const kPreferred = { hardware: "h100-sxm", model: "llama-3.1-8b", batch: "1", context: "1024" };
  const kCurveFile = "/tmp/explorer-curve.svg";
  let engine = null;
  let pending = null;

  const element = (id) => document.getElementById(id);

  function cli(args) {
    const result = engine.run(args);
    return { exitCode: result.exit_code, out: result.out, err: result.err };
  }

  // The names a flag accepts, as the CLI's own usage error lists them ("expected one of a b c").
  function namesTheFlagAccepts(flag, hardware, model) {
    const result = cli(["predict", "--hardware", hardware, "--model", model, flag, "?"]);
    const match = /expected one of ([^\n]+)/.exec(result.err);
    return match ? match[1].trim().split(/\s+/) : [];
  }

  function fillSelect(select, values, firstLabel) {
    select.replaceChildren();
    if (firstLabel !== undefined) select.append(new Option(firstLabel, ""));
    for (const value of values) select.append(new Option(value, value));
  }

  // Puts `value` in the control, adding it to a select that lacks it so the CLI can say why it is wrong.
  function setControl(name, value) {
    const control = element(name);
    if (control.tagName === "SELECT" && ![...control.options].some((option) => option.value === value)) {
      control.append(new Option(value, value));
    }
    control.value = value;
  }

  function pointArgs(values) {
    const args = ["--hardware", values.hardware, "--model", values.model];
    if (values.weights) args.push("--weights", values.weights);
    if (values.kv) args.push("--kv", values.kv);
    args.push("--batch", values.batch, "--context", values.context);
    return args;
  }

  function readInputs() {
    const values = {};
    for (const name of kInputs) values[name] = element(name).value.trim();
    return values;
  }

  function writeUrl(values) {
    const query = new URLSearchParams();
    for (const name of kInputs) if (values[name]) query.set(name, values[name]);
    try {
      history.replaceState(null, "", "?" + query.toString());
    } catch (error) {
      // Some browsers refuse to rewrite file:// addresses; the page still works.
    }
  }

  function showFigure(id, value, text) {
    const target = element(id);
    target.dataset.value = value === null ? "" : String(value);
    target.textContent = text;
  }

  const formatRate = (value) => (value >= 100 ? value.toFixed(1) : value.toPrecision(4));
  function formatBytes(bytes) {
    const units = ["B", "kB", "MB", "GB", "TB", "PB"];
    let scaled = bytes;
    let unit = 0;
    while (Math.abs(scaled) >= 1000 && unit < units.length - 1) {
      scaled /= 1000;
      unit += 1;
    }
    return `${scaled.toPrecision(4).replace(/\.?0+$/, "")} ${units[unit]}`;
  }
  function formatSeconds(seconds) {
    return seconds >= 1 ? `${seconds.toPrecision(4)} s` : `${(seconds * 1000).toPrecision(4)} ms`;
  }

  function clearResults() {
    for (const id of ["tokens-per-s-per-stream", "tokens-per-s-total", "bound", "ttft"]) showFigure(id, null, "–");
    element("verdict").textContent = "";
    element("verdict").dataset.value = "";
    element("curve").replaceChildren();
    element("memory-text").textContent = "";
    for (const part of ["weights", "kv", "reserve"]) element(`memory-${part}`).style.width = "0";
  }

  function showMessages(id, text) {
    const box = element(id);
    box.textContent = text.trim();
    box.hidden = text.trim() === "";
  }

  function showMemory(memory) {
    const share = (bytes) => `${Math.min(100, (100 * bytes) / memory.capacity_bytes)}%`;
    element("memory-weights").style.width = share(memory.weights_bytes);
    element("memory-kv").style.width = share(Math.max(0, Math.min(memory.kv_bytes, memory.usable_bytes - memory.weights_bytes)));
    element("memory-reserve").style.width = share(memory.reserve_bytes);
    element("memory-bar").classList.toggle("overflow", !memory.fits);
    const free = memory.usable_bytes - memory.weights_bytes - memory.kv_bytes;
    element("memory-text").textContent =
      `weights ${formatBytes(memory.weights_bytes)} + KV cache ${formatBytes(memory.kv_bytes)} of ` +
      `${formatBytes(memory.usable_bytes)} usable (${formatBytes(memory.capacity_bytes)} on the device, ` +
      `${formatBytes(memory.reserve_bytes)} reserved); ` +
      (memory.fits ? `${formatBytes(free)} free; ` : `does not fit, ${formatBytes(-free)} short; `) +
      `at most ${memory.max_batch} streams fit at this context.`;
  }

  function update() {
    pending = null;
    const values = readInputs();
    writeUrl(values);
    const point = pointArgs(values);
    element("command").textContent = "decodesim predict " + point.join(" ");

    const predict = cli(["predict", ...point, "--json"]);
    if (predict.exitCode !== 0) {
      clearResults();
      showMessages("warnings", "");
      showMessages("error", predict.err || `decodesim exited with code ${predict.exitCode}`);
      document.body.dataset.state = "error";
      return;
    }
    showMessages("error", "");
    showMessages("warnings", predict.err);
    const prediction = JSON.parse(predict.out);
    const decode = prediction.decode;
    // A point that does not fit leads with that: its rates are what a device with the memory would do.
    const rate = (value) => (prediction.memory.fits ? formatRate(value) : `does not fit (${formatRate(value)} if it did)`);
    showFigure("tokens-per-s-per-stream", decode.tokens_per_s_per_stream, rate(decode.tokens_per_s_per_stream));
    showFigure("tokens-per-s-total", decode.tokens_per_s_total, rate(decode.tokens_per_s_total));
    showFigure("bound", decode.bound, `${decode.bound}-bound`);
    showFigure("ttft", prediction.ttft_s, formatSeconds(prediction.ttft_s));
    showMemory(prediction.memory);

    const why = cli(["why", ...point, "--json"]);
    const verdict = element("verdict");
    verdict.textContent = why.exitCode === 0 ? JSON.parse(why.out).verdict : why.err.trim();
    verdict.dataset.value = why.exitCode === 0 ? "ok" : "error";

    const curve = cli(["curve", ...point, "--csv", "--svg", kCurveFile]);
    const svg = curve.exitCode === 0 ? engine.read_file(kCurveFile) : null;
    if (svg) {
      element("curve").innerHTML = svg;
    } else {
      element("curve").textContent = curve.err.trim() || "no curve";
    }
    document.body.dataset.state = "ready";
  }

  function scheduleUpdate() {
    document.body.dataset.state = "loading";
    if (pending !== null) clearTimeout(pending);
    pending = setTimeout(update, 120);
  }

  function start(module) {
    engine = module;
    // The catalog's ids (the ones `profiles list` prints, unshortened).
    const hardware = engine.profile_ids("hardware");
    const models = engine.profile_ids("models");
    fillSelect(element("hardware"), hardware);
    fillSelect(element("model"), models);
    const query = new URLSearchParams(location.search);
    const chosen = (name, list) => query.get(name) || (list.includes(kPreferred[name]) ? kPreferred[name] : list[0] || "");
    const probeHardware = hardware.includes(kPreferred.hardware) ? kPreferred.hardware : hardware[0];
    const probeModel = models.includes(kPreferred.model) ? kPreferred.model : models[0];
    fillSelect(element("weights"), namesTheFlagAccepts("--weights", probeHardware, probeModel), "default");
    fillSelect(element("kv"), namesTheFlagAccepts("--kv", probeHardware, probeModel), "default");
    setControl("hardware", chosen("hardware", hardware));
    setControl("model", chosen("model", models));
    setControl("weights", query.get("weights") || "");
    setControl("kv", query.get("kv") || "");
    setControl("batch", query.get("batch") || kPreferred.batch);
    setControl("context", query.get("context") || kPreferred.context);
    for (const name of kInputs) {
      element(name).addEventListener("input", scheduleUpdate);
      element(name).addEventListener("change", scheduleUpdate);
    }
    update();
  }

  createDecodesim()
    .then(start)
    .catch((error) => {
      showMessages("error", `The engine failed to start: ${error}`);
      document.body.dataset.state = "error";
    });
})();
