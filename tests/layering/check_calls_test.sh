#!/usr/bin/env bash
# .ci/check-calls on a small tree of its own: it must find the calls and
# references up through the public API, pasted definitions included, and
# nothing in comments, string literals or character constants.
set -euo pipefail
check=$1
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree"/src/{base,core,sync,rma}

cat >"$tree/src/sync/barrier.c" <<'C'
int gk_barrier(void)
{
    return 0;
}
C
cat >"$tree/src/rma/rma.c" <<'C'
#define PUT_FORM(bits)                                                 \
    int gk_put_u##bits(int pe, unsigned long value)                   \
    {                                                                  \
        return pe + (int)value;                                        \
    }
PUT_FORM(64)
C
cat >"$tree/src/base/log.c" <<'C'
int gk__log(const char *line)
{
    return line != 0;
}
C
cat >"$tree/src/core/runtime.c" <<'C'
/* gk_barrier() in a comment, "and a string /* in it */" */
// gk_barrier(); a line comment \
   gk_barrier(); continued
static const char msg[] = "call gk_barrier() \" first";
static const char quote = '"';
int gk_init(void)
{
    gk__log("gk_barrier()");
    int status = gk_barrier();
    int (*fn)(void) = gk_barrier;
    return status + fn() + gk_put_u64(0, quote) + (msg[0] == '\'');
}
C

status=0
out=$("$check" "$tree") || status=$?
expected="layering: src/core/runtime.c:9 calls gk_barrier, defined in src/sync/ above src/core/
layering: src/core/runtime.c:10 refers to gk_barrier, defined in src/sync/ above src/core/
layering: src/core/runtime.c:11 calls gk_put_u64, defined in src/rma/ above src/core/"
if [ "$status" != 1 ] || [ "$out" != "$expected" ]; then
    echo "check-calls: exit status $status, expected 1; output:"
    echo "$out"
    echo "expected:"
    echo "$expected"
    exit 1
fi

# Without the upward uses the tree passes.
sed -i '9,11d' "$tree/src/core/runtime.c"
echo '    return 0; }' >>"$tree/src/core/runtime.c"
out=$("$check" "$tree") || { echo "check-calls failed a clean tree:"; echo "$out"; exit 1; }
echo "check-calls: ok"
