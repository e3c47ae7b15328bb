#!/usr/bin/env python3
"""Runs every command example in README.md and docs/*.md, so that none of them drifts from the CLI.

Usage: doc_examples.py DECODESIM_BINARY [REPOSITORY_ROOT]

What counts as an example: a line in a fenced block marked ```sh, ```bash or ```console that
starts with `./build/decodesim`, `decodesim ` or `PYTHONPATH=` (optionally after `time `). In a
console block only lines after a `$ ` prompt are commands; the lines after them are output and are
not compared. A line ending in `\\` continues on the next one. Unfenced or plain ``` blocks are
synopses and transcripts that are not run.

Conventions in the docs, as a trailing shell comment on the command's last line:
  # exits N    the example is expected to exit with status N (default 0); text may follow
  # not run    the example is shown but not run (an escape hatch; say why in the prose)
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
TRAILING_COMMENT = re.compile(r"\s#\s*(exits\s+(\d+)\b[^#]*|not run\b[^#]*)$")
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
    index = 0
    while index < len(lines):
        line = lines[index]
        fence = fence_language(line)
        if fence is not None:
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
            else:
                example.skip = True
        blocks[-1].examples.append(example)
    return [block for block in blocks if block.examples]


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
                                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                           stderr=subprocess.PIPE, timeout=TIMEOUT_S)
            except subprocess.TimeoutExpired:
                results.append((example, "failed", f"still running after {TIMEOUT_S} s"))
                continue
            if completed.returncode == example.expected_exit:
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
