/* wait_until.h: the point-to-point wait, for other waits of the sync layer. */
#ifndef GK_SYNC_WAIT_UNTIL_H
#define GK_SYNC_WAIT_UNTIL_H

#include "base/wait.h"
#include "gasket.h"

/*
 * gk_wait_until_u64() that also returns the value that satisfied the
 * comparison (read by the same load that ended the wait).
 */
int gk__wait_until_u64_seen(const char *op, uint64_t *ivar, gk_cmp_t cmp,
                            uint64_t value, uint64_t *seen_p);

/*
 * Waits until pred(arg) holds, as gk_wait_until_*() waits (spin, yield,
 * then sleep until any PE writes to this one), serving active messages
 * meanwhile: for conditions the typed waits cannot state (OpenSHMEM's
 * 16-bit words, and its vector forms with one value per word). The caller
 * has checked the words; `op` names the call in errors.
 */
int gk__wait_until_pred(const char *op, gk__wait_pred_fn pred, const void *arg,
                        void (*describe)(const void *arg, char *buf, size_t size));

/* One look, as a test does: owed wake-ups paid, active messages served. */
void gk__wait_test_settle(void);

/* Writes "the word at ADDR CMP VALUE (it holds NOW)" for check mode's
 * report of a wait that cannot end (cmp: a GK_CMP_* value). */
void gk__wait_describe(char *buf, size_t size, const void *word, int cmp, uint64_t value,
                       unsigned width, int is_signed);

#endif /* GK_SYNC_WAIT_UNTIL_H */
