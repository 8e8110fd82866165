#!/bin/sh
# check_oshcc.sh BUILD SOURCE: installs gasket into a scratch prefix and
# builds an OpenSHMEM program with the installed oshcc (and, where it was
# built, oshc++ on the C header), runs it with the installed oshrun -np 2,
# and checks -showme; and that OSHCC naming the wrapper itself, as build
# systems set it (shmem4py), does not make the wrapper run itself.
set -eu
build=$1; prog=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
unset LD_LIBRARY_PATH
cmake --install "$build" --prefix "$work/prefix" >/dev/null
bin=$work/prefix/bin
"$bin/oshcc" -showme -c x.c | grep -q -- "-I$work/prefix/include -c x.c" ||
  { echo "oshcc -showme: $("$bin/oshcc" -showme -c x.c)"; exit 1; }
"$bin/oshcc" -O2 -o "$work/prog" "$prog"
OSHCC="$bin/oshcc -O2" timeout 60 "$bin/oshcc" -c -o "$work/again.o" "$prog" ||
  { echo "FAIL: oshcc with OSHCC=oshcc did not compile within 60 s"; exit 1; }
out=$("$bin/oshrun" -np 2 "$work/prog")
echo "$out"
[ "$(echo "$out" | grep -c 'hello from PE')" -eq 2 ] || { echo "FAIL: two lines expected"; exit 1; }
if [ -x "$bin/oshc++" ]; then
  printf '#include <shmem.h>\nint main() { shmem_init(); shmem_finalize(); return 0; }\n' > "$work/p.cc"
  "$bin/oshc++" -o "$work/pcc" "$work/p.cc"
  "$bin/oshrun" -n 2 "$work/pcc"
fi
echo ok
