#!/bin/sh
# scripts/watchdog.sh SECONDS COMMAND...: runs COMMAND; still running after
# SECONDS, every process under it has its threads' stacks printed (gdb) and
# is killed, and the watchdog fails. CI runs its test phases under it, so a
# hung test ends the run within minutes with what hung, never silently at
# CI's own limit. The bound is for failures only: no healthy run nears it.
set -u
limit=$1
shift
"$@" &
command=$!

# The processes under PID, deepest last.
descendants() {
    for child in $(ps -o pid= --ppid "$1"); do
        echo "$child"
        descendants "$child"
    done
}

(
    # A sleep, not an event: the event is the command's end, which ends this watcher.
    sleep "$limit"
    echo "watchdog: '$*' still running after $limit s; every process under it:" >&2
    for pid in $command $(descendants "$command"); do
        echo "watchdog: process $pid: $(tr '\0' ' ' < /proc/"$pid"/cmdline 2>/dev/null)" >&2
        # Then its buffered output flushed: a test runner's last lines
        # wait in a stdio buffer when its output is a pipe or file.
        timeout 60 gdb -p "$pid" -batch -nx -ex "set pagination off" -ex "thread apply all bt 40" -ex "call (int)fflush(0)" >&2 2>&1 < /dev/null
    done
    for pid in $command $(descendants "$command"); do kill -9 "$pid" 2>/dev/null; done
) &
watcher=$!
wait "$command"
status=$?
# The watcher ended first, then its sleep (its end would wake the watcher).
sleeper=$(ps -o pid= --ppid "$watcher")
kill "$watcher" 2>/dev/null
[ -n "$sleeper" ] && kill $sleeper 2>/dev/null
exit "$status"
