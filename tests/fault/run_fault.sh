#!/usr/bin/env bash
# run_fault.sh LAUNCHER PROGRAM CASE: runs one scenario through gasket-run
# and checks what it promises: the exit status, the one line naming the PE
# (and its pid) and the cause, the time from the failure to the launcher's
# exit, no PE left running, and nothing new in /dev/shm under the job's key
# (the fake PEs create their segments and never unlink them).
#
# PROGRAM is fake_pe (speaks the launcher protocol by hand, no library) or
# fault_pe (a real gasket program); both leave their pids in $FAULT_DIR and
# say "ready" on $FAULT_FIFO (fault_common.h). Nothing here sleeps to wait
# for the PEs: the script blocks on the FIFO; it only polls, briefly, for a
# PE's death or the clean-up after a launcher killed with SIGKILL.
#
# FAULT_LAUNCHER_ARGS (e.g. "--hosts 2") go before the launcher's other
# options in every job the case starts. With --hosts the PEs' segments are
# in their simulated hosts' own /dev/shm, which lives as long as the host's
# namespaces: the PEs note theirs (ns.<rank>), and the script checks that
# PEs of one host shared them, PEs of different hosts did not, none was the
# script's own, and that after the job no launcher, PE or descriptor is left
# in or on any of them. The cases hosts.N.K run fake_pe's own check of the
# hosts at -n N --hosts K. Where --hosts cannot work (no CAP_SYS_ADMIN) a
# case that needs it is skipped (77); hosts-noroot checks the refusal.
set -u
launcher=$1; prog=$2; case_name=$3
launcher_args=${FAULT_LAUNCHER_ARGS:-}
kind=$(basename "$prog")
work=$(mktemp -d)
out=$work/out; err=$work/err; lpid=
export FAULT_DIR=$work/pe
mkdir "$FAULT_DIR"
trap '[ -n "$lpid" ] && kill -KILL "$lpid" 2>/dev/null; rm -rf "$work"' EXIT
unset GASKET_RUN_TIMEOUT
shm_list() { ls /dev/shm 2>/dev/null | grep '^gk-' | sort; }
shm_before=$(shm_list)
now_ns() { date +%s%N; }
fail() {
  echo "FAIL [$kind $case_name]: $*"
  echo "--- stdout (first 40 lines)"; head -n 40 "$out" 2>/dev/null
  echo "--- stderr (first 40 lines)"; head -n 40 "$err" 2>/dev/null
  exit 1
}
pid_of() { cat "$FAULT_DIR/pid.$1" 2>/dev/null || echo none; }

# shellcheck disable=SC2086 # launcher_args: words on purpose
run() { "$launcher" $launcher_args "$@" >"$out" 2>"$err"; status=$?; end=$(now_ns); }

# Skips the case (77) when this machine cannot make simulated hosts.
need_hosts() {
  "$launcher" -n 1 --hosts 1 true >/dev/null 2>"$work/probe" && return
  if grep -q 'needs root (CAP_SYS_ADMIN)' "$work/probe"; then
    echo "skip [$kind $case_name]: $(cat "$work/probe")"; exit 77
  fi
  fail "gasket-run --hosts 1 failed: $(cat "$work/probe")"
}
case "$launcher_args $case_name" in *--hosts*|*hosts.*) need_hosts ;; esac

# Starts the launcher in the background, waits until N PEs are mid-run,
# then sends it signal SIG; the clock starts at the signal.
run_then_signal() {
  local sig=$1 n=$2 line; shift 2
  mkfifo "$work/fifo"; exec 3<>"$work/fifo"
  # shellcheck disable=SC2086
  FAULT_FIFO=$work/fifo "$launcher" $launcher_args "$@" >"$out" 2>"$err" & lpid=$!
  for ((i = 0; i < n; i++)); do
    read -r -t 10 -u 3 line || fail "only $i of $n PEs said they were ready"
  done
  start=$(now_ns); kill -"$sig" "$lpid"; { wait "$lpid"; } 2>/dev/null; status=$?; end=$(now_ns); lpid=
  exec 3<&-
}

