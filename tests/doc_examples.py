#!/usr/bin/env python3
"""Runs every command example in README.md and docs/*.md, so that none of them drifts from the CLI.

Usage: doc_examples.py DECODESIM_BINARY [REPOSITORY_ROOT]

What counts as an example: a line in a fenced block marked ```sh, ```bash or ```console that
starts with `./build/decodesim`, `decodesim ` or `PYTHONPATH=` (optionally after `time `). In a
console block only lines after a `$ ` prompt are commands; the lines after them are output and are
not compared. A line ending in `\\` continues on the next one. Unfenced or plain ``` blocks are
synopses and transcripts that are not run.

Conventions in the docs, as a trailing shell comment on the command's last line:
  # exits N          the example is expected to exit with status N (default 0); text may follow
  # not run          the example is shown but not run (an escape hatch; say why in the prose)
  # output checked   the next fenced block that is not run is the command's standard output, and
                     is compared with it: the words must match, and each number must lie within
                     0.5% or one unit of its last printed digit of the documented one, whichever
                     is wider (so a walkthrough's figures, and the prose built on them, cannot
                     drift; line wrapping is ignored)
In a console block, an output line `exit N` after a command's output states the same.

Each block runs in its own temporary folder that holds links to the repository's top-level
entries, with `build` linking to the binary's folder, so relative inputs (docs/examples/...,
validation/...) resolve and outputs (-o, --svg, > file) land in the temporary folder, never in the
tree. Examples with PYTHONPATH= need the Python module (build/python/decodesim/_decodesim*);
without it they are reported as skipped. Exit status: 0 when every example passed, 1 otherwise,
with each failure's file:line.
"""

import concurrent.futures
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field

