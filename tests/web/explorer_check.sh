#!/bin/sh
# Opens the browser explorer (scripts/build-web.sh) in headless Chromium straight from disk and
# checks that the engine compiled to WebAssembly gives the native binary's numbers: tokens/s per
# stream and in total at two operating points set by URL parameters, and the CLI's own message on
# the page for a bad input.
# Usage: explorer_check.sh WEB_FOLDER PATH_TO_DECODESIM [SCRATCH_FOLDER]
set -eu
web=$(cd "$1" && pwd)
decodesim=$2
scratch=${3:-${TMPDIR:-/tmp}/decodesim-explorer-check}
mkdir -p "$scratch"
rm -rf "$scratch/chromium-profile"  # a fresh browser profile: nothing cached from an earlier build

fail() {
    echo "explorer_check: $*" >&2
    exit 1
}
test -f "$web/index.html" -a -f "$web/decodesim.js" || fail "$web lacks index.html or decodesim.js; run scripts/build-web.sh"
chromium=$(command -v chromium || command -v chromium-browser || true)
test -n "$chromium" || fail "chromium is not installed (scripts/install-deps.sh test installs it)"

# The body's data-state attribute in a dumped DOM: "loading" until the engine has answered.
page_state() {  # $1: DOM
    printf '%s' "$1" | grep -o '<body[^>]*' | sed -n 's/.*data-state="\([^"]*\)".*/\1/p'
}

# The page's DOM once the engine has answered (body data-state leaves "loading").
# The engine's WebAssembly compiles asynchronously, and headless Chromium's virtual-time budget
# does not wait for that compile: on a loaded machine the DOM can be dumped before the engine has
# started (CI saw this once, stop 22). A page still "loading" is therefore dumped again, up to four
# times; one that never leaves "loading" fails the check below as before.
dump_page() {  # $1: query string
    attempt=1
    while :; do
        page=$(timeout 180 "$chromium" --headless=new --no-sandbox --disable-gpu --no-first-run \
            --disable-background-networking --disable-component-update --disable-sync \
            --user-data-dir="$scratch/chromium-profile" --virtual-time-budget=30000 \
            --dump-dom "file://$web/index.html?$1" 2>/dev/null || true)
        if [ "$(page_state "$page")" != "loading" ] || [ "$attempt" -ge 4 ]; then
            break
        fi
        echo "explorer_check: ?$1: the engine had not started when the page was dumped (attempt $attempt); again" >&2
        attempt=$((attempt + 1))
        sleep 2
    done
    printf '%s' "$page"
}

# The data-value attribute of the element with this id.
dom_value() {  # $1: DOM, $2: id
    printf '%s' "$1" | grep -o "id=\"$2\"[^>]*" | sed -n 's/.*data-value="\([^"]*\)".*/\1/p' | head -n 1
}

# A key of the "decode" object in `predict --json` (keys are printed one per line).
decode_value() {  # $1: JSON, $2: key
    printf '%s\n' "$1" | awk -v key="\"$2\":" '
        /"decode": \{/ { inside = 1; next }
        inside && /^  \}/ { inside = 0 }
        inside && $1 == key { sub(/,$/, "", $2); print $2; exit }'
}

# Equal to 1e-9 relative: the same code, so they should agree to the last digit.
same_number() {  # $1, $2
    awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b; exit !(a != "" && d <= 1e-9 * m) }'
}

check_point() {  # $1: query string, rest: the same point as decodesim flags
    query=$1
    shift
    dom=$(dump_page "$query")
    state=$(page_state "$dom")
    if [ "$state" != "ready" ]; then
        error=$(printf '%s' "$dom" | tr '\n' ' ' | sed -n 's/.*<div id="error"[^>]*>\([^<]*\)<.*/\1/p')
        fail "?$query: the page did not finish (state '$state'); page error: ${error:-none}"
    fi
    json=$("$decodesim" predict "$@" --json 2>/dev/null) || fail "decodesim predict $* failed"
    for figure in per_stream total; do
        page=$(dom_value "$dom" "tokens-per-s-$(echo "$figure" | tr _ -)")
        native=$(decode_value "$json" "tokens_per_s_$figure")
        same_number "$page" "$native" ||
            fail "?$query: tokens/s $figure on the page is '$page', decodesim predict $* --json says '$native'"
        echo "explorer_check: ?$query: tokens/s $figure $page (native $native)"
    done
}

check_point "hardware=h100-sxm&model=llama-3.1-8b" --hardware h100-sxm --model llama-3.1-8b
check_point "hardware=h100-sxm&model=llama-3.1-8b&weights=fp8&batch=32&context=8192" \
    --hardware h100-sxm --model llama-3.1-8b --weights fp8 --batch 32 --context 8192

# The selects list whole ids (a table the page might read shortens long ones with "...").
shortened=$(printf '%s' "$dom" | grep -o '<option value="[^"]*\.\.\."' | head -n 1 || true)
test -z "$shortened" || fail "a select lists a shortened id: $shortened"
printf '%s' "$dom" | grep -q '<option value="rtx-pro-6000' || fail "the hardware select lacks rtx-pro-6000*"

# A bad model id: the page shows the CLI's own error message.
dom=$(dump_page "hardware=h100-sxm&model=llama-9")
expected=$("$decodesim" predict --hardware h100-sxm --model llama-9 --batch 1 --context 1024 --json 2>&1 >/dev/null | head -n 1 || true)
page_error=$(printf '%s' "$dom" | tr '\n' ' ' | sed -n 's/.*<div id="error"[^>]*>\([^<]*\)<.*/\1/p')
test -n "$expected" || fail "decodesim predict --model llama-9 printed no error"
case "$page_error" in
    *"$(printf '%s' "$expected" | sed 's/&/\&amp;/g; s/</\&lt;/g; s/>/\&gt;/g' | cut -c1-60)"*) ;;
    *) fail "?model=llama-9: the page shows '$page_error', expected the CLI's '$expected'" ;;
esac
echo "explorer_check: ?model=llama-9: the page shows the CLI's error: $expected"
echo "explorer_check: ok"