# usage_check STATUS REGEX ARGS...: a launcher that must refuse at once.
usage_check() {
  local want=$1 regex=$2; shift 2
  "$launcher" "$@" >"$out" 2>"$err"; local got=$?
  [ "$got" = "$want" ] || fail "gasket-run $*: exit status $got, expected $want"
  [ "$regex" = - ] || cat "$out" "$err" | grep -Eq -e "$regex" ||
    fail "gasket-run $*: no output matching /$regex/"
}

expect_status=; expect_line=; quiet=0; limit_ms=5000; lines_ok=
hosts=$(sed -En 's/.*--hosts[= ]*([0-9]+).*/\1/p' <<<"$launcher_args")
start=$(now_ns)
case $case_name in
  kill|nofin|abort|exit3|gkabort|late3|leave|badmagic|badtype|huge|badlen|kill-with-child|segv|exitfin)
    run -n 4 "$prog" "$case_name" ;;
  lockheld|midput|sockets|sockets-stream)
    run -n 4 "$prog" "$case_name" ;;
  ok|plain)   run -n 4 "$prog" "$case_name"; quiet=1 ;;
  plain2)     run -n 4 "$prog" plain2 ;;
  # The victim runs on after closing its socket: a launcher that waits for
  # its exit ends the job only at the --timeout (exit 124).
  closefd)    run -n 4 --timeout 10 "$prog" closefd ;;
  gkabort0)
    # Without the launcher too: the PE's own status is never 0.
    for code in 0 256; do
      env -u FAULT_DIR "$prog" gkabort$code >/dev/null 2>&1; got=$?
      [ "$got" = 1 ] || fail "gk_abort($code) without gasket-run: exit status $got, expected 1"
    done
    run -n 4 "$prog" gkabort0 ;;
  shm-full)
    # A heap 1 GiB larger than /dev/shm has free: refused before any page
    # is taken, however large /dev/shm is. A simulated host's /dev/shm is
    # as large as this one, and empty.
    free_bytes=$(( $(stat -f -c '%a * %S' /dev/shm) ))
    [ -z "$hosts" ] || free_bytes=$(( $(stat -f -c '%b * %S' /dev/shm) ))
    heap=$(( free_bytes + (1 << 30) ))
    GK_HEAP_SIZE=$heap run -n 4 "$prog" shm-full ;;
  oversub)    run -n 32 "$prog" ok; quiet=1 ;;
  bind)       run -n 4 --bind "$prog" bind; quiet=1 ;;
  tag)        run -n 3 --tag "$prog" tag; quiet=1 ;;
  bigtag)     run -n 4 --tag "$prog" bigtag; quiet=1; limit_ms=20000 ;;
  timeout)    if [ "$kind" = fake_pe ]; then t=0.5; else t=1; fi
              run -n 4 --timeout $t "$prog" hang ;;
  timeout-env) GASKET_RUN_TIMEOUT=0.5 run -n 4 "$prog" hang ;;
  stubborn)   run -n 4 --timeout 0.5 "$prog" stubborn ;;
  sigterm)    run_then_signal TERM 4 -n 4 "$prog" hang ;;
  sigint)     run_then_signal INT 4 -n 4 "$prog" hang ;;
  launcher-killed) run_then_signal KILL 4 -n 4 "$prog" hang ;;
  wrapped)
    # PEs that are the launcher's grandchildren (sh -c without exec) must
    # not mistake that for the launcher's death when a wait sleeps.
    run -n 2 sh -c "\"$prog\" slow; exit \$?"; quiet=1 ;;
  bad-n)      run -n 0 "$prog" ok ;;
  no-program) run -n 2 /nonexistent/program ;;
  not-executable)
    touch "$work/plain-file"; mkdir "$work/dir"
    usage_check 126 'cannot run .*/plain-file: Permission denied' -n 2 "$work/plain-file"
    usage_check 126 'cannot run .*/dir: Is a directory' -n 2 "$work/dir"
    usage_check 127 'cannot run no-such-program-here: No such file or directory' \
                -n 2 no-such-program-here
    status=0; end=$(now_ns) ;;
  hosts.*)
    IFS=. read -r _ n k <<<"$case_name"
    run -n "$n" --hosts "$k" "$prog" hosts; quiet=1 ;;
  hosts-usage)
    usage_check 2 '^gasket-run: --hosts 5 is not valid: expected a number of hosts from 1 to 4 \(-n 4\)$' -n 4 --hosts 5 "$prog"
    usage_check 2 '^gasket-run: --hosts 0 is not valid: expected a number of hosts from 1 to 2 \(-n 2\)$' --hosts 0 -n 2 "$prog"
    usage_check 2 '^gasket-run: --hosts 2x is not valid' --hosts=2x -n 2 "$prog"
    usage_check 2 '^gasket-run: --hosts -1 is not valid' --hosts=-1 -n 2 "$prog"
    usage_check 2 '^gasket-run: --hosts  is not valid' --hosts= -n 2 "$prog"
    usage_check 2 '^gasket-run: --hosts needs a number of hosts$' -n 2 --hosts
    usage_check 2 '^gasket-run: -n N is required$' --hosts 2 "$prog"
    usage_check 0 '^  --hosts K ' --help
    [ -z "$(ls "$FAULT_DIR")" ] || fail "a refused job started PEs: $(ls "$FAULT_DIR")"
    status=0; end=$(now_ns) ;;
  hosts-noroot)
    # As root, without CAP_SYS_ADMIN: the capability --hosts needs.
    drop=
    if [ "$(id -u)" = 0 ]; then
      command -v setpriv >/dev/null || { echo "skip: no setpriv to drop CAP_SYS_ADMIN"; exit 77; }
      drop="setpriv --bounding-set -sys_admin"
    fi
    $drop "$launcher" -n 2 --hosts 2 "$prog" ok >"$out" 2>"$err"; status=$?; end=$(now_ns)
    [ -z "$(ls "$FAULT_DIR")" ] || fail "a refused job started PEs: $(ls "$FAULT_DIR")" ;;
  usage)
    usage_check 2 '^gasket-run: -n 0 is not valid: expected a number of PEs from 1 to 4096$' -n 0 "$prog"
    usage_check 2 '^gasket-run: -n 4097 is not valid' -n 4097 "$prog"
    usage_check 2 '^gasket-run: -n 2x is not valid' -n2x "$prog"
    usage_check 2 '^gasket-run: -n needs a number of PEs$' -n
    usage_check 2 '^gasket-run: --np=abc is not valid|^gasket-run: -n abc is not valid' --np=abc "$prog"
    usage_check 2 '^gasket-run: no program to run$' -n 2
    usage_check 2 '^gasket-run: -n N is required$' "$prog"
    usage_check 2 '^gasket-run: unknown option --frobnicate$' --frobnicate -n 2 "$prog"
    usage_check 2 '^usage: gasket-run -n N' --frobnicate -n 2 "$prog"
    usage_check 2 '^gasket-run: --timeout soon is not valid' --timeout soon -n 1 "$prog"
    usage_check 2 '^gasket-run: --timeout -1 is not valid' --timeout=-1 -n 1 "$prog"
    GASKET_RUN_TIMEOUT=never usage_check 2 '^gasket-run: GASKET_RUN_TIMEOUT=never is not valid' -n 1 "$prog"
    usage_check 0 '^usage: gasket-run -n N' --help
    usage_check 0 '^gasket-run \(gasket\) [0-9]+\.[0-9]+\.[0-9]+$' --version
    # Good spellings of the options run the job.
    usage_check 0 - -n2 --timeout=30 "$prog" ok
    usage_check 0 - --np=2 --timeout 0 -- "$prog" ok
    status=0; end=$(now_ns) ;;
  *) echo "unknown case $case_name"; exit 2 ;;
