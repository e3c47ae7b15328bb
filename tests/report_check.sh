#!/bin/sh
# Renders `decodesim report` in headless Chromium: the page must load without script errors, every
# chart must have a non-zero size, and a screenshot must be produced.
# Usage: report_check.sh PATH_TO_DECODESIM OUTPUT_FOLDER
set -eu
decodesim=$1
out=$2
mkdir -p "$out"
"$decodesim" report --hardware h100-sxm --model llama-3.1-8b --batch 16 --context 4096 -o "$out/report.html"

chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ]; then
    echo "report_check: chromium is not installed (./make.sh test installs it)" >&2
    exit 1
fi
run_chromium() {
    timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
        --disable-component-update --disable-sync --disable-quic --user-data-dir="$out/chromium-profile" \
        --virtual-time-budget=3000 "$@" "file://$out/report.html" 2>/dev/null
}

rm -f "$out/report.png"
run_chromium --screenshot="$out/report.png" --window-size=900,2600 >/dev/null
test -s "$out/report.png" || { echo "report_check: no screenshot" >&2; exit 1; }

dom=$(run_chromium --dump-dom)
body=$(printf '%s' "$dom" | grep -o '<body[^>]*>')
echo "report_check: $body"
case "$body" in
    *data-errors*) echo "report_check: the page raised a script error" >&2; exit 1 ;;
esac
case "$body" in
    *'data-chart-check="ok"'*) ;;
    *) echo "report_check: a chart has zero size or the check did not run" >&2; exit 1 ;;
esac
charts=$(printf '%s' "$body" | grep -o '[0-9]*x[0-9]*' | wc -l)
if [ "$charts" -ne 4 ]; then
    echo "report_check: expected 4 charts, found $charts" >&2
    exit 1
fi
echo "report_check: ok ($charts charts, screenshot $(wc -c < "$out/report.png") bytes)"
