/*
 * pshmem.h: the profiling interface of OpenSHMEM 1.5. Every routine of
 * shmem.h is defined under its pshmem_ name, and the shmem_ name is a weak
 * alias of it: a tool defines shmem_<name> itself, does its work and calls
 * pshmem_<name>. The C11 generic interfaces of shmem.h have no pshmem_ form.
 */
#ifndef PSHMEM_H
#define PSHMEM_H

#include "shmem.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SHMEM__D_RMA_S_pshmem(B, bytes) SHMEM__D_RMA_S(pshmem, B, bytes)
#define SHMEM__D_RMA_T_pshmem(T, N) SHMEM__DECLARE_RMA(pshmem, T, N)
#define SHMEM__D_AMO_STD_pshmem(T, N) SHMEM__DECLARE_AMO_STD(pshmem, T, N)
#define SHMEM__D_AMO_EXT_pshmem(T, N) SHMEM__DECLARE_AMO_EXT(pshmem, T, N)
#define SHMEM__D_AMO_BIT_pshmem(T, N) SHMEM__DECLARE_AMO_BIT(pshmem, T, N)
#define SHMEM__D_P2P_pshmem(T, N) SHMEM__DECLARE_P2P(pshmem, T, N)
#define SHMEM__D_RED_BIT_pshmem(T, N) SHMEM__DECLARE_REDUCE_BIT(pshmem, T, N)
#define SHMEM__D_RED_ARITH_pshmem(T, N) SHMEM__DECLARE_REDUCE_ARITH(pshmem, T, N)

SHMEM__DECLARE_SETUP(pshmem)
SHMEM__DECLARE_RMA_SIZED(pshmem, mem)
SHMEM_RMA_SIZES(SHMEM__D_RMA_S_pshmem)
SHMEM_RMA_TYPES(SHMEM__D_RMA_T_pshmem)
SHMEM_AMO_STD_TYPES(SHMEM__D_AMO_STD_pshmem)
SHMEM_AMO_EXT_ONLY_TYPES(SHMEM__D_AMO_EXT_pshmem)
SHMEM_AMO_BIT_TYPES(SHMEM__D_AMO_BIT_pshmem)
SHMEM_P2P_TYPES(SHMEM__D_P2P_pshmem)
SHMEM_REDUCE_BIT_TYPES(SHMEM__D_RED_BIT_pshmem)
SHMEM_REDUCE_ARITH_TYPES(SHMEM__D_RED_ARITH_pshmem)

#define SHMEM__D_CTX_RMA_S_pshmem(B, bytes) SHMEM__D_CTX_RMA_S(pshmem, B, bytes)
#define SHMEM__D_CTX_RMA_T_pshmem(T, N) SHMEM__DECLARE_CTX_RMA(pshmem, T, N)
#define SHMEM__D_CTX_AMO_STD_pshmem(T, N) SHMEM__DECLARE_CTX_AMO_STD(pshmem, T, N)
#define SHMEM__D_CTX_AMO_EXT_pshmem(T, N) SHMEM__DECLARE_CTX_AMO_EXT(pshmem, T, N)
#define SHMEM__D_CTX_AMO_BIT_pshmem(T, N) SHMEM__DECLARE_CTX_AMO_BIT(pshmem, T, N)
SHMEM__DECLARE_CTX_ALL(pshmem)

#define SHMEM__D_COLL_pshmem(T, N) SHMEM__DECLARE_COLL(pshmem, T, N)
#define SHMEM__D_ASET_pshmem(B, bytes) SHMEM__DECLARE_ASET_SIZED(pshmem, B)
#define SHMEM__D_TO_ALL_BIT_pshmem(T, N) SHMEM__DECLARE_TO_ALL_BIT(pshmem, T, N)
#define SHMEM__D_TO_ALL_ARITH_pshmem(T, N) SHMEM__DECLARE_TO_ALL_ARITH(pshmem, T, N)
#define SHMEM__D_RED_CPLX_pshmem(T, N) SHMEM__DECLARE_REDUCE_COMPLEX(pshmem, T, N)
#define SHMEM__D_DEPR_AMO_pshmem(T, N) SHMEM__DECLARE_DEPR_AMO(pshmem, T, N)
#define SHMEM__D_DEPR_AMO_EXT_pshmem(T, N) SHMEM__DECLARE_DEPR_AMO_EXT(pshmem, T, N)
#define SHMEM__D_DEPR_WAIT_pshmem(T, N) SHMEM__DECLARE_DEPR_WAIT(pshmem, T, N)

SHMEM__DECLARE_TEAMS(pshmem)
SHMEM_RMA_TYPES(SHMEM__D_COLL_pshmem)
SHMEM__D_ASET_pshmem(32, 4)
SHMEM__D_ASET_pshmem(64, 8)
SHMEM_TO_ALL_BIT_TYPES(SHMEM__D_TO_ALL_BIT_pshmem)
SHMEM_TO_ALL_ARITH_TYPES(SHMEM__D_TO_ALL_ARITH_pshmem)
SHMEM_REDUCE_COMPLEX_TYPES(SHMEM__D_RED_CPLX_pshmem)
SHMEM_DEPR_AMO_TYPES(SHMEM__D_DEPR_AMO_pshmem)
SHMEM_DEPR_AMO_EXT_ONLY_TYPES(SHMEM__D_DEPR_AMO_EXT_pshmem)
SHMEM_DEPR_WAIT_TYPES(SHMEM__D_DEPR_WAIT_pshmem)
SHMEM__DECLARE_CACHE(pshmem)

#ifdef __cplusplus
}
#endif

#endif /* PSHMEM_H */
