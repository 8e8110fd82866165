#!/usr/bin/env bash
# Checks of the public API's promises that need the compiler:
#   old_order   a call in a previous release's argument order is a compile
#               error with the compiler's default flags, not a warning;
#   deprecated  a deprecated name compiles with a warning that names its
#               replacement, and the program runs correctly;
#   version     gasket.h, gasket-info and gasket.pc state the same version;
#   cxx         the public headers, inline fast paths included, compile as
#               C++ without a warning (skipped, 77, with no C++ compiler).
# usage: check_api.sh MODE CC SRCDIR BUILDDIR [FLAGS]
# FLAGS: what a program linked with this build's library needs (its
# sanitizer), one argument, split at spaces.
set -euo pipefail
mode=$1; cc=$2; src=$3; build=$4
read -r -a flags <<<"${5:-}"
here=$(cd "$(dirname "$0")" && pwd)
inc=(-I"$src/include" -I"$build/include")
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

case $mode in
cxx)
  cxx=$(command -v c++ || command -v g++ || true)
  [ -n "$cxx" ] || { echo "no C++ compiler: skipped"; exit 77; }
  printf '#include "gasket.h"\n#include "gasket_dtype.h"\n%s\n' \
    'int main() { int x = 0; return gk_put(0, &x, &x, sizeof x) + gk_quiet(); }' >"$work/t.cpp"
  "$cxx" -std=c++17 -O2 -Wall -Wextra -pedantic -Werror "${inc[@]}" -c "$work/t.cpp" \
    -o "$work/t.o" || { echo "FAIL: the public headers do not compile as C++"; exit 1; }
  echo "ok: the public headers compile as C++ ($cxx)"
  ;;
old_order)
  # Today's order compiles cleanly, so a failure below is the old order's.
  "$cc" -c -Wall -Wextra -Werror -DCASE=0 "${inc[@]}" "$here/old_order.c" -o "$work/new.o" ||
    { echo "the calls in today's order do not compile"; exit 1; }
  ncases=$(grep -c '^#elif CASE == ' "$here/old_order.c")
  for ((c = 1; c <= ncases; c++)); do
    call=$(sed -n "/^#elif CASE == $c\$/{n;p}" "$here/old_order.c")
    if "$cc" -c -DCASE=$c "${inc[@]}" "$here/old_order.c" -o "$work/old.o" >"$work/log" 2>&1; then
      cat "$work/log"
      echo "FAIL: a call in the old order compiles: $call"
      exit 1
    fi
    grep -q "error" "$work/log" || { cat "$work/log"; echo "FAIL: no error for $call"; exit 1; }
    echo "ok: does not compile:$call"
  done
  ;;
deprecated)
  "$cc" -Wall ${flags[@]+"${flags[@]}"} "${inc[@]}" "$here/deprecated.c" -o "$work/deprecated" \
    -L"$build/src" -lgasket -Wl,-rpath,"$build/src" 2>"$work/log" ||
    { cat "$work/log"; echo "FAIL: the deprecated names do not compile"; exit 1; }
  for pair in gk_alloc_mem:gk_mem_alloc gk_free_mem:gk_mem_free \
              gk_query_thread:gk_thread_query gk_put_inline:gk_put \
              gk_put_buffered:gk_put gk_put_bulk:gk_put; do
    old=${pair%%:*}; new=${pair##*:}
    grep -q "$old.* is deprecated: use $new\b" "$work/log" ||
      { cat "$work/log"; echo "FAIL: no deprecation warning for $old"; exit 1; }
  done
  "$work/deprecated"
  ;;
version)
  header=$(printf '#include <gasket.h>\nGK_VERSION_STRING GK_VERSION_MAJOR GK_VERSION_MINOR GK_VERSION_PATCH\n' |
           "$cc" -E -P "${inc[@]}" - | tail -n 1)
  read -r string major minor patch <<<"$header"
  string=${string//\"/}
  [ "$string" = "$major.$minor.$patch" ] ||
    { echo "FAIL: GK_VERSION_STRING $string, the numbers $major.$minor.$patch"; exit 1; }
  info=$("$build/tools/gasket-info" --version)
  pc=$(sed -n 's/^Version: *//p' "$build/gasket.pc")
  cmake=$(sed -n 's/^project(gasket VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
  echo "gasket.h $string, gasket-info $info, gasket.pc $pc, CMakeLists.txt $cmake"
  [ "$info" = "$string" ] && [ "$pc" = "$string" ] && [ "$cmake" = "$string" ] ||
    { echo "FAIL: the versions differ"; exit 1; }
  # gasket-info's report starts with the same version.
  # (read whole first: head's early exit would make pipefail see SIGPIPE)
  info=$("$build/tools/gasket-info")
  [ "${info%%$'\n'*}" = "gasket $string" ] ||
    { echo "FAIL: gasket-info's first line is not 'gasket $string'"; exit 1; }
  # CHANGELOG.md has an entry for it.
  grep -q "^## \[$string\]" "$src/CHANGELOG.md" ||
    { echo "FAIL: CHANGELOG.md has no '## [$string]' entry"; exit 1; }
  ;;
*) echo "unknown mode $mode"; exit 2 ;;
esac
