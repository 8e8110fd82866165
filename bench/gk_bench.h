/*
 * gk_bench.h: what gk-bench's benchmark files share with its driver
 * (gk_bench.c): this PE's number, the buffers, the error check. Each file
 * adds its benchmarks to the driver's table.
 */
#ifndef GK_BENCH_GK_BENCH_H
#define GK_BENCH_GK_BENCH_H

#include "bench_common.h"

extern int bench_me, bench_npes;
extern unsigned char *bench_sym;  /* symmetric: 2 * BENCH_MAX_MSG */
extern unsigned char *bench_priv; /* private: 2 * BENCH_MAX_MSG, page-aligned */

/* Ends the job on an error: a benchmark that goes on after one measures
 * nothing. The check is inline and the report out of line, so a timed loop
 * pays one branch per call, as a program that checks its calls would. */
void bench_fail(int status, const char *what) __attribute__((cold, noinline, noreturn));
static inline void bench_check(int status, const char *what)
{
    if (__builtin_expect(status != GK_OK, 0))
        bench_fail(status, what);
}
/* 1 when the job has 2 PEs or more; else PE 0 says the benchmark is skipped. */
int bench_need_two(const char *name);

/* gk_bench_msg.c: active messages, two-sided, threads on contexts. */
void bench_am_lat(const struct bench_opts *opts, const char *name);
void bench_am_wait_lat(const struct bench_opts *opts, const char *name);
void bench_am_rate(const struct bench_opts *opts, const char *name);
void bench_sendrecv_lat(const struct bench_opts *opts, const char *name);
void bench_sendrecv_bw(const struct bench_opts *opts, const char *name);
void bench_mt_put_lat(const struct bench_opts *opts, const char *name);

/* gk_bench_lock.c: windows and their locks. */
void bench_lock_put_lat(const struct bench_opts *opts, const char *name);
void bench_lock_get_lat(const struct bench_opts *opts, const char *name);
void bench_lock_get8_lat(const struct bench_opts *opts, const char *name);
void bench_lock_all_get_lat(const struct bench_opts *opts, const char *name);
void bench_lock_xget_lat(const struct bench_opts *opts, const char *name);
void bench_lock_contended(const struct bench_opts *opts, const char *name);
void bench_overlap(const struct bench_opts *opts, const char *name);
void bench_passive_busy(const struct bench_opts *opts, const char *name);

/* gk_bench_dtype.c: typed transfers beside contiguous ones. */
void bench_vector_put_lat(const struct bench_opts *opts, const char *name);
void bench_vector_get_lat(const struct bench_opts *opts, const char *name);
void bench_subarray_put_lat(const struct bench_opts *opts, const char *name);
void bench_subarray_get_lat(const struct bench_opts *opts, const char *name);
void bench_subarray_acc_lat(const struct bench_opts *opts, const char *name);

/* gk_bench_team.c: the team collectives over GK_TEAM_WORLD. */
void bench_team_barrier_lat(const struct bench_opts *opts, const char *name);
void bench_team_bcast_lat(const struct bench_opts *opts, const char *name);
void bench_team_allreduce_lat(const struct bench_opts *opts, const char *name);
void bench_team_reduce_lat(const struct bench_opts *opts, const char *name);
void bench_team_fcollect_lat(const struct bench_opts *opts, const char *name);
void bench_team_alltoall_lat(const struct bench_opts *opts, const char *name);
void bench_team_alltoall_sym_lat(const struct bench_opts *opts, const char *name);
void bench_team_fcollect_sym_lat(const struct bench_opts *opts, const char *name);
void bench_team_overlap(const struct bench_opts *opts, const char *name);
void bench_team_overlap_sym(const struct bench_opts *opts, const char *name);

#endif /* GK_BENCH_GK_BENCH_H */
