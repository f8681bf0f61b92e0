#!/usr/bin/env bash
# The bundled reference server (boris dialect), deliberately wrong on every other
# start: it keeps the number of starts in the file COUNTER, and each even start
# serves the `wrong-code` mutation. A scenario run several times one after another
# therefore gets different verdicts, as with a server that is flaky.
# usage: flaky.sh COUNTER TOOLSPEC ROOT
counter=${1:?usage: flaky.sh COUNTER TOOLSPEC ROOT}
exe=${2:?usage: flaky.sh COUNTER TOOLSPEC ROOT}
root=${3:?usage: flaky.sh COUNTER TOOLSPEC ROOT}
# Under a lock beside it: starts made at once (`run`'s warm spares) each get a
# number of their own.
exec 9>>"$counter.lock"
flock 9
starts=$(( $(cat "$counter" 2>/dev/null || echo 0) + 1 ))
echo "$starts" > "$counter"
exec 9>&-
if [ $((starts % 2)) -eq 0 ]; then
  exec "$exe" reference-server --dialect boris --root "$root" --mutate wrong-code
fi
exec "$exe" reference-server --dialect boris --root "$root"
