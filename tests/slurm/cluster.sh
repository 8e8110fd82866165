#!/usr/bin/env bash
# cluster.sh: a one-machine Slurm cluster (munge, slurmctld, slurmd) for
# testing gasket under srun --mpi=pmix. Needs root and Debian's slurm-wlm.
#
#   tests/slurm/cluster.sh start DIR   writes DIR/slurm.conf, starts the
#                                      daemons, waits for the node to be idle
#   tests/slurm/cluster.sh stop DIR    stops them (by their pid files)
#
# Then point every Slurm command at the cluster: SLURM_CONF=DIR/slurm.conf.
# The configuration suits a container without systemd or writable cgroups:
# processes are tracked through /proc, tasks are not confined, and no
# cgroup.conf is written (22.05 refuses to start with one that disables
# cgroups).
set -euo pipefail

usage() {
    echo "usage: $0 start|stop DIR" >&2
    exit 2
}
[ $# -eq 2 ] || usage
action=$1
dir=$(realpath -m "$2")

start_munge() {
    if pgrep -x munged >/dev/null; then
        return
    fi
    install -d -o munge -g munge -m 0700 /etc/munge /var/lib/munge /var/log/munge
    install -d -o munge -g munge -m 0755 /run/munge
    if [ ! -s /etc/munge/munge.key ]; then
        dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
        chown munge:munge /etc/munge/munge.key
        chmod 0400 /etc/munge/munge.key
    fi
    if command -v runuser >/dev/null; then
        runuser -u munge -- /usr/sbin/munged
    else
        su -s /bin/sh munge -c /usr/sbin/munged
    fi
}

write_conf() {
    local host cpus mem
    host=$(hostname -s)
    cpus=$(nproc)
    mem=$(awk '/MemTotal/ {print int($2 / 1024 * 0.9)}' /proc/meminfo)
    mkdir -p "$dir/state" "$dir/spool" "$dir/log"
    cat >"$dir/slurm.conf" <<EOF
ClusterName=gasket-test
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldPort=6817
SlurmdPort=6818
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE
EOF
}

case $action in
start)
    start_munge
    write_conf
    export SLURM_CONF=$dir/slurm.conf
    /usr/sbin/slurmctld -f "$SLURM_CONF"
    /usr/sbin/slurmd -f "$SLURM_CONF"
    for _ in $(seq 60); do
        if sinfo -h -o %t 2>/dev/null | grep -qx idle; then
            echo "slurm cluster up: SLURM_CONF=$SLURM_CONF"
            exit 0
        fi
        sleep 0.5
    done
    echo "$0: the node did not become idle within 30 s; sinfo says:" >&2
    sinfo >&2 || true
    tail -n 20 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" >&2 || true
    exit 1
    ;;
stop)
    for daemon in slurmd slurmctld; do
        if [ -s "$dir/$daemon.pid" ]; then
            kill "$(cat "$dir/$daemon.pid")" 2>/dev/null || true
        fi
    done
    # Gone, or a zombie that nobody reaps in a container without an init.
    running() {
        local state
        state=$(awk '/^State:/ {print $2}' "/proc/$1/status" 2>/dev/null)
        [ -n "$state" ] && [ "$state" != Z ]
    }
    for daemon in slurmd slurmctld; do
        [ -s "$dir/$daemon.pid" ] || continue
        pid=$(cat "$dir/$daemon.pid")
        for _ in $(seq 40); do
            running "$pid" || break
            sleep 0.25
        done
        if running "$pid"; then
            echo "$0: $daemon (pid $pid) did not stop; killing it" >&2
            kill -KILL "$pid" 2>/dev/null || true
        fi
    done
    ;;
*)
    usage
    ;;
esac
