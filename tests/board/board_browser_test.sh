#!/usr/bin/env bash
# ctest board_browser: the README's path, end to end, in a real browser.
# `flowvm board` starts on a free loopback port, on a log directory that a
# short digits training run on two CPU devices then creates and writes
# (scalars, weight histograms, input images, step traces with Send/Recv,
# the graph) while the board reads it; board_browser_test.mjs
# drives Debian's chromium through every page and checks it against the
# event files, saving screenshots under ARTIFACTS.
#
#   bash tests/board/board_browser_test.sh FLOWVM_BIN DIGITS_BIN ARTIFACTS_DIR
#
# Every process it starts is stopped on exit, also on failure; every wait is
# bounded.
set -euo pipefail
flowvm=$1 digits=$2 artifacts=$3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

tmp=$(mktemp -d "${TMPDIR:-/tmp}/flowvm-board-test.XXXXXX")
board_pid=
cleanup() {
  if [[ -n $board_pid ]]; then
    kill "$board_pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$board_pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$board_pid" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT

"$flowvm" board --logdir "$tmp/logs" --port 0 --reload-ms 200 > "$tmp/board.out" 2>&1 &
board_pid=$!
url=
for _ in $(seq 300); do
  url=$(sed -n 's/^flowvm board: serving .* at \(http:[^ ]*\)$/\1/p' "$tmp/board.out")
  [[ -n $url ]] && break
  kill -0 "$board_pid" 2>/dev/null || { echo "flowvm board exited:"; cat "$tmp/board.out"; exit 1; }
  sleep 0.1
done
[[ -n $url ]] || { echo "flowvm board printed no URL within 30 s:"; cat "$tmp/board.out"; exit 1; }

# The board was started first, on a log directory that does not exist yet:
# it must find the run when training creates it and read the event file
# while it grows, as it does for someone watching a run.
timeout 300 "$digits" --steps 240 --cpu-devices 2 --logdir "$tmp/logs/digits" \
  --histogram-every 20 --trace-every 100 --no-progress

# The board has read the whole file once it serves the last events written
# (the test results, at the end); wait for that, within a bound.
node -e '
  const url = process.argv[1] + "api/scalars?tag=test_loss";
  const deadline = Date.now() + 30000;
  (async () => {
    for (;;) {
      const r = await fetch(url).catch(() => null);
      if (r && r.ok) return;
      if (Date.now() > deadline) { console.error("the board did not read the finished run within 30 s"); process.exit(1); }
      await new Promise((done) => setTimeout(done, 100));
    }
  })();' "$url"

mkdir -p "$artifacts"
timeout 300 node "$here/board_browser_test.mjs" --url "$url" --logdir "$tmp/logs" --artifacts "$artifacts"
