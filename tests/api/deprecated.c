/*
 * The names this release deprecates still compile, each with a deprecation
 * warning naming its replacement (check_api.sh deprecated checks them), and
 * still work, on one PE.
 */
#include <gasket.h>
#include <stdio.h>

#define EXPECT(cond)                                                           \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "deprecated.c:%d: %s is false\n", __LINE__, #cond); \
            return 1;                                                          \
        }                                                                      \
    } while (0)

int main(void)
{
    EXPECT(gk_init() == GK_OK);
    gk_thread_level_t level = GK_THREAD_MULTIPLE;
    EXPECT(gk_query_thread(&level) == GK_OK);
    EXPECT(level == GK_THREAD_SINGLE);

    void *block = NULL;
    EXPECT(gk_alloc_mem(64, GK_MEM_PRIVATE, 0, &block) == GK_OK);
    EXPECT(block != NULL);

    uint64_t *sym = gk_calloc(3, sizeof(uint64_t));
    EXPECT(sym != NULL);
    uint64_t v[3] = {11, 22, 33};
    EXPECT(gk_put_inline(0, &sym[0], &v[0], sizeof(uint64_t)) == GK_OK);
    EXPECT(gk_put_buffered(0, &sym[1], &v[1], sizeof(uint64_t)) == GK_OK);
    EXPECT(gk_put_bulk(0, &sym[2], &v[2], sizeof(uint64_t)) == GK_OK);
    EXPECT(gk_quiet() == GK_OK);
    EXPECT(sym[0] == 11 && sym[1] == 22 && sym[2] == 33);

    EXPECT(gk_free_mem(block) == GK_OK);
    EXPECT(GASKET_VERSION_MAJOR == GK_VERSION_MAJOR);
    EXPECT(GASKET_VERSION_MINOR == GK_VERSION_MINOR);
    EXPECT(GASKET_VERSION_PATCH == GK_VERSION_PATCH);
    gk_free(sym);
    EXPECT(gk_finalize() == GK_OK);
    printf("ok: the deprecated names work\n");
    return 0;
}