esac
elapsed_ms=$(( (end - start) / 1000000 ))

victim=$(pid_of 1)
case $case_name in
  kill|kill-with-child|lockheld|midput)
           expect_status=137; expect_line="^gasket-run: PE 1 \(pid $victim\) was killed by signal 9 \(SIGKILL\); stopping the job$" ;;
  # A PE whose connection breaks ends the job, naming the PE that saw it.
  # UCX 1.13 may instead fail an assertion of its own when the break
  # catches an endpoint mid-wireup: the PE aborts, and the job still ends.
  # Over libfabric (FAULT_RESET_MAY_HEAL=1) a reset with nothing lost is
  # healed by a new connection, and the job ends well.
  sockets|sockets-stream)
    case $status in
      134) expect_status=134 ;;
      0) if [ "$case_name" = sockets ] && [ "${FAULT_RESET_MAY_HEAL:-0}" = 1 ]; then
           expect_status=0
         else
           expect_status=1
         fi ;;
      *) expect_status=1 ;;
    esac
    [ "$expect_status" = 0 ] ||
           expect_line='^gasket-run: PE [0-9]+ (called gk_abort\(1\): a network connection failed|\(pid [0-9]+\) was killed by signal 6 \(SIGABRT\)); stopping the job$' ;;
  nofin)   expect_status=1;   expect_line="^gasket-run: PE 1 \(pid $victim\) exited without calling gk_finalize; stopping the job$" ;;
  abort)   expect_status=134; expect_line="^gasket-run: PE 1 \(pid $victim\) was killed by signal 6 \(SIGABRT\); stopping the job$" ;;
  segv)    expect_status=139; expect_line="^gasket-run: PE 1 \(pid $victim\) was killed by signal 11 \(SIGSEGV\); stopping the job$" ;;
  exit3)   expect_status=3;   expect_line="^gasket-run: PE 1 \(pid $victim\) exited with status 3 before gk_finalize; stopping the job$" ;;
  plain2)  expect_status=2;   expect_line="^gasket-run: PE 1 \(pid $victim\) exited with status 2; stopping the job$" ;;
  closefd) expect_status=1;   expect_line="^gasket-run: PE 1 \(pid $victim\) closed its connection to the launcher before gk_finalize; stopping the job$" ;;
  shm-full) expect_status=1;  expect_line='^gasket-run: PE [0-3] \(pid [0-9]+\) exited with status 1 before gk_finalize; stopping the job$' ;;
  # The job ends with the status EXIT gave, though a finalized PE exits 1.
  exitfin) expect_status=0;   expect_line='^gasket-run: PE 3 ended the job with status 0: the fault test ends the job; stopping the job$' ;;
  gkabort) expect_status=5;   expect_line='^gasket-run: PE 1 called gk_abort\(5\): the fault test asked for it; stopping the job$' ;;
  gkabort0) expect_status=1;  expect_line='^gasket-run: PE 1 called gk_abort\(0\): the fault test asked for it; stopping the job$' ;;
  leave)   expect_status=1;   expect_line="^gasket-run: PE 1 \(pid $victim\) exited while other PEs wait for it in a bootstrap exchange; stopping the job$" ;;
  badmagic) expect_status=1;  expect_line="^gasket-run: PE 1 \(pid $victim\) sent a malformed bootstrap message \(magic 0xdeadbeef, type 2, 8 bytes\); stopping the job$" ;;
  badtype) expect_status=1;   expect_line="^gasket-run: PE 1 \(pid $victim\) sent a malformed bootstrap message \(magic 0x676b6c6d, type 9, 0 bytes\); stopping the job$" ;;
  huge)    expect_status=1;   expect_line="^gasket-run: PE 1 \(pid $victim\) sent a malformed bootstrap message \(magic 0x676b6c6d, type 2, 1073741824 bytes\); stopping the job$" ;;
  badlen)  expect_status=1;   expect_line='^gasket-run: PE (1 sent 16 bytes to an exchange where PE [023] sent 4|[023] sent 4 bytes to an exchange where PE 1 sent 16); stopping the job$' ;;
  ok|plain|oversub|bind|tag|bigtag|wrapped|hosts.*) expect_status=0 ;;
  hosts-noroot) expect_status=1; expect_line='^gasket-run: --hosts needs root \(CAP_SYS_ADMIN\) to give each simulated host its own namespaces: unshare\(CLONE_NEWUTS\|CLONE_NEWIPC\|CLONE_NEWNS\) failed: Operation not permitted$' ;;
  late3)   expect_status=3; quiet=1 ;;
  timeout) expect_status=124; expect_line="^gasket-run: job exceeded --timeout $t s; stopping the job$"; limit_ms=$(( ${t%.*} * 1000 + 1500 )) ;;
  timeout-env) expect_status=124; expect_line='^gasket-run: job exceeded --timeout 0.5 s; stopping the job$'; limit_ms=2000 ;;
  # The PEs ignore SIGTERM: the launcher must SIGKILL them a second later.
  stubborn) expect_status=124; expect_line='^gasket-run: job exceeded --timeout 0.5 s; stopping the job$'; limit_ms=3000 ;;
  sigterm) expect_status=143; expect_line='^gasket-run: received SIGTERM; passing it to every PE and stopping the job$'; limit_ms=2000 ;;
  sigint)  expect_status=130; expect_line='^gasket-run: received SIGINT; passing it to every PE and stopping the job$'; limit_ms=2000 ;;
  launcher-killed) expect_status=137 ;;
  bad-n)   expect_status=2;   expect_line='^gasket-run: -n 0 is not valid: expected a number of PEs from 1 to 4096$' ;;
  no-program) expect_status=127; expect_line='^gasket-run: cannot run /nonexistent/program: No such file or directory$' ;;
  usage|not-executable|hosts-usage) expect_status=0 ;;
