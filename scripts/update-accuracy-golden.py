#!/usr/bin/env python3
"""Rewrite tests/data/golden/accuracy.csv from `decodesim accuracy --json`: every row's prediction
under the shipped runtime profiles and fit. The golden test (tests/test_golden.cpp) compares the
engine against it, so a refit or a data change is one command and one data diff, not edits to
test files. Run it after a change that is meant to move predictions, and say why in the commit.

Usage: scripts/update-accuracy-golden.py BUILD/decodesim
"""
import csv
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "data" / "golden" / "accuracy.csv"


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    document = json.loads(subprocess.run([sys.argv[1], "accuracy", "--json", "--worst", "0"], check=True,
                                         capture_output=True, text=True, cwd=ROOT).stdout)
    rows = [row for row in document["rows"] if "predicted" in row]
    with open(GOLDEN, "w", newline="") as out:
        out.write("# decodesim accuracy --json: each evaluated row's prediction; written by "
                  "scripts/update-accuracy-golden.py\n")
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["id", "predicted"])
        for row in rows:
            writer.writerow([row["id"], repr(row["predicted"])])
    print(f"{GOLDEN}: {len(rows)} rows written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
