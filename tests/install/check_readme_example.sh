#!/usr/bin/env bash
# The complete program in README.md compiles warning-free against the build
# tree and runs on 4 PEs, each PE hearing from its left neighbour.
set -euo pipefail
src=$1; build=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
awk '/^```c$/{f=1;next} /^```$/{f=0} f' "$src/README.md" > "$work/example.c"
[ -s "$work/example.c" ] || { echo "no C example in README.md"; exit 1; }
cc -std=c11 -Wall -Wextra -Werror -I"$src/include" -I"$build/include" "$work/example.c" -o "$work/example" \
   -L"$build/src" -lgasket -Wl,-rpath,"$build/src"
out=$("$build/tools/gasket-run" -n 4 --timeout 60 "$work/example")
for pe in 0 1 2 3; do
  left=$(( (pe + 3) % 4 ))
  grep -qx "PE $pe got $((100 + left)) from PE $left" <<<"$out" || { echo "$out"; echo "PE $pe wrong"; exit 1; }
done
echo "ok: the README example runs"
