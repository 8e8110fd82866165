#!/usr/bin/env bash
# Installs gasket into a scratch prefix and builds README.md's complete
# program against it the ways README.md's "Building your own program" shows,
# taken from README.md itself (its /opt/gasket replaced by the prefix), and
# runs each program as a user would: no LD_LIBRARY_PATH, no rpath flags of
# our own, so a library the program cannot find fails the test.
#   1. the pkg-config recipe, as printed (it runs the program with gasket-run);
#   2. the CMake snippet with find_package(gasket), run from its build tree,
#      and installed with CMAKE_INSTALL_RPATH_USE_LINK_PATH;
#   3. the installation moved: the program needs LD_LIBRARY_PATH, as
#      README.md says.
set -euo pipefail
build=$1; src=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
unset LD_LIBRARY_PATH PKG_CONFIG_PATH
cmake --install "$build" --prefix "$prefix" >/dev/null
test -x "$prefix/bin/gasket-info"
test -f "$prefix/include/gasket.h"

readme=$src/README.md
# The first ```LANG block after the line that starts with $2.
block() {
  awk -v lang="$1" -v after="$2" 'index($0, after) == 1 { want = 1 }
       want && $0 == "```" lang { inside = 1; next }
       inside && $0 == "```" { exit }
       inside' "$readme"
}
awk '/^```c$/{f=1;next} /^```$/{f=0} f' "$readme" > "$work/prog.c"
[ -s "$work/prog.c" ] || { echo "no C program in README.md"; exit 1; }

# Each PE prints "PE r got 100+left from PE left".
check_output() { # what npes output
  local what=$1 npes=$2 out=$3 pe left
  for ((pe = 0; pe < npes; pe++)); do
    left=$(( (pe + npes - 1) % npes ))
    grep -qx "PE $pe got $((100 + left)) from PE $left" <<<"$out" ||
      { echo "$out"; echo "$what: PE $pe's line is missing"; exit 1; }
  done
}

# 1. pkg-config
recipe=$(block sh "With pkg-config")
[ -n "$recipe" ] || { echo "no pkg-config recipe in README.md"; exit 1; }
if [ ! -f "$prefix/lib/pkgconfig/gasket.pc" ]; then
  echo "this system installs libraries elsewhere than lib/: README.md's recipe does not apply"
  exit 77
fi
recipe=${recipe//\/opt\/gasket/$prefix}
npes=$(sed -n 's/.*gasket-run -n \([0-9]*\) .*/\1/p' <<<"$recipe")
out=$(cd "$work" && bash -euo pipefail -c "$recipe" 2>&1) ||
  { echo "$out"; echo "README.md's pkg-config recipe failed:"; echo "$recipe"; exit 1; }
check_output "the pkg-config recipe" "$npes" "$out"
# The installed library, not one found elsewhere.
libs=$(ldd "$work/prog") # whole, before grep: grep -q would cut ldd short (SIGPIPE)
grep -q "libgasket.so.0 => $prefix/" <<<"$libs" || { echo "$libs"; exit 1; }

# 2. CMake
mkdir "$work/consumer"
cp "$work/prog.c" "$work/consumer/"
{
  printf 'cmake_minimum_required(VERSION 3.20)\nproject(consumer C)\n'
  block cmake "With CMake"
} > "$work/consumer/CMakeLists.txt"
grep -q find_package "$work/consumer/CMakeLists.txt" || { echo "no CMake snippet in README.md"; exit 1; }
printf 'install(TARGETS prog)\n' >> "$work/consumer/CMakeLists.txt"
cmake -S "$work/consumer" -B "$work/consumer/build" -DCMAKE_PREFIX_PATH="$prefix" \
      -DCMAKE_INSTALL_RPATH_USE_LINK_PATH=ON -DCMAKE_INSTALL_PREFIX="$work/consumer/prefix" \
      >/dev/null
cmake --build "$work/consumer/build" >/dev/null
out=$("$prefix/bin/gasket-run" -n 2 "$work/consumer/build/prog")
check_output "find_package, build tree" 2 "$out"
cmake --install "$work/consumer/build" >/dev/null
out=$("$prefix/bin/gasket-run" -n 2 "$work/consumer/prefix/bin/prog")
check_output "find_package, installed" 2 "$out"

# 3. A moved installation: found through LD_LIBRARY_PATH only.
mv "$prefix" "$work/moved"
if "$work/prog" >/dev/null 2>&1; then
  echo "the program ran with its gasket moved away: which libgasket did it find?"; exit 1
fi
out=$(LD_LIBRARY_PATH=$work/moved/lib "$work/moved/bin/gasket-run" -n 2 "$work/prog")
check_output "moved, with LD_LIBRARY_PATH" 2 "$out"
echo "ok: README.md's pkg-config recipe and CMake snippet build programs that run from the installation"
