#!/usr/bin/env bash
# The board's page loads in headless chromium against the real server:
# 100 runs x 10,000 scalar points (target: the scalars page in < 1 s) and a
# 10,159-node graph (target: the graph page in < 2 s). Each sample is a
# fresh page load, from navigation start to the page's "drawn" marker
# (body[data-ready]); bench/board/README.md says what the inputs are.
#
#   bash bench/run_board_bench.sh [BUILD_DIR]      # default: build
#
# Environment: REPEAT=5 (page loads of each page).
set -euo pipefail

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo_root"
build_dir=${1:-build}
flowvm="$build_dir/flowvm"
[[ -x $flowvm ]] || { echo "run_board_bench.sh: $flowvm not found (build first)" >&2; exit 1; }

tmp=$(mktemp -d)
board_pid=
cleanup() {
  [[ -n $board_pid ]] && kill "$board_pid" 2>/dev/null && wait "$board_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT

node bench/board/make_board_bench_logs.mjs "$tmp" >&2
"$flowvm" board --logdir "$tmp/logs" --graph "$tmp/graph.pbtxt" --port 0 > "$tmp/board.out" 2>&1 &
board_pid=$!
url=
for _ in $(seq 600); do
  url=$(sed -n 's/^flowvm board: serving .* at \(http:[^ ]*\)$/\1/p' "$tmp/board.out")
  [[ -n $url ]] && break
  kill -0 "$board_pid" 2>/dev/null || { cat "$tmp/board.out" >&2; exit 1; }
  sleep 0.1
done
[[ -n $url ]] || { echo "run_board_bench.sh: the board printed no URL in 60 s" >&2; exit 1; }
# The board reads the logdir in the background: wait until all 100 runs
# have their 10,000 points, so that the pages are timed, not the reading.
for _ in $(seq 600); do
  n=$(node -e 'fetch(process.argv[1]).then(r => r.text()).then(t => console.log((t.match(/"seen":10000/g) || []).length)).catch(() => console.log(0))' \
    "${url}api/scalars?tag=loss&max_points=1")
  [[ $n -ge 100 ]] && break
  sleep 0.1
done
node bench/board/board_bench.mjs --url "$url" --repeat "${REPEAT:-5}"
