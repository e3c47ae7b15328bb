"""The planner page (sim/web/plan.html) in headless Chromium against the native command line.

Usage: python3 planner_check.py WEB_FOLDER PATH_TO_DECODESIM [SCRATCH_FOLDER]

Drives Chromium over the DevTools protocol on a pipe (--remote-debugging-pipe: JSON messages ended
by NUL on file descriptors 3 and 4; no library needed), because the page answers in a worker and a
DOM dump would not wait for it. For each question (docs/guide.md's capacity plan, a serve run, a
frontier) it opens the page at a URL that holds every input, waits until the page is ready, and
checks that the JSON the page computed in WebAssembly is the native `decodesim ... --json` document
(numbers to 1e-9 relative: the same code, under another libm). It also checks that the page
reported progress while the worker ran and answered the test meanwhile, that its address after the
run reproduces the answer, and that a bad input shows the CLI's own error.
"""

import json
import os
import shlex
import subprocess
import sys
import time
import urllib.parse

WEB, DECODESIM = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
SCRATCH = os.path.abspath(sys.argv[3] if len(sys.argv) > 3 else os.path.join(os.environ.get("TMPDIR", "/tmp"),
                                                                                "decodesim-planner-check"))
# Generous: a plan over three devices runs a few seconds natively and slower in WebAssembly on a
# loaded machine. It bounds a hang, not a speed: nothing is asserted about time.
READY_WITHIN_S = 300


def fail(message):
    sys.exit(f"planner_check: {message}")


