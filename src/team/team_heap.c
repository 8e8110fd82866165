/*
 * team_heap.c: symmetric allocation over a team (gk_team_malloc and
 * friends): a block at the same heap offset on every member, allocated and
 * freed by the members alone, as MPI_Win_allocate does on a communicator.
 *
 * The heap is the world's (core/symheap.h): a team block takes its range on
 * each member's heap only, so after one the members' heaps differ from the
 * others', and every later placement, a team's or the world's, agrees on
 * an offset free on all of its PEs ("agreed first fit", core/symheap.c).
 * Here the agreement's rounds are team collectives on the team engine, as
 * calls of their own kind (gk_team_malloc, gk_team_free), so a member in
 * another collective of the team is found by the engine's agreement and
 * named on every member. The call's vote carries its arguments as the
 * engine's fields (form, size, alignment; a freed block's offset), which
 * the engine compares on every member, and the members' proposals as the
 * payload: one all-reduce while the members' heaps agree.
 *
 * Each block carries its team's heap_owner, this PE's own number for the
 * team, so a block freed on the wrong team, or with gk_free, is refused
 * (on every member alike: the vote carries the verdict). On GK_TEAM_WORLD
 * the calls are gk_malloc's and gk_free's, under these names.
 */
#include <string.h>

#include "base/log.h"
#include "core/progress.h"
#include "core/runtime.h"
#include "core/symheap.h"
#include "team/coll.h"

/* The allocating calls, the form field of their vote. */
enum team_heap_form { FORM_MALLOC = 1, FORM_CALLOC, FORM_ALIGN };
static const char *const form_names[] = {
    [FORM_MALLOC] = "gk_team_malloc",
    [FORM_CALLOC] = "gk_team_calloc",
    [FORM_ALIGN] = "gk_team_align",
};
static const enum gk__coll_kind form_world_kinds[] = {
    [FORM_MALLOC] = GK__COLL_MALLOC,
    [FORM_CALLOC] = GK__COLL_CALLOC,
    [FORM_ALIGN] = GK__COLL_ALIGN,
};

static const char *form_name(uint64_t form)
{
    return form >= FORM_MALLOC && form <= FORM_ALIGN ? form_names[form] : "another call";
}

/* A freed block's field when ptr is NULL (frees nothing). */
#define TEAM_HEAP_NULL_BLOCK UINT64_MAX

/* Says which of a heap call's fields the members passed differently. */
static void team_heap_report(const struct gk__team_op *op)
{
    static const char *const what[GK__TF_COUNT] = {
        [GK__TF_SIZE] = "sizes",
        [GK__TF_TYPE] = "alignments",
    };
    const struct gk__team_agree *a = &op->agree;
    if (op->kind == GK__TEAM_MALLOC && a->lo[GK__TF_ROOT] != a->hi[GK__TF_ROOT]) {
        gk__error("%s: the team's PEs are in different heap calls (%s on some, %s on "
                  "others); nothing was allocated",
                  op->name, form_name(a->lo[GK__TF_ROOT]), form_name(a->hi[GK__TF_ROOT]));
        return;
    }
    for (int f = GK__TF_SIZE; f <= GK__TF_TYPE; f++) {
        if (a->lo[f] == a->hi[f])
            continue;
        gk__error("%s: the team's PEs passed different %s (from %llu to %llu; this PE "
                  "%llu): a team heap call needs the same arguments on every member; "
                  "nothing was %s",
                  op->name,
                  op->kind == GK__TEAM_FREE ? "blocks (heap offsets; NULL is all ones)"
                                            : what[f],
                  (unsigned long long)a->lo[f], (unsigned long long)a->hi[f],
                  (unsigned long long)op->mine[f],
                  op->kind == GK__TEAM_FREE ? "freed" : "allocated");
    }
}

/* A placement's rounds on the team (gk__symheap_max_fn). */
struct team_heap_vote {
    const char *name;
    struct gk_team *team;
    uint64_t fields[3];
};

static int team_heap_max(void *arg, uint64_t *dst, const uint64_t *src, size_t count)
{
    const struct team_heap_vote *v = arg;
    return gk__team_agree_max(v->name, GK__TEAM_MALLOC, v->team, dst, src, count, v->fields,
                              team_heap_report, GK_OK);
}

