/*
 * acc.h: accumulates element by element through the target's transport
 * (acc.c), shared by the window accumulates and the typed accumulates.
 * The element types are the ones the transports' 4- and 8-byte atomics
 * cover: GK_DTYPE_INT32, UINT32, INT64, UINT64, FLOAT and DOUBLE.
 */
#ifndef GK_CORE_ACC_H
#define GK_CORE_ACC_H

#include <stddef.h>
#include <stdint.h>

#include "gasket.h"

/* The width of an accumulate element type; 0: not one. */
size_t gk__acc_dtype_width(gk_dtype_t dtype);
int gk__acc_dtype_is_integer(gk_dtype_t dtype);
/* Logs why dtype is refused (integer_only: a compare-and-swap); returns
 * GK_ERR_INVALID_ARG. */
int gk__acc_report_dtype(const char *call, gk_dtype_t dtype, int integer_only);
/* Checks an accumulate's dtype and op, logged (no_op_ok: the fetching
 * forms, where GK_OP_NO_OP reads). */
int gk__acc_check_dtype_op(const char *call, gk_dtype_t dtype, gk_op_t op, int no_op_ok);
/* The new bits of an element: old op operand (both in the low bits). */
uint64_t gk__acc_combine(gk_dtype_t dtype, gk_op_t op, uint64_t old, uint64_t operand);
/* One element's update through pe's transport at segment offset
 * `offset`: the element = old op operand, the old bits in *old_p. */
int gk__acc_element_op(int pe, size_t offset, gk_dtype_t dtype, gk_op_t op, uint64_t operand,
                       uint64_t *old_p);
/* Updates k blocks of len bytes of elements, the first at `target`, an
 * address in a mapped segment, the others target_stride bytes apart, with
 * the operands at `operands` (blocks operand_stride apart): each element
 * one CPU atomic (the same domain as the shm transport's atomics). Makes
 * no wake-up check: the caller makes one for all (gk__path_notify). */
void gk__acc_blocks_mapped(char *target, int64_t target_stride, const char *operands,
                           int64_t operand_stride, uint64_t k, size_t len, gk_dtype_t dtype,
                           gk_op_t op);
/* The wake-up a peer reached through its transport is owed after updates
 * of [offset, offset + nbytes) of its segment. */
void gk__acc_wake_owed(int pe, size_t offset, size_t nbytes);

#endif /* GK_CORE_ACC_H */
