#!/usr/bin/env bash
# Starts a throwaway PostgreSQL server on 127.0.0.1 for the tests (initdb and pg_ctl from Debian's postgresql
# package, run as an unprivileged user: PostgreSQL refuses root) and prints its URL. Idempotent: a server already
# answering on the port is reused, and a stopped one whose folder is still there is started again with its data.
# Up to 1000 connections: the tests run many servers and pools at once (two cores, every suite in parallel).
# Usage: Tools/ci/start-postgres.sh  →  postgres://opencat:…@127.0.0.1:15432/opencat_test
#        Tools/ci/start-postgres.sh stop   (stops it, keeping its folder; OPENCAT_PG_PORT / OPENCAT_PG_DIR pick another)
set -euo pipefail
# The server outlives this script: it must not inherit the caller's descriptors (a build lock taken with flock, the
# pipe of a $(…) capture), or it would hold them until it stops.
for fd in /proc/$$/fd/*; do fd=${fd##*/}; if [ "$fd" -gt 2 ]; then eval "exec $fd>&-"; fi; done 2>/dev/null || true
# 15432: below Linux's ephemeral range (32768–60999), so no client socket and no test server on port 0 can hold it
# while PostgreSQL is down (55432, the old port, was taken that way between two runs of the test command).
port="${OPENCAT_PG_PORT:-15432}"
data="${OPENCAT_PG_DIR:-/tmp/opencat-pg-$port}"
password="opencat-test-only"
url="postgres://opencat:$password@127.0.0.1:$port/opencat_test"
bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -n "$bindir" ] || { echo "start-postgres: PostgreSQL is not installed (apt-get install postgresql)" >&2; exit 1; }
user=$(id -un)
as_user() { "$@"; }
if [ "$(id -u)" = 0 ]; then
    user=opencatpg
    id "$user" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$user"
    as_user() { runuser -u "$user" -- "$@"; }
fi
if [ "${1:-start}" = stop ]; then
    if [ -f "$data/PG_VERSION" ]; then as_user "$bindir/pg_ctl" -D "$data" -m fast -w stop >/dev/null 2>&1 || true; fi
    exit 0
fi
# Starts the server; a port still held by a closing socket is retried for a few seconds before giving up.
start_server() {
    local attempt
    for attempt in 1 2 3 4 5; do
        as_user "$bindir/pg_ctl" -D "$data" -l "$data/server.log" -w -o "-c listen_addresses=127.0.0.1 -p $port \
-c unix_socket_directories=$data -c fsync=off -c max_connections=1000" start >/dev/null && return 0
        [ "$attempt" = 5 ] || sleep 2
    done
    echo "start-postgres: PostgreSQL did not start on 127.0.0.1:$port (see $data/server.log)" >&2
    return 1
}
if "$bindir/pg_isready" -q -h 127.0.0.1 -p "$port"; then echo "$url"; exit 0; fi
if [ -f "$data/PG_VERSION" ] && [ -f "$data.pw" ]; then
    start_server
    echo "$url"
    exit 0
fi
rm -rf "$data" && mkdir -p "$data" && chmod 700 "$data"
[ "$(id -u)" = 0 ] && chown "$user" "$data"
printf '%s\n' "$password" > "$data.pw" && chmod 600 "$data.pw"
[ "$(id -u)" = 0 ] && chown "$user" "$data.pw"
as_user "$bindir/initdb" -D "$data" -U opencat --auth=scram-sha-256 --pwfile="$data.pw" >/dev/null
start_server
PGPASSWORD="$password" "$bindir/createdb" -h 127.0.0.1 -p "$port" -U opencat opencat_test
echo "$url"
