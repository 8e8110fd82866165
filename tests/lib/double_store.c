/*
 * double_store.c: preloaded into a test's PEs, a memcpy that makes a legal
 * but rare behaviour of the C library's happen every time. glibc copies 8
 * bytes with two overlapping 8-byte stores; a thread preempted between
 * them stores the same bytes again, much later. UCX's software RMA copies
 * a put's data with memcpy on the target's progress thread, so a word that
 * a put wrote may be written again after its owner has seen it and
 * changed it.
 * Here every 8-byte copy on a thread other than the main one stores
 * twice, with a yield between: a runtime that writes a word its owner
 * resets with a put, not an atomic, fails under it.
 */
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* (default visibility: the build hides symbols, and this one must
 * interpose) */
__attribute__((visibility("default"))) void *memcpy(void *restrict dst,
                                                    const void *restrict src, size_t n)
{
    void *ret = dst;
    if (n == 8 && syscall(SYS_gettid) != getpid()) {
        uint64_t value;
        __asm__ volatile("movq (%1), %0" : "=r"(value) : "r"(src) : "memory");
        *(volatile uint64_t *)dst = value;
        sched_yield();
        *(volatile uint64_t *)dst = value;
        return ret;
    }
    /* Not a call to the library's memcpy: this is it. */
    __asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
    return ret;
}
