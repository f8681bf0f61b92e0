#!/bin/sh
# The bundled reference server, started after a sleep: a server that takes
# seconds to answer `initialize`, as one that loads a model or runs `npx` does,
# for the start time `record` learns and the warm spares of `run` and `explore`
# (issue 46 item 5).
#
# usage: slow_start.sh SECONDS REFERENCE-SERVER-ARGS...
delay=$1
shift
sleep "$delay"
exec toolspec reference-server "$@"