RUN_LANGUAGES = {"sh", "bash", "console"}
COMMAND_START = re.compile(r"^(time\s+)?(\./build/decodesim(\s|$)|decodesim\s|PYTHONPATH=)")
TRAILING_COMMENT = re.compile(r"\s#\s*(exits\s+(\d+)\b[^#]*|not run\b[^#]*|(output checked)\b[^#]*)$")
# A number in an output: compared within a tolerance; everything between numbers is compared exactly.
NUMBER = re.compile(r"\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
# In a console transcript, an output line `exit N` after a command states its exit status.
TRANSCRIPT_EXIT = re.compile(r"^exit\s+(\d+)\s*$")
# Flags whose value is a file the command writes; their targets must not be links into the tree.
OUTPUT_FLAGS = {"-o", "--output-file", "--svg", "--requests-csv", "--csv-file", "--html"}
# Per command; the sanitizer build runs about ten times slower and raises it (tests/CMakeLists.txt).
TIMEOUT_S = int(os.environ.get("DOC_EXAMPLES_TIMEOUT_S", "300"))


@dataclass
class Example:
    path: str  # relative to the repository root
    line: int
    command: str
    expected_exit: int = 0
    skip: bool = False
    transcript_open: bool = True  # console blocks: its output lines follow until the next prompt
    check_output: bool = False  # '# output checked': the next unrun fenced block is its standard output
    expected_output: list = None

    def where(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass
class Block:
    examples: list = field(default_factory=list)


def fence_language(line: str):
    """The language of an opening fence (`` ```sh `` gives "sh"), or None when not a fence."""
    stripped = line.strip()
    if not stripped.startswith("```"):
        return None
    return stripped[3:].strip().split(" ")[0].lower()


def extract_examples(root: str, relative_path: str):
    """The blocks of runnable examples in one Markdown file, in order."""
    with open(os.path.join(root, relative_path), encoding="utf-8") as handle:
        lines = handle.read().split("\n")
    blocks = []
    language = None  # None outside a fence
    awaiting_output = None  # an example marked '# output checked' whose output block is still to come
    index = 0
    while index < len(lines):
        line = lines[index]
        fence = fence_language(line)
        if fence is not None:
            if language is None and awaiting_output is not None and fence not in RUN_LANGUAGES:
                # The documented output: the block's lines up to its closing fence.
                end = index + 1
                while end < len(lines) and fence_language(lines[end]) is None:
                    end += 1
                awaiting_output.expected_output = lines[index + 1:end]
                awaiting_output = None
                index = end + 1
                continue
            if language is None:
                language = fence
                blocks.append(Block())
            else:
                language = None
            index += 1
            continue
        if language not in RUN_LANGUAGES:
            index += 1
            continue
        text = line.strip()
        if language == "console":
            exit_line = TRANSCRIPT_EXIT.match(text)
            if exit_line and blocks[-1].examples and blocks[-1].examples[-1].transcript_open:
                blocks[-1].examples[-1].expected_exit = int(exit_line.group(1))
            if not text.startswith("$ "):
                index += 1
                continue
            if blocks[-1].examples:
                blocks[-1].examples[-1].transcript_open = False
            text = text[2:].strip()
        start_line = index + 1
        # Join continuation lines, whether or not the first one is an example.
        while text.endswith("\\") and index + 1 < len(lines):
            index += 1
            text = text[:-1].rstrip() + " " + lines[index].strip()
        index += 1
        if not COMMAND_START.match(text):
            continue
        example = Example(relative_path, start_line, text)
        comment = TRAILING_COMMENT.search(text)
        if comment:
            example.command = text[: comment.start()].rstrip()
            if comment.group(2) is not None:
                example.expected_exit = int(comment.group(2))
            elif comment.group(3) is not None:
                example.check_output = True
                awaiting_output = example
            else:
                example.skip = True
        blocks[-1].examples.append(example)
    return [block for block in blocks if block.examples]


def number_matches(documented: str, actual: str) -> bool:
    """Within 0.5% of the documented number, or one unit of its last printed digit."""
    expected, got = float(documented), float(actual)
    mantissa = re.split(r"[eE]", documented)[0]
    exponent = int(re.split(r"[eE]", documented)[1]) if re.search(r"[eE]", documented) else 0
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    unit = 10.0 ** (exponent - decimals)
    return abs(got - expected) <= max(0.005 * abs(expected), unit * (1.0 + 1e-9))


def output_mismatch(documented: list, actual: str):
    """None when the output matches the documented one (see '# output checked'), else what differs."""
    def pieces(text: str):
        result = []
        for word in text.split():
            position = 0
            for number in NUMBER.finditer(word):
                if number.start() > position:
                    result.append(("text", word[position:number.start()]))
                result.append(("number", number.group()))
                position = number.end()
            if position < len(word):
                result.append(("text", word[position:]))
            result.append(("space", " "))
        return result
    want, got = pieces("\n".join(documented)), pieces(actual)
    for index, (w, g) in enumerate(zip(want, got)):
        same = w[0] == g[0] and (number_matches(w[1], g[1]) if w[0] == "number" else w[1] == g[1])
        if not same:
            context = "".join(piece for _, piece in want[max(0, index - 12):index])
            return f"output differs after '{context.strip()}': documented '{w[1]}', printed '{g[1]}'"
    if len(want) != len(got):
        return f"output has {len(got)} pieces, the documented one {len(want)}"
    return None


def markdown_files(root: str):
    """README.md and docs/*.md, relative to the root."""
    files = ["README.md"]
    docs = os.path.join(root, "docs")
    files += sorted(os.path.join("docs", name) for name in os.listdir(docs) if name.endswith(".md"))
    return [name for name in files if os.path.isfile(os.path.join(root, name))]


def substitute_binary(command: str, binary: str) -> str:
    """The command with the binary the test was given in place of the documented one."""
    quoted = shlex.quote(binary)
    command = re.sub(r"(^|(?<=[\s|;&(]))\./build/decodesim(?=\s|$)", quoted, command)
    return re.sub(r"^(time\s+)?decodesim(?=\s|$)", lambda m: (m.group(1) or "") + quoted, command)


def link_folder(workdir: str, root: str, build_dir: str):
    """Fills workdir with links to the repository's top-level entries (build: the binary's folder)."""
    for name in os.listdir(root):
        if name == ".git" or name.startswith("build"):
            continue
        os.symlink(os.path.join(root, name), os.path.join(workdir, name))
    os.symlink(build_dir, os.path.join(workdir, "build"))


def detach_output(workdir: str, relative: str):
    """Makes a file the command writes land in workdir: every linked folder on its way becomes a
    real folder of links, and a link at the file itself is removed, so nothing in the tree is
    overwritten (a `>` redirect follows links)."""
    if os.path.isabs(relative) or relative.startswith("/dev/"):
        return
    parts = os.path.normpath(relative).split(os.sep)
    if ".." in parts:
        return
    current = workdir
    for part in parts[:-1]:
        current = os.path.join(current, part)
        if os.path.islink(current) and os.path.isdir(current):
            target = os.path.realpath(current)
            os.unlink(current)
            os.mkdir(current)
            for name in os.listdir(target):
                os.symlink(os.path.join(target, name), os.path.join(current, name))
        elif not os.path.exists(current):
            os.makedirs(current)
    final = os.path.join(workdir, *parts)
    if os.path.islink(final):
        os.unlink(final)


def output_paths(command: str):
    """Files the command writes: values of the output flags and targets of `>` redirects."""
    try:
        words = shlex.split(command, posix=True)
    except ValueError:
        return []
    paths = []
    for position, word in enumerate(words):
        following = words[position + 1] if position + 1 < len(words) else None
        if word in OUTPUT_FLAGS and following:
            paths.append(following)
        elif "=" in word and word.split("=", 1)[0] in OUTPUT_FLAGS:
            paths.append(word.split("=", 1)[1])
        elif word in (">", ">>", "1>", "2>") and following:
            paths.append(following)
        elif re.match(r"^[12]?>>?[^>&]", word):
            paths.append(re.sub(r"^[12]?>>?", "", word))
    return paths


def run_block(block: Block, binary: str, root: str, has_python: bool):
    """Runs a block's examples in order in one temporary folder; returns (example, status, detail)."""
    results = []
    with tempfile.TemporaryDirectory(prefix="doc_examples_") as workdir:
        link_folder(workdir, root, os.path.dirname(os.path.abspath(binary)))
        for example in block.examples:
            if example.skip:
                results.append((example, "skipped", "marked '# not run'"))
                continue
            if "PYTHONPATH=" in example.command and not has_python:
                results.append((example, "skipped", "the Python module is not built (build/python)"))
                continue
            for path in output_paths(example.command):
                detach_output(workdir, path)
            command = substitute_binary(example.command, binary)
            try:
                completed = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=workdir,
                                           stdin=subprocess.DEVNULL,
                                           stdout=subprocess.PIPE if example.check_output else subprocess.DEVNULL,
                                           stderr=subprocess.PIPE, timeout=TIMEOUT_S)
            except subprocess.TimeoutExpired:
                results.append((example, "failed", f"still running after {TIMEOUT_S} s"))
                continue
            if example.check_output and example.expected_output is None:
                results.append((example, "failed", "'# output checked' but no output block follows"))
            elif completed.returncode == example.expected_exit and example.check_output and \
                    output_mismatch(example.expected_output, completed.stdout.decode("utf-8", "replace")):
                results.append((example, "failed",
                                output_mismatch(example.expected_output, completed.stdout.decode("utf-8", "replace"))))
            elif completed.returncode == example.expected_exit:
                results.append((example, "passed", ""))
            else:
                stderr = completed.stderr.decode("utf-8", "replace").strip().splitlines()
                last = stderr[-3:] if stderr else ["(nothing on stderr)"]
                detail = f"exit {completed.returncode}, expected {example.expected_exit}: " + " | ".join(last)
                results.append((example, "failed", detail))
    return results


def main(argv):
    if len(argv) < 2:
        print("usage: doc_examples.py DECODESIM_BINARY [REPOSITORY_ROOT]", file=sys.stderr)
        return 2
    binary = os.path.abspath(argv[1])
    root = os.path.abspath(argv[2] if len(argv) > 2 else os.path.join(os.path.dirname(__file__), ".."))
    if not os.access(binary, os.X_OK):
        print(f"doc_examples: {binary}: not an executable", file=sys.stderr)
        return 2
    # The module is built when its compiled part is there, not merely its folder (a configure
    # step creates the folder; `--target decodesim` builds no module).
    package = os.path.join(os.path.dirname(binary), "python", "decodesim")
    has_python = os.path.isdir(package) and any(name.startswith("_decodesim") for name in os.listdir(package))
    blocks = []
    for relative_path in markdown_files(root):
        blocks += extract_examples(root, relative_path)

    # Blocks are independent, so they run side by side; a block's commands run in order.
    workers = max(1, min(8, os.cpu_count() or 1))
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        outcomes = [result for results in pool.map(lambda b: run_block(b, binary, root, has_python), blocks)
                    for result in results]

    failed = [(example, detail) for example, status, detail in outcomes if status == "failed"]
    for example, status, detail in outcomes:
        if status == "skipped":
            print(f"{example.where()}: skipped ({detail}): {example.command}")
    passed = sum(1 for _, status, _ in outcomes if status == "passed")
    skipped = sum(1 for _, status, _ in outcomes if status == "skipped")
    print(f"doc_examples: {passed} passed, {len(failed)} failed, {skipped} skipped")
    for example, detail in failed:
        print(f"{example.where()}: error: {example.command}\n    {detail}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
