#!/usr/bin/env python3
"""Rewrite the shipped band table in sim/engine/residual_band.cpp from `decodesim accuracy
--held-out --json` (its "band" section), so the table is regenerated, never retyped, whenever the
data or the model changes (docs/model.md, "Uncertainty band").

Usage: scripts/update-residual-bands.py BUILD/decodesim
"""
import json
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
TABLE = ROOT / "sim" / "engine" / "residual_band.cpp"
FAMILIES = {"hbm": "hbm", "gddr": "gddr", "unified": "unified", "all": "hbm"}


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    document = json.loads(subprocess.run([sys.argv[1], "accuracy", "--held-out", "--worst", "0", "--json"],
                                         check=True, capture_output=True, text=True, cwd=ROOT).stdout)
    rows = sum(1 for _ in open(ROOT / "validation" / "measurements.csv", newline="")) - 1
    lines = []
    for band in document["band"]["bands"]:
        pooled = band["memory"] == "all"
        lines.append("        {{{}, {{MemoryFamily::{}, \"{}\", PassKind::{}, {:.2f}, {:.2f}, {}}}}},".format(
            "true" if pooled else "false", FAMILIES[band["memory"]], "" if pooled else band["runtime"], band["pass"],
            band["low"], band["high"], band["rows"]))
    text = TABLE.read_text()
    pattern = re.compile(r"(// `decodesim accuracy --held-out`[^\n]*\n(?://[^\n]*update-residual-bands[^\n]*\n)?)(const std::vector<ShippedBand>& shipped_table\(\) \{\n    static const std::vector<ShippedBand> kShipped\{\n)(.*?)(\n\};)",
                         re.S)
    header = f"// `decodesim accuracy --held-out`, section \"Band\", on validation/measurements.csv ({rows} rows);\n" \
             f"// written by scripts/update-residual-bands.py.\n"
    new, count = pattern.subn(lambda m: header + m.group(2) + "\n".join(lines) + m.group(4), text)
    if count != 1:
        print(f"{TABLE}: the kShipped table was not found", file=sys.stderr)
        return 1
    TABLE.write_text(new)
    print(f"{TABLE}: {len(lines)} bands written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