/* This PE's own checks of an allocating call's arguments (logged). */
static int team_heap_check(const char *name, enum team_heap_form form, size_t count,
                           size_t size, size_t alignment, size_t *bytes_p)
{
    int status = GK_OK;
    *bytes_p = size;
    if (form == FORM_CALLOC) {
        status = gk__symheap_check_calloc(name, count, size);
        *bytes_p = status == GK_OK ? count * size : 0;
    } else if (form == FORM_ALIGN) {
        status = gk__symheap_check_align(name, alignment);
    }
    if (status == GK_OK && *bytes_p == 0) {
        if (form == FORM_CALLOC)
            gk__error("%s: count %zu x size %zu is 0 bytes: a team block has at least one "
                      "byte",
                      name, count, size);
        else
            gk__error("%s: size is 0: a team block has at least one byte", name);
        status = GK_ERR_INVALID_ARG;
    }
    return status;
}

/* The team's block, placed by the members' agreement (status: this PE's
 * own checks, which still vote, so no member is left waiting). */
static void *team_heap_place(const char *name, enum team_heap_form form, gk_team_t team,
                             struct gk_team *t, size_t size, size_t alignment, int status)
{
    uint64_t mine = GK__SYMHEAP_NONE;
    if (status == GK_OK)
        status = gk__symheap_propose(name, size, alignment, t->heap_owner, &mine);
    struct team_heap_vote vote = {name, t, {form, size, alignment}};
    uint64_t in[2] = {mine, ~mine}, out[2];
    int r = gk__team_agree_max(name, GK__TEAM_MALLOC, t, out, in, 2, vote.fields,
                               team_heap_report, status);
    if (r != GK_OK) {
        if (mine != GK__SYMHEAP_NONE)
            gk__symheap_give((size_t)mine); /* undone on every member */
        return NULL;
    }
    size_t offset;
    if (gk__symheap_settle(name, size, alignment, t->heap_owner, mine, ~out[1], out[0],
                           team_heap_max, &vote, &offset) != GK_OK)
        return NULL;
    if (form == FORM_CALLOC) {
        memset(gk__rt.heap + offset, 0, size);
        /* Members may write into the block once we return: zeroed first. */
        if (gk__team_barrier(name, team, NULL) != GK_OK) {
            gk__symheap_give(offset);
            return NULL;
        }
    }
    t->heap_blocks++;
    return gk__rt.heap + offset;
}

static void *team_heap_take(const char *name, enum team_heap_form form, gk_team_t team,
                            size_t count, size_t size, size_t alignment)
{
    if (!gk__rt.initialized) {
        gk__rt_report_pe(name, 0);
        return NULL;
    }
    struct gk_team *t = gk__team_get(name, team);
    if (t == NULL)
        return NULL;
    size_t bytes;
    int status = team_heap_check(name, form, count, size, alignment, &bytes);
    if (t == gk__team_world())
        return gk__symheap_take(name, form_world_kinds[form], bytes, alignment, status);
    if (gk__progress_check_not_in_handler(name) != GK_OK)
        return NULL;
    return team_heap_place(name, form, team, t, bytes, alignment, status);
}

void *gk_team_malloc(gk_team_t team, size_t size)
{
    return team_heap_take("gk_team_malloc", FORM_MALLOC, team, 1, size, 0);
}

void *gk_team_calloc(gk_team_t team, size_t count, size_t size)
{
    return team_heap_take("gk_team_calloc", FORM_CALLOC, team, count, size, 0);
}

void *gk_team_align(gk_team_t team, size_t alignment, size_t size)
{
    return team_heap_take("gk_team_align", FORM_ALIGN, team, 1, size, alignment);
}

int gk_team_free(gk_team_t team, void *ptr)
{
    static const char name[] = "gk_team_free";
    if (!gk__rt.initialized)
        return gk__rt_report_pe(name, 0);
    struct gk_team *t = gk__team_get(name, team);
    if (t == NULL)
        return GK_ERR_INVALID_ARG;
    if (t == gk__team_world())
        return gk__symheap_free(name, ptr);
    int status = gk__progress_check_not_in_handler(name);
    if (status != GK_OK)
        return status;
    size_t offset = 0;
    if (ptr != NULL)
        status = gk__symheap_block(name, ptr, t->heap_owner, &offset);
    /* The vote is also the barrier before the range is free for reuse:
     * every member is done with the block. */
    const uint64_t fields[3] = {0, ptr != NULL ? offset : TEAM_HEAP_NULL_BLOCK, 0};
    status = gk__team_agree_max(name, GK__TEAM_FREE, t, NULL, NULL, 0, fields,
                                team_heap_report, status);
    if (status == GK_OK && ptr != NULL) {
        gk__symheap_give(offset);
        t->heap_blocks--;
    }
    return status;
}
