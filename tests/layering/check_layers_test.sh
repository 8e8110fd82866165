#!/usr/bin/env bash
# .ci/check-layers on a small tree of its own (the real tree still has
# features that reach into transports): the clean tree must pass, with the
# path layer and src/net/ free to name a transport and comments that name
# one ignored, and each planted violation must fail it, naming file:line.
set -euo pipefail
check=$1
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree"/src/{net,core,rma,sync,coll} "$tree"/include

cat >"$tree/src/net/net.h" <<'C'
struct gk__net_peer {
    char *direct;
};
C
cat >"$tree/src/net/shm.h" <<'C'
#include "net/net.h"
#include "net/shm_ring.h"
static inline char *gk__shm_base(struct gk__net_peer *peer) { return peer->direct; }
C
cat >"$tree/src/net/shm_ring.h" <<'C'
static inline int gk__ring_push(void) { return 0; }
C
cat >"$tree/src/net/net.c" <<'C'
#include "net/shm.h"
#ifdef GK_HAVE_UCX
#include "net/ucx.h"
#endif
C
cat >"$tree/src/core/path.h" <<'C'
#include "net/shm.h"
static inline char *gk__path_base(struct gk__net_peer *peer)
{
    (void)gk__ring_push();
    return peer->direct != 0 ? peer->direct : gk__shm_base(peer);
}
C
cat >"$tree/include/gasket_inline.h" <<'C'
struct gk__inline_peer { char *seg_base; };
static inline char *gk__inline_base(struct gk__inline_peer *p, struct gk__net_peer *q)
{
    return p->seg_base ? p->seg_base : q->direct;
}
C
cat >"$tree/src/core/runtime.c" <<'C'
/* Not gk__ucx_open(), peer->direct or #ifdef GK_HAVE_UCX: the path layer. */
#include "core/path.h"
#include "net/net.h"
static const char why[] = "a peer->direct mapping, gk__shm_base";
int gk__rt_start(struct gk__net_peer *peer)
{
    return gk__path_base(peer) != why;
}
C
cp "$tree/src/core/runtime.c" "$tree/src/rma/rma.c"
cp "$tree/src/core/runtime.c" "$tree/src/sync/sync.c"
cp "$tree/src/core/runtime.c" "$tree/src/coll/coll.c"

out=$("$check" "$tree") || { echo "check-layers failed a clean tree:"; echo "$out"; exit 1; }

# plant FILE LINE WHAT: appends LINE to FILE (a new file, or a clean
# one), expects the check to fail naming FILE at that line with WHAT, then
# puts FILE back as it was.
failed=0
plant() {
    local file=$1 line=$2 what=$3
    touch "$tree/$file"
    cp "$tree/$file" "$tree/$file.orig"
    echo "$line" >>"$tree/$file"
    local n status=0
    n=$(wc -l <"$tree/$file")
    out=$("$check" "$tree") || status=$?
    if [ "$status" != 1 ] || ! grep -qF "layering: $file:$n $what" <<<"$out"; then
        echo "check-layers missed '$line' in $file (exit status $status); output:"
        echo "$out"
        failed=1
    fi
    mv "$tree/$file.orig" "$tree/$file"
    [ -s "$tree/$file" ] || rm "$tree/$file"
}
plant src/rma/x.c 'static char *f(struct gk__net_peer *p) { return p->direct; }' \
    "reads a peer's mapping (direct)"
plant src/rma/rma.c 'static char *g(struct gk__net_peer p) { return p.direct; }' \
    "reads a peer's mapping (direct)"
plant src/sync/x.c '#include "net/ucx.h"' "includes net/ucx.h"
plant src/sync/sync.c '#include "net/shm_ring.h"' "includes net/shm_ring.h"
plant src/core/x.c '#ifdef GK_HAVE_UCX' "asks whether GK_HAVE_UCX is built"
plant src/core/runtime.c '#if defined(GK_HAVE_OFI) && 1' "asks whether GK_HAVE_OFI is built"
plant src/coll/x.c 'static int h(void) { return gk__ring_push(); }' "names gk__ring_push"
plant src/coll/coll.c 'int k = sizeof(gk__ucx_peer);' "names gk__ucx_peer"
plant include/gasket_inline.h '#ifndef GK_HAVE_UCX' "asks whether GK_HAVE_UCX is built"
out=$("$check" "$tree") || { echo "check-layers failed the clean tree again:"; echo "$out"; exit 1; }
[ $failed -eq 0 ] && echo "check-layers: ok"
exit $failed
