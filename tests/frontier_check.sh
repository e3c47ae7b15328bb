#!/bin/sh
# Renders `decodesim frontier --svg` in headless Chromium and checks the drawing against the same
# run's JSON: one dot a concurrency for each deployment, one ring a deployment with a knee, and each
# knee's label naming the knee's concurrency; a screenshot must be produced.
# Usage: frontier_check.sh PATH_TO_DECODESIM OUTPUT_FOLDER
set -eu
decodesim=$1
out=$2
mkdir -p "$out"
fail() {
    echo "frontier_check: $*" >&2
    exit 1
}
"$decodesim" frontier --hardware h100-sxm,mi300x --model llama-3.1-8b --weights fp8 --concurrency 1:128:x2 \
    --svg "$out/frontier.svg" --json >"$out/frontier.json"

chromium=$(command -v chromium || command -v chromium-browser || true)
test -n "$chromium" || fail "chromium is not installed (./make.sh test installs it)"
run_chromium() {
    timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
        --disable-component-update --disable-sync --user-data-dir="$out/chromium-profile" \
        --virtual-time-budget=3000 "$@" "file://$out/frontier.svg" 2>/dev/null
}
rm -f "$out/frontier.png"
run_chromium --screenshot="$out/frontier.png" --window-size=800,600 >/dev/null
test -s "$out/frontier.png" || fail "no screenshot"
dom=$(run_chromium --dump-dom)

# What the JSON says the chart must hold (python3 reads it; the suite has it for the doc examples).
expected=$(python3 -c '
import json, sys
document = json.load(open(sys.argv[1]))
points = sum(len(d["points"]) for d in document["deployments"])
knees = [(d["label"], d["knee_concurrency"]) for d in document["deployments"] if d["knee_concurrency"] is not None]
print(points, len(knees))
for label, clients in knees:
    print(f"{label} knee: {clients} clients")
' "$out/frontier.json")
points=$(printf '%s\n' "$expected" | head -n 1 | cut -d' ' -f1)
knees=$(printf '%s\n' "$expected" | head -n 1 | cut -d' ' -f2)
drawn_points=$(printf '%s' "$dom" | grep -o 'class="data-point"' | wc -l)
drawn_knees=$(printf '%s' "$dom" | grep -o 'class="operating-point"' | wc -l)
test "$drawn_points" -eq "$points" || fail "the chart has $drawn_points dots, the JSON $points points"
test "$drawn_knees" -eq "$knees" || fail "the chart rings $drawn_knees knees, the JSON has $knees"
printf '%s\n' "$expected" | tail -n +2 | while IFS= read -r label; do
    printf '%s' "$dom" | grep -qF "$label" || fail "the chart lacks the label '$label'"
    echo "frontier_check: labelled: $label"
done
echo "frontier_check: $drawn_points points and $drawn_knees knees drawn, as the JSON has them; ok"
