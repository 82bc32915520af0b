#!/bin/sh
# `make demo`: starts the test target server on a free loopback port, runs
# volley against it for a few seconds (a closed loop, then the open model at
# a fixed rate), prints the reports, stops the server.
set -eu
build=${1:-build}
dir=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$dir"' EXIT
"$build/volley-target" --quiet --max-seconds 60 --port-file "$dir/port" > /dev/null &
pid=$!
i=0
while [ ! -s "$dir/port" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
port=$(cat "$dir/port")
echo "volley -c 50 -d 3s http://127.0.0.1:$port/"
"$build/volley" -c 50 -d 3s "http://127.0.0.1:$port/"
echo
echo "volley -R 2000 -d 2s -c 20 http://127.0.0.1:$port/"
"$build/volley" -R 2000 -d 2s -c 20 "http://127.0.0.1:$port/"
