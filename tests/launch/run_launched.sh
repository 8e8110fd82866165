#!/usr/bin/env bash
# run_launched.sh LAUNCHER NP [--hosts K] PROGRAM [ARGS...]: runs a gasket
# program under a resource manager's launcher, which gasket joins through
# PMIx, and checks that the job left nothing in /dev/shm.
#
#   LAUNCHER  srun: Slurm's srun --mpi=pmix (the cluster from
#             tests/slurm/cluster.sh, SLURM_CONF set), -O so that more
#             PEs than CPUs may run;
#             mpirun: Open MPI's mpirun --oversubscribe ($LAUNCH_MPIRUN
#             where set).
#   --hosts K mpirun only: rank r runs inside simulated host r*K/NP, a set
#             of UTS, IPC and mount namespaces with its own /dev/shm and
#             host name (as gasket-run --hosts makes them), so PEs on
#             different hosts reach each other through UCX. Needs root.
#
# The program's exit status is the script's, unless /dev/shm (this
# machine's, and each simulated host's) gained names: run one job at a
# time, as the check sees every job's names.
set -u
launcher=$1; np=$2; shift 2
hosts=0
if [ "${1:-}" = --hosts ]; then
    hosts=$2; shift 2
fi
[ $# -ge 1 ] || { echo "usage: $0 srun|mpirun NP [--hosts K] PROGRAM [ARGS...]" >&2; exit 2; }

shm_list() { ls /dev/shm 2>/dev/null | grep '^gk-' | sort; }
shm_before=$(shm_list)
holders=()
cleanup() {
    for h in "${holders[@]}"; do
        kill "$h" 2>/dev/null || true
    done
}
trap cleanup EXIT

# A simulated host: a process that holds its namespaces until killed, or
# until this script dies (a test's time limit): --pdeathsig.
make_host() {
    local k=$1 ready
    exec {fd}< <(unshare --uts --ipc --mount --propagation private setpriv --pdeathsig KILL sh -c \
        "mount -t tmpfs tmpfs /dev/shm && hostname pmix-host$k && echo \$\$ && exec sleep 3600")
    read -r -t 10 -u "$fd" ready || { echo "could not make simulated host $k (needs root)" >&2; exit 77; }
    holders+=("$ready")
}

case $launcher in
srun)
    [ "$hosts" = 0 ] || { echo "--hosts is for mpirun" >&2; exit 2; }
    [ -n "${SLURM_CONF:-}" ] || { echo "SLURM_CONF is not set: start tests/slurm/cluster.sh" >&2; exit 2; }
    srun --mpi=pmix -O -n "$np" "$@"
    status=$?
    ;;
mpirun)
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    mpirun=${LAUNCH_MPIRUN:-mpirun}
    if [ "$hosts" = 0 ]; then
        "$mpirun" --oversubscribe -n "$np" "$@"
        status=$?
    else
        command -v unshare >/dev/null && command -v nsenter >/dev/null ||
            { echo "unshare or nsenter (util-linux) is missing" >&2; exit 77; }
        for ((k = 0; k < hosts; k++)); do make_host "$k"; done
        # MPMD: one application context per host, ranks in order.
        contexts=()
        for ((k = 0; k < hosts; k++)); do
            n=$(( (np * (k + 1)) / hosts - (np * k) / hosts ))
            [ "$n" -gt 0 ] || continue
            [ ${#contexts[@]} -eq 0 ] || contexts+=(:)
            contexts+=(-n "$n" nsenter --target "${holders[$k]}" --uts --ipc --mount
                       --wd="$PWD" "$@")
        done
        "$mpirun" --oversubscribe "${contexts[@]}"
        status=$?
    fi
    ;;
*)
    echo "unknown launcher $launcher (srun or mpirun)" >&2
    exit 2
    ;;
esac

# Each simulated host's /dev/shm, while it lives.
for h in "${holders[@]}"; do
    host_left=$(nsenter --target "$h" --mount ls /dev/shm | grep '^gk-')
    if [ -n "$host_left" ]; then
        echo "FAIL: the job left segments in a simulated host's /dev/shm: $host_left"
        exit 1
    fi
done
left=$(comm -13 <(echo "$shm_before") <(shm_list))
if [ -n "$left" ]; then
    echo "FAIL: the job left segments in /dev/shm: $left"
    exit 1
fi
exit "$status"
