#!/usr/bin/env bash
# The CPU time (user + system) of every test binary of the workspace, each run once from its
# package's directory as `cargo test` runs it: docs/contributing.md#the-contributor-loop.
# CPU time, not wall time, since the machine may be shared. Usage: benches/suite-cpu.sh [OUT]
set -u
cd "$(dirname "$0")/.."
out=${1:-/dev/stdout}
list=$(mktemp)
times=$(mktemp)
cargo test --workspace --no-run --message-format=json 2>/dev/null | python3 -c '
import json, os, sys
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        print(m["executable"], os.path.dirname(m["manifest_path"]), m["target"]["name"], m["target"]["kind"][0])
' > "$list"
{
    total=0
    while read -r exe dir name kind; do
        (cd "$dir" && /usr/bin/time -f "%U %S" -o "$times" "$exe" >/dev/null 2>&1)
        rc=$?
        read -r user sys < "$times"
        echo "$name ($kind) user=$user sys=$sys exit=$rc"
        total=$(python3 -c "print(round($total + $user + $sys, 2))")
    done < "$list"
    echo "total $total s"
} > "$out"
rm -f "$list" "$times"
