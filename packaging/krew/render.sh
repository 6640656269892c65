#!/bin/sh
# Fills packaging/krew/probesim.yaml for a release and prints the finished krew manifest.
#
#   packaging/krew/render.sh BASE_URL DIR
#
# BASE_URL is where the release's archives are downloaded from; DIR holds them, named
# probesim-vVERSION-TARGET.tar.gz (TARGET: x86_64-unknown-linux-gnu, aarch64-unknown-linux-gnu,
# x86_64-apple-darwin, aarch64-apple-darwin), each with `probesim`, README.md and LICENSE at its top.
# VERSION is the root package's. A missing archive is an error: krew needs every checksum.
set -eu
if [ $# -ne 2 ]; then
    echo "usage: $0 BASE_URL DIR" >&2
    exit 2
fi
base=$1
dir=$2
here=$(dirname "$0")
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$here/../../Cargo.toml" | head -n 1)
manifest=$(sed -e "s|@VERSION@|$version|g" -e "s|@BASE_URL@|$base|g" "$here/probesim.yaml")
for target in x86_64-unknown-linux-gnu aarch64-unknown-linux-gnu x86_64-apple-darwin aarch64-apple-darwin; do
    archive="$dir/probesim-v$version-$target.tar.gz"
    if [ ! -f "$archive" ]; then
        echo "$0: $archive: no such file" >&2
        exit 2
    fi
    sum=$(sha256sum "$archive" | cut -d ' ' -f 1)
    manifest=$(printf '%s\n' "$manifest" | sed "s|@SHA256_$target@|$sum|")
done
# The template's own comment says it is not to be published; the finished file starts at apiVersion.
printf '%s\n' "$manifest" | sed -n '/^apiVersion:/,$p'