class Browser:
    """Headless Chromium and one page, spoken to over the DevTools pipe."""

    def __init__(self):
        chromium = next((path for path in ("/usr/bin/chromium", "/usr/bin/chromium-browser") if os.path.exists(path)), None)
        if chromium is None:
            fail("chromium is not installed (scripts/install-deps.sh test installs it)")
        to_browser_read, self.to_browser = os.pipe()
        self.from_browser, from_browser_write = os.pipe()
        profile = os.path.join(SCRATCH, "chromium-profile")
        subprocess.run(["rm", "-rf", profile], check=True)
        flags = ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", f"--user-data-dir={profile}", "--remote-debugging-pipe",
                 "about:blank"]
        # The pipe must be the browser's descriptors 3 (commands in) and 4 (replies out).
        command = f"exec {shlex.quote(chromium)} {' '.join(map(shlex.quote, flags))} 3<&{to_browser_read} 4>&{from_browser_write}"
        self.process = subprocess.Popen(["sh", "-c", command], pass_fds=(to_browser_read, from_browser_write),
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser_read)
        os.close(from_browser_write)
        self.buffer = b""
        self.next_id = 0
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]

    def call(self, method, params=None, session=None):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        while True:
            while b"\0" not in self.buffer:
                chunk = os.read(self.from_browser, 1 << 16)
                if not chunk:
                    fail(f"the browser closed its pipe during {method}")
                self.buffer += chunk
            raw, self.buffer = self.buffer.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    fail(f"{method}: {reply['error']}")
                return reply["result"]

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True}, self.session)
        if "exceptionDetails" in result:
            fail(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def open(self, url):
        self.call("Page.navigate", {"url": url}, self.session)

    def wait_until_answered(self):
        """The body's final state, and the states seen while waiting (each seen means the page answered)."""
        seen = []
        deadline = time.monotonic() + READY_WITHIN_S
        while time.monotonic() < deadline:
            state = self.evaluate("document.body ? document.body.dataset.state : 'loading'")
            if not seen or seen[-1] != state:
                seen.append(state)
            if state in ("ready", "error"):
                return state, seen
            time.sleep(0.05)
        fail(f"the page did not answer within {READY_WITHIN_S} s (states seen: {seen})")

    def close(self):
        self.process.kill()
        self.process.wait()


def same(page, native, path="$"):
    """Raises on the first difference; numbers to 1e-9 relative."""
    if isinstance(native, dict):
        if not isinstance(page, dict) or set(page) != set(native):
            fail(f"{path}: keys differ: page {sorted(page) if isinstance(page, dict) else page}, native {sorted(native)}")
        for key in native:
            same(page[key], native[key], f"{path}.{key}")
    elif isinstance(native, list):
        if not isinstance(page, list) or len(page) != len(native):
            fail(f"{path}: lists differ in length")
        for index, (a, b) in enumerate(zip(page, native)):
            same(a, b, f"{path}[{index}]")
    elif isinstance(native, (int, float)) and not isinstance(native, bool):
        if not isinstance(page, (int, float)) or abs(page - native) > 1e-9 * abs(native):
            fail(f"{path}: page {page}, native {native}")
    elif page != native:
        fail(f"{path}: page {page!r}, native {native!r}")


def native_json(question, flags):
    args = [DECODESIM, question]
    for flag, value in flags:
        args += [f"--{flag}", value]
    result = subprocess.run(args + ["--json"], capture_output=True, text=True, check=False)
    if result.returncode != 0:
        fail(f"{' '.join(args)} failed: {result.stderr}")
    return json.loads(result.stdout)


def page_url(question, flags):
    return f"file://{WEB}/plan.html?" + urllib.parse.urlencode([("question", question)] + flags)


def check_question(browser, question, flags, expect_progress):
    browser.open(page_url(question, flags))
    state, seen = browser.wait_until_answered()
    if state != "ready":
        error = browser.evaluate("document.getElementById('error').textContent")
        fail(f"{question}: the page ended in '{state}': {error}")
    page = json.loads(browser.evaluate("document.getElementById('result-json').textContent"))
    same(page, native_json(question, flags))
    reports = int(browser.evaluate("document.body.dataset.progressReports || '0'"))
    if expect_progress and ("running" not in seen or reports == 0):
        fail(f"{question}: no progress shown while the worker ran (states {seen}, {reports} reports)")
    shown = browser.evaluate("document.getElementById('command').textContent")
    print(f"planner_check: {question}: the page's JSON is the native one ({shown}; states {seen}, "
          f"{reports} progress reports)")
    return page


def main():
    os.makedirs(SCRATCH, exist_ok=True)
    for name in ("plan.html", "planner.js", "decodesim.js"):
        if not os.path.exists(os.path.join(WEB, name)):
            fail(f"{WEB} lacks {name}; run scripts/build-web.sh")
    browser = Browser()
    try:
        browser.call("Page.enable", session=browser.session)
        # docs/guide.md's capacity question, as its walkthrough runs it.
        guide = [("model", "llama-3.1-70b"), ("hardware", "h100-sxm,h200-sxm,mi300x"), ("formats", "bf16,fp8"),
                 ("users", "200"), ("think-time", "0"), ("prompt", "32000"), ("output", "1000"),
                 ("ttft-p99", "10"), ("min-tokens-per-s-per-user", "20")]
        planned = check_question(browser, "plan", guide, expect_progress=True)
        best = browser.evaluate("document.getElementById('best').textContent")
        expected_best = next(option for option in planned["options"] if option["best"])
        if best != f"best: {expected_best['devices']} x {expected_best['hardware']}":
            fail(f"plan: the page says '{best}'")
        # The address the page wrote after the run reproduces the same answer.
        written = browser.evaluate("location.href")
        browser.open(written)
        state, _ = browser.wait_until_answered()
        again = json.loads(browser.evaluate("document.getElementById('result-json').textContent"))
        if state != "ready":
            fail(f"plan: the written address {written} ended in '{state}'")
        same(again, planned)
        print(f"planner_check: plan: its address reproduces it ({best})")

        check_question(browser, "serve", [("hardware", "h100-sxm"), ("model", "llama-3.1-8b"), ("rate", "4"),
                                          ("prompt", "1000"), ("output", "200"), ("requests", "500")],
                       expect_progress=False)
        check_question(browser, "frontier", [("model", "llama-3.1-8b"), ("hardware", "h100-sxm,mi300x"),
                                             ("weights", "fp8"), ("concurrency", "1:64:x4")], expect_progress=False)
        dots = browser.evaluate("document.querySelectorAll('#frontier-chart circle.data-point').length")
        if dots != 2 * 4:
            fail(f"frontier: the chart has {dots} dots, expected 8 (two devices, concurrencies 1, 4, 16, 64)")

        # A bad model id: the CLI's own message on the page.
        browser.open(page_url("plan", [("model", "llama-9"), ("hardware", "h100-sxm"), ("rate", "1")]))
        state, _ = browser.wait_until_answered()
        shown = browser.evaluate("document.getElementById('error').textContent")
        native = subprocess.run([DECODESIM, "plan", "--model", "llama-9", "--hardware", "h100-sxm", "--rate", "1"],
                                capture_output=True, text=True, check=False).stderr.splitlines()[0]
        if state != "error" or native.replace("decodesim: ", "") not in shown:
            fail(f"a bad model: the page shows '{shown}' (state {state}), the CLI says '{native}'")
        print(f"planner_check: a bad model shows the CLI's message: {native}")
    finally:
        browser.close()
    print("planner_check: ok")


if __name__ == "__main__":
    main()
