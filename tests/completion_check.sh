#!/bin/sh
# The shell completion scripts (`decodesim completion bash|zsh`) against the binary they came from.
# Usage: completion_check.sh DECODESIM_BINARY
# bash: the completion function is called as bash would call it, with COMP_WORDS and COMP_CWORD set,
# and its COMPREPLY compared with what the command line accepts. zsh: the script must parse
# (`zsh -n`); skipped when zsh is not installed. Exit 0 when every check passes.
set -eu
binary=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# An empty folder, so file-name completion adds nothing to the ids checked below.
cd "$work"

"$binary" completion bash >completion.bash
"$binary" completion zsh >completion.zsh

if ! command -v bash >/dev/null 2>&1; then
    echo "completion_check: bash not installed; skipped"
    exit 0
fi

# Each check: the expected completions (sorted, space-separated), then the words on the line; the
# last word is the one being completed.
BINARY=$binary bash -c '
    set -u
    . ./completion.bash
    failures=0
    expect() {
        local expected=$1
        shift
        COMP_WORDS=("$BINARY" "$@")
        COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
        COMPREPLY=()
        _decodesim
        local got
        got=$(printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " " | sed "s/ $//")
        if [ "$got" != "$expected" ]; then
            echo "completion_check: decodesim $* <TAB>: expected [$expected], got [$got]"
            failures=$((failures + 1))
        fi
    }
    expect "predict" pre
    expect "profiles" prof
    expect "--hardware" predict --hard
    expect "h100-pcie h100-sxm" predict --hardware h100
    expect "h100-pcie h100-sxm" predict --model llama-3.1-8b --hardware h100
    expect "h100-sxm,mi300x h100-sxm,mi325x h100-sxm,mi350x h100-sxm,mi355x" compare --hardware h100-sxm,mi3
    expect "llama-3.1-8b" predict --hardware h100-sxm --model llama-3.1-8
    expect "q4_k_m q4_k_s" predict --weights q4_k
    expect "cost" compare --by co
    expect "stream" check-claim --per str
    expect "list show validate" profiles ""
    expect "hardware models runtimes" profiles list ""
    expect "bash zsh" completion ""
    expect "--batch" predict --hardware h100-sxm --batch 8 --bat
    expect "" predict --batch ""
    expect "--profiles-dir" --profiles-d
    # Every subcommand the help lists is offered, and nothing else.
    commands=$("$BINARY" --help | sed -n "/^Subcommands:/,\$p" | awk "NR > 1 && /^  [^ ]/ { print \$1 }" | sort | tr "\n" " " | sed "s/ $//")
    expect "$commands" ""
    if [ "$failures" -gt 0 ]; then
        exit 1
    fi
'
echo "completion_check: bash ok"

if command -v zsh >/dev/null 2>&1; then
    zsh -n completion.zsh
    echo "completion_check: zsh -n ok"
else
    echo "completion_check: zsh not installed; zsh script skipped"
fi
