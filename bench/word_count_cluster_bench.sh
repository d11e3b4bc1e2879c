#!/usr/bin/env bash
# Word count throughput (MB/s of text): flowvm_word_count's map-reduce graph
# (examples/word_count.cc) in one process and on a local cluster of server
# processes (`flowvm cluster up --ps 0 --workers W`), against Python's
# collections.Counter over the same files in the same run.
#
#   bash bench/word_count_cluster_bench.sh [BUILD_DIR]     # default: build
#
# Environment: MB=48 (corpus size), FILES=8, WORKERS=2 (cluster tasks, one
# mapper each), REPS=3 (each figure is the best of REPS runs; the median is
# shown beside it), NO_BUILD=1 to skip building flowvm_cli and
# flowvm_word_count.
#
# The corpus: words "w<rank>" with ranks drawn from a Zipf-like law over a
# 100,000-word vocabulary (the product of two uniforms, as in
# bench/word_count_bench.cc), 12 words a line, cut into FILES files.
# Python reads each file as bytes and runs Counter.update(data.split())
# (bytes.split() splits on ASCII whitespace, as StringSplitV2 does);
# flowvm_word_count reports the seconds from its start (after parsing flags)
# to the last count, so both figures leave out process start-up and both
# include reading the files. The script checks that both count the same.
set -euo pipefail

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo_root"
build_dir=${1:-build}
mb=${MB:-48}
files=${FILES:-8}
workers=${WORKERS:-2}
reps=${REPS:-3}
if [[ "${NO_BUILD:-0}" != 1 ]]; then
  ninja -C "$build_dir" flowvm_cli flowvm_word_count >&2
fi
wc_bin="$build_dir/examples/flowvm_word_count"
cli="$build_dir/flowvm"
[[ -x "$wc_bin" && -x "$cli" ]] || { echo "word_count_cluster_bench.sh: build $wc_bin and $cli first" >&2; exit 1; }

tmp=$(mktemp -d)
cleanup() {
  "$cli" cluster down --dir "$tmp/cluster" >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT

echo "word_count_cluster_bench.sh: writing a ${mb} MB corpus in $files files" >&2
python3 - "$tmp/corpus" "$mb" "$files" <<'PY'
import os, random, sys
out, mb, files = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
os.makedirs(out)
rng = random.Random(1)
vocab = 100000
per_file = mb * 1000 * 1000 // files
for f in range(files):
    # Lines of 12 words, built in blocks for speed.
    with open(os.path.join(out, f"part-{f:03d}.txt"), "w") as o:
        written = 0
        while written < per_file:
            ranks = [rng.randrange(vocab) * rng.randrange(vocab) // vocab for _ in range(12 * 1000)]
            block = "\n".join(" ".join("w%d" % r for r in ranks[i:i + 12]) for i in range(0, len(ranks), 12)) + "\n"
            o.write(block)
            written += len(block)
PY
bytes=$(du -cb "$tmp"/corpus/* | tail -1 | cut -f1)

echo "word_count_cluster_bench.sh: starting a cluster of $workers workers" >&2
# Started from $tmp: a server's graphs may touch files only under its
# working directory (its default --allow-dir), and the corpus is there.
cli_abs=$(cd "$(dirname "$cli")" && pwd)/$(basename "$cli")
target=$(cd "$tmp" && "$cli_abs" cluster up --ps 0 --workers "$workers" --dir "$tmp/cluster" 2>/dev/null)

python3 - "$tmp" "$wc_bin" "$target" "$reps" "$bytes" "$workers" <<'PY'
import collections, glob, os, re, statistics, subprocess, sys, time

tmp, wc_bin, target, reps, nbytes, workers = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
files = sorted(glob.glob(os.path.join(tmp, "corpus", "*")))

def python_counter():
    start = time.perf_counter()
    c = collections.Counter()
    for f in files:
        with open(f, "rb") as fh:
            c.update(fh.read().split())
    return time.perf_counter() - start, c

def flowvm(args, output=None):
    cmd = [wc_bin, "--dir", os.path.join(tmp, "corpus"), "--top", "0", "--no-progress"] + args
    if output:
        cmd += ["--output", output]
    wall = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - wall
    if r.returncode != 0:
        sys.exit(f"word_count_cluster_bench.sh: {' '.join(cmd)} failed: {r.stderr}")
    m = re.search(r"counted .* in ([0-9.]+) s", r.stdout)
    return float(m.group(1)), wall

configs = [
    ("flowvm_word_count, in this process, 1 mapper", ["--workers", "1"]),
    ("flowvm_word_count, in this process, 2 mappers", ["--workers", "2"]),
    (f"flowvm_word_count, cluster of {workers} worker processes", ["--target", target]),
]
# Same answer as Counter (checked once, outside the timed runs).
secs, counter = python_counter()
expected = {w.decode(): n for w, n in counter.items()}
for label, args in configs:
    out = os.path.join(tmp, "counts.tsv")
    flowvm(args, out)
    got = {}
    with open(out) as fh:
        for line in fh:
            w, n = line.rstrip("\n").split("\t")
            got[w] = int(n)
    if got != expected:
        sys.exit(f"word_count_cluster_bench.sh: {label} disagrees with Counter")

times = {"python3 collections.Counter": [], **{label: [] for label, _ in configs}}
walls = {label: [] for label in times}
for _ in range(reps):  # interleaved
    t0 = time.perf_counter()
    s, _ = python_counter()
    times["python3 collections.Counter"].append(s)
    walls["python3 collections.Counter"].append(s)  # in-process: no start-up to add
    for label, args in configs:
        s, wall = flowvm(args)
        times[label].append(s)
        walls[label].append(wall)

mb = nbytes / 1e6
py_best = min(times["python3 collections.Counter"])
rows = []
for label in times:
    best, med = min(times[label]), statistics.median(times[label])
    rows.append((label, f"{best:.3f}", f"{mb / best:.1f}", f"{mb / med:.1f}", f"{min(walls[label]):.3f}",
                 f"{py_best / best:.2f}"))
hdr = ("run", "best s", "MB/s (best)", "MB/s (median)", "process wall s", "speed vs Counter")
w = [max(len(r[i]) for r in rows + [hdr]) for i in range(len(hdr))]
print(f"corpus: {len(files)} files, {mb:.1f} MB, {sum(counter.values()):,} words, {len(counter):,} distinct; "
      f"{reps} runs each, interleaved; all four counts equal")
print("  ".join(h.ljust(w[i]) if i == 0 else h.rjust(w[i]) for i, h in enumerate(hdr)))
print("  ".join("-" * x for x in w))
for r in rows:
    print("  ".join(c.ljust(w[i]) if i == 0 else c.rjust(w[i]) for i, c in enumerate(r)))
print(f"machine: nproc={os.cpu_count()}, load average {os.getloadavg()[0]:.2f} at the end")
PY
lscpu | grep -E '^(Model name|CPU\(s\)|Thread|Core|Socket)' | sed 's/  */ /g'
