#!/bin/sh
# Fills fuzz/corpus/<target>/ with the seed corpus: the scenarios, the invalid inputs and the
# test fixtures for `scenario`; the example manifests and the invalid manifests and workloads for
# `manifest`; every behaviour script written in those files and the language reference's
# examples for `script`; the scenarios, fixtures and example manifests for `analyze` and
# `library`. Run from the repository root; safe to run again.
set -eu
cd "$(dirname "$0")/.."
corpus=fuzz/corpus
mkdir -p "$corpus/scenario" "$corpus/manifest" "$corpus/script" "$corpus/analyze" "$corpus/library"
copy() { # copy <target> <dir>...
    target=$1
    shift
    find "$@" -type f \( -name '*.yaml' -o -name '*.yml' -o -name '*.json' \) | sort |
        while read -r f; do
            cp "$f" "$corpus/$target/$(printf '%s' "$f" | tr '/' '_')"
        done
}
copy scenario scenarios tests/invalid tests/cmd/fixtures
copy manifest examples/manifests tests/invalid/manifest tests/invalid/workload
copy analyze scenarios tests/cmd/fixtures examples/manifests
copy library scenarios tests/cmd/fixtures examples/manifests
{
    grep -rhE '^ *(liveness|readiness|startup|exit|sigterm): ' scenarios tests/invalid tests/cmd/fixtures |
        sed -E 's/^ *[a-z]+: *//; s/ +#.*$//; s/^"(.*)"$/\1/' | grep -vE '^[{|>]' || true
    grep -E '^\| `' docs/script-language.md | sed -E 's/^\| `([^`]*)`.*/\1/'
} | sort -u | while IFS= read -r s; do
    [ -n "$s" ] || continue
    printf '%s' "$s" >"$corpus/script/$(printf '%s' "$s" | cksum | cut -d' ' -f1)"
done
echo "seeds: $(ls "$corpus/scenario" | wc -l) scenario, $(ls "$corpus/manifest" | wc -l) manifest, $(ls "$corpus/script" | wc -l) script, $(ls "$corpus/analyze" | wc -l) analyze, $(ls "$corpus/library" | wc -l) library"