esac

[ "$status" = "$expect_status" ] || fail "exit status $status, expected $expect_status"
if [ "$expect_status" = 0 ] && grep -q 'gasket\[PE [0-9?]*\] error' "$err"; then
  fail "a job that should succeed logged an error"
fi
if [ -n "$expect_line" ]; then
  grep -Eq -e "$expect_line" "$err" || fail "no line matching /$expect_line/ on stderr"
  [ "$(grep -c '^gasket-run: ' "$err")" -eq 1 ] || fail "expected exactly one gasket-run line"
elif [ $quiet = 1 ] && grep -q '^gasket-run: ' "$err"; then
  fail "gasket-run said something about a job that went as planned"
fi
[ "$elapsed_ms" -le "$limit_ms" ] || fail "took ${elapsed_ms} ms, limit ${limit_ms} ms"
# From the victim's failure to the launcher's exit: well under 2 s.
if [ -f "$FAULT_DIR/death" ]; then
  react_ms=$(( (end - $(cat "$FAULT_DIR/death")) / 1000000 ))
  [ "$react_ms" -lt 2000 ] || fail "the launcher exited ${react_ms} ms after the PE failed"
  elapsed_ms="$elapsed_ms ms, ${react_ms}"
  react_note=" after the failure"
fi

case "$kind:$case_name" in
  fault_pe:tag)
    for r in 0 1 2; do grep -q "^\[PE $r\] fault_pe PE $r pid" "$out" || fail "no tagged line for PE $r"; done ;;
  fake_pe:tag)
    for r in 0 1 2; do
      for l in "out one from $r" "out two from $r" "out partial from $r"; do
        grep -qx "\[PE $r\] $l" "$out" || fail "stdout lacks '[PE $r] $l'"
      done
      for l in "err one from $r" "err partial from $r"; do
        grep -qx "\[PE $r\] $l" "$err" || fail "stderr lacks '[PE $r] $l'"
      done
    done
    [ "$(wc -l <"$out")" -eq 9 ] || fail "expected 9 lines on stdout"
    [ "$(wc -l <"$err")" -eq 6 ] || fail "expected 6 lines on stderr" ;;
  *:bigtag)
    [ "$(grep -Ec '^\[PE ([0-3])\] big \1 line [0-9]{5} \.+$' "$out")" -eq $((4 * 8192)) ] ||
      fail "expected $((4 * 8192)) whole tagged lines" ;;
  *:bind)
    [ "$(grep -c 'bound to CPU' "$out")" -eq 4 ] || fail "not every PE checked its binding" ;;
  fault_pe:shm-full)
    # Every PE says how much it wanted and how much there was (each logs
    # before the exchange that lets any of them fail, and exit). A node is
    # a simulated host under --hosts (K of 1, 2 or 4). The runtime's area
    # before the heap (2 to 3 MiB at 4 PEs, by the teams' windows and
    # whether the job spans hosts: mem/segment.h) is read from the lines.
    node_pes=$(( 4 / ${hosts:-1} )) mib=$(( 1 << 20 ))
    said=0
    if [ "$node_pes" = 1 ]; then
      pat="^gasket\[PE [0-3]\] error: this PE needs ([0-9]+) MiB of /dev/shm \(GK_HEAP_SIZE=$heap and the runtime's ([0-9]+) KiB\) but it has [0-9]+ MiB free; lower GK_HEAP_SIZE or enlarge /dev/shm$"
      for pair in $(grep -E "$pat" "$err" | sed -E "s|$pat|\1:\2|"); do
        each_mib=${pair%%:*} area_kib=${pair##*:}
        [ "$area_kib" -ge 1024 ] && [ "$area_kib" -le 8192 ] || fail "runtime's area $area_kib KiB"
        [ "$each_mib" -eq $(( (heap + (area_kib << 10) + mib - 1) / mib )) ] ||
          fail "$each_mib MiB for GK_HEAP_SIZE=$heap and $area_kib KiB"
        said=$(( said + 1 ))
      done
    else
      pat="^gasket\[PE [0-3]\] error: the $node_pes PEs of this node need ([0-9]+) MiB of /dev/shm \(([0-9]+) MiB each for GK_HEAP_SIZE=$heap\) but it has [0-9]+ MiB free; lower GK_HEAP_SIZE or enlarge /dev/shm$"
      for pair in $(grep -E "$pat" "$err" | sed -E "s|$pat|\1:\2|"); do
        need_mib=${pair%%:*} each_mib=${pair##*:}
        [ "$each_mib" -ge $(( heap / mib + 2 )) ] && [ "$each_mib" -le $(( heap / mib + 9 )) ] ||
          fail "$each_mib MiB each for GK_HEAP_SIZE=$heap"
        [ "$need_mib" -gt $(( node_pes * (each_mib - 1) )) ] &&
          [ "$need_mib" -le $(( node_pes * each_mib )) ] ||
          fail "$need_mib MiB for $node_pes PEs of $each_mib MiB"
        said=$(( said + 1 ))
      done
    fi
    [ "$said" -eq 4 ] || fail "$said of 4 PEs said how much /dev/shm they needed and had" ;;
esac

# Under --hosts: the PEs of a host shared its namespaces, other hosts' PEs
# and this script did not.
host_ids=
for f in "$FAULT_DIR"/ns.*; do
  [ -e "$f" ] || continue
  read -r host ids <"$f"
  [ -n "$ids" ] || fail "$f is empty"
  for g in "$FAULT_DIR"/ns.*; do
    read -r other other_ids <"$g"
    [ "$host" = "$other" ] && [ "$ids" != "$other_ids" ] &&
      fail "${f##*/} and ${g##*/} are on $host but in different namespaces"
    [ "$host" != "$other" ] && [ "$ids" = "$other_ids" ] &&
      fail "${f##*/} ($host) and ${g##*/} ($other) are in the same namespaces"
  done
  for id in $ids; do
    [ "$id" != "$(readlink "/proc/$$/ns/${id%%:*}")" ] || fail "${f##*/} ran in this script's $id"
    host_ids="$host_ids$id"$'\n'
  done
done
[ -z "$hosts" ] || [ -n "$host_ids" ] ||
  [ -z "$(ls "$FAULT_DIR"/pid.* 2>/dev/null)" ] || fail "PEs under --hosts noted no namespaces"
# What is still in or on a simulated host: the launcher (or a child of it
# that set a host up), a PE; a descriptor of a host's namespace. Processes
# the PEs started may outlive the job (kill-with-child) and are no concern
# here, as without --hosts.
host_leftovers() {
  [ -n "$host_ids" ] || return 0
  local p comm id
  for p in /proc/[0-9]*; do
    comm=$(cat "$p/comm" 2>/dev/null) || continue
    case $comm in gasket-run|fake_pe|fault_pe) ;; *) continue ;; esac
    for id in $(readlink "$p/ns/uts" "$p/ns/ipc" "$p/ns/mnt" 2>/dev/null); do
      if grep -qxF -e "$id" <<<"$host_ids"; then echo " ${p#/proc/} ($comm) in $id"; break; fi
    done
  done
  find /proc/[0-9]*/fd -mindepth 1 -maxdepth 1 \( -lname 'uts:*' -o -lname 'ipc:*' -o -lname 'mnt:*' \) \
       -printf '%h %l\n' 2>/dev/null | while read -r dir id; do
    if grep -qxF -e "$id" <<<"$host_ids"; then echo " ${dir%/fd} holds $id open"; fi
  done
}

