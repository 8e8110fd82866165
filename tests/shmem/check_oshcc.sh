#!/bin/sh
# check_oshcc.sh BUILD SOURCE: installs gasket into a scratch prefix and
# builds an OpenSHMEM program with the installed oshcc (and, where it was
# built, oshc++ on the C header), runs it with the installed oshrun -np 2,
# and checks -showme.
set -eu
build=$1; prog=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
unset LD_LIBRARY_PATH
cmake --install "$build" --prefix "$work/prefix" >/dev/null
bin=$work/prefix/bin
"$bin/oshcc" -showme -c x.c | grep -q -- "-I$work/prefix/include -c x.c" ||
  { echo "oshcc -showme: $("$bin/oshcc" -showme -c x.c)"; exit 1; }
"$bin/oshcc" -O2 -o "$work/prog" "$prog"
out=$("$bin/oshrun" -np 2 "$work/prog")
echo "$out"
[ "$(echo "$out" | grep -c 'hello from PE')" -eq 2 ] || { echo "FAIL: two lines expected"; exit 1; }
if [ -x "$bin/oshc++" ]; then
  printf '#include <shmem.h>\nint main() { shmem_init(); shmem_finalize(); return 0; }\n' > "$work/p.cc"
  "$bin/oshc++" -o "$work/pcc" "$work/p.cc"
  "$bin/oshrun" -n 2 "$work/pcc"
fi
echo ok
