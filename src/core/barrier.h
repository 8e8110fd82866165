/* barrier.h: the dissemination barrier (barrier.c). */
#ifndef GK_CORE_BARRIER_H
#define GK_CORE_BARRIER_H

/*
 * A barrier among all PEs, inside a collective call (gk__coll_enter() has
 * numbered it): what any PE did before it is visible to every PE after
 * it. Waits as every wait does, running active messages and checking that
 * the peers live. GK_OK, or GK_ERR_COLL_MISMATCH (the PEs are in different
 * collective calls: logged where found), or the error of a wait or a
 * transport.
 */
int gk__barrier(void);

/* Starts the count of barriers afresh: at gk_init, before the first one. */
void gk__barrier_reset(void);

#endif /* GK_CORE_BARRIER_H */