key=$(cat "$FAULT_DIR/key" 2>/dev/null || echo no-job)
# No PE may outlive the job. After a launcher killed with SIGKILL the PEs
# die through PR_SET_PDEATHSIG, and the clean-up helper removes the
# segments, both a moment later: poll for that, for up to 3 s.
deadline=$(( $(now_ns) + 3000000000 ))
while :; do
  alive=
  for f in "$FAULT_DIR"/pid.*; do
    [ -e "$f" ] || continue
    pid=$(cat "$f")
    # A zombie waiting for its new parent to reap it is dead enough.
    if kill -0 "$pid" 2>/dev/null && ! grep -q '^[0-9]* ([^)]*) Z' "/proc/$pid/stat" 2>/dev/null; then
      alive="$alive $pid"
    fi
  done
  # New names of this job's key are a leak; new names of other keys belong
  # to other jobs running on this machine at the same time.
  new=$(comm -13 <(echo "$shm_before") <(shm_list) | grep . || true)
  others=$(echo "$new" | grep -v "^gk-$key-" || true)
  new=$(echo "$new" | grep "^gk-$key-" || true)
  in_host=$(host_leftovers)
  [ -z "$alive" ] && [ -z "$new" ] && [ -z "$in_host" ] && break
  if [ "$case_name" != launcher-killed ] || [ "$(now_ns)" -gt "$deadline" ]; then
    [ -z "$alive" ] || fail "PEs still running after the job ended:$alive"
    [ -z "$in_host" ] || fail "simulated hosts outlived the job:$in_host"
    fail "left in /dev/shm: $new"
  fi
  sleep 0.02
done
[ -z "$others" ] || echo "note: /dev/shm gained names of other jobs:" $others
echo "ok [$kind $case_name]: status $status in $elapsed_ms ms${react_note:-}"
