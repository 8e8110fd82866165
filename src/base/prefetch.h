/*
 * prefetch.h: asking early for a cache line that a peer will soon need us
 * to own. The handoffs between PEs (a lock grant, an active message's
 * reply) each write a line that the other side is reading; where the
 * writer can guess the line before it knows it must write, a prefetch for
 * ownership overlaps that transfer with whatever the writer still has to
 * find out.
 */
#ifndef GK_BASE_PREFETCH_H
#define GK_BASE_PREFETCH_H

static inline void gk__prefetch_for_write(const void *line)
{
#if defined(__x86_64__)
    /* GCC's __builtin_prefetch(p, 1) emits a plain read prefetch unless
     * built with -mprfchw; every x86-64 we run on has prefetchw (older
     * ones decode it as a no-op). */
    __asm__ volatile("prefetchw %0" ::"m"(*(const char *)line));
#else
    __builtin_prefetch(line, 1);
#endif
}

#endif /* GK_BASE_PREFETCH_H */
