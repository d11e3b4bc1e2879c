#!/usr/bin/python3
"""TorchScript baseline for the flowvm while-loop benchmark.

Scripts `i = 0; while i < n: i = i + 1` on 0-d int32 tensors (the same loop as
BM_WhileLoop in control_flow_bench.cc), runs it with one intra-op thread and
prints one JSON object with the time per iteration in nanoseconds: the time
of n iterations less the time of 0, over n.

    /usr/bin/python3 bench/torch_while.py [--iters 10000] [--rounds 7]

It uses Debian's python3-torch (the /usr/bin/python3 interpreter).
"""
import argparse
import json
import statistics
import time

import torch


@torch.jit.script
def count(n: torch.Tensor) -> torch.Tensor:
    i = torch.zeros([], dtype=torch.int32)
    while bool(i < n):
        i = i + 1
    return i


def seconds(n, reps):
    t0 = time.perf_counter()
    for _ in range(reps):
        count(n)
    return (time.perf_counter() - t0) / reps


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--iters", type=int, default=10000)
    p.add_argument("--rounds", type=int, default=7)
    a = p.parse_args()
    torch.set_num_threads(1)
    n = torch.tensor(a.iters, dtype=torch.int32)
    zero = torch.tensor(0, dtype=torch.int32)
    assert int(count(n)) == a.iters
    for _ in range(3):
        count(n)
    per_iter = []
    for _ in range(a.rounds):
        per_iter.append((seconds(n, 5) - seconds(zero, 50)) / a.iters)
    print(json.dumps({"torchscript_ns_per_iteration": statistics.median(per_iter) * 1e9,
                      "torchscript_ns_per_iteration_min": min(per_iter) * 1e9,
                      "iters": a.iters, "torch": torch.__version__}))


if __name__ == "__main__":
    main()
