#!/usr/bin/env bash
# Installs gasket into a scratch prefix and builds the example program
# against it twice: with pkg-config and with CMake's find_package(gasket).
# Then runs both through the installed launcher.
set -euo pipefail
build=$1; src=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
export PKG_CONFIG_PATH=$work/prefix/lib/pkgconfig:$work/prefix/lib/x86_64-linux-gnu/pkgconfig:${PKG_CONFIG_PATH:-}
libdir=$(pkg-config --variable=libdir gasket)

# 1. pkg-config
cc -std=c11 -Wall -Werror $(pkg-config --cflags gasket) "$src/examples/ring.c" \
   -o "$work/ring_pc" $(pkg-config --libs gasket) -Wl,-rpath,"$libdir"
"$work/prefix/bin/gasket-run" -n 2 "$work/ring_pc" | grep -q ": ok"

# 2. CMake package
mkdir -p "$work/consumer"
cp "$src/examples/ring.c" "$work/consumer/"
cat > "$work/consumer/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.20)
project(consumer C)
find_package(gasket REQUIRED)
add_executable(ring ring.c)
target_link_libraries(ring PRIVATE gasket::gasket)
CM
cmake -S "$work/consumer" -B "$work/consumer/build" -DCMAKE_PREFIX_PATH="$work/prefix" \
      -DCMAKE_BUILD_RPATH="$libdir" >/dev/null
cmake --build "$work/consumer/build" >/dev/null
"$work/prefix/bin/gasket-run" -n 2 "$work/consumer/build/ring" | grep -q ": ok"
test -x "$work/prefix/bin/gasket-info"
test -f "$work/prefix/include/gasket.h"
echo "ok: installed gasket builds and runs a program via pkg-config and via find_package"
