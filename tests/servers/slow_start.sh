#!/bin/sh
# The bundled reference server, started after a sleep: a server that takes
# seconds to answer `initialize`, as one that loads a model or runs `npx` does,
# for the start time `record` learns and the warm spares of `run` and `explore`
# (issue 46 item 5). With --log, each start first appends `begin NANOSECONDS`
# to FILE, so a test can see starts overlap.
#
# usage: slow_start.sh [--log FILE] SECONDS REFERENCE-SERVER-ARGS...
if [ "$1" = "--log" ]; then
    echo "begin $(date +%s%N)" >> "$2"
    shift 2
fi
delay=$1
shift
sleep "$delay"
exec toolspec reference-server "$@"
