#!/bin/sh
# Runs a command on the first CPU this process may use: a job of several
# PEs then has more PEs than CPUs on any machine, and takes the waits and
# lock hand-overs of an oversubscribed node (win/rwlock.c's hints).
cpu=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*\([0-9]*\).*/\1/p' /proc/self/status)
exec taskset -c "$cpu" "$@"
