#!/usr/bin/python3
"""TorchScript baseline for the flowvm executor chain benchmark.

Builds a straight-line TorchScript function of N statements `x = x + c` on
0-d float32 tensors (the same computation as BM_Chain in executor_bench.cc:
x0 = 1, c = 1, fetch x_N), runs it with one intra-op thread, and prints one
JSON object with the time per op in nanoseconds.

    /usr/bin/python3 bench/torch_chain.py [--nodes 10000] [--reps 200]

It uses Debian's python3-torch (the /usr/bin/python3 interpreter).
"""
import argparse
import json
import statistics
import threading
import time

import torch


def build_chain(n):
    lines = ["def chain(x: torch.Tensor, c: torch.Tensor) -> torch.Tensor:"]
    lines += ["    x = x + c"] * n
    lines.append("    return x")
    src = "\n".join(lines) + "\n"
    # torch.jit.script needs the function's source file; CompilationUnit
    # compiles the generated source text directly.
    cu = torch.jit.CompilationUnit(src)
    scope = {"torch": torch, "__name__": "torch_chain_generated"}
    exec(compile(src, "<chain>", "exec"), scope)
    return cu.chain, scope["chain"]


def time_fn(fn, x, c, reps, rounds):
    """Median over `rounds` of the mean time of `reps` calls, in seconds."""
    per_call = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(reps):
            fn(x, c)
        per_call.append((time.perf_counter() - t0) / reps)
    return statistics.median(per_call), min(per_call)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=10000)
    ap.add_argument("--reps", type=int, default=50, help="calls per timing round")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--no-eager", action="store_true", help="skip the eager-mode reference")
    args = ap.parse_args()

    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    x = torch.tensor(1.0, dtype=torch.float32)
    c = torch.tensor(1.0, dtype=torch.float32)

    t0 = time.perf_counter()
    scripted, eager = build_chain(args.nodes)
    compile_s = time.perf_counter() - t0

    result = {"nodes": args.nodes, "torch_version": torch.__version__, "threads": torch.get_num_threads(),
              "script_compile_s": round(compile_s, 3)}
    with torch.inference_mode():
        # Warm-up: the profiling executor specialises the graph on the first
        # calls; later calls run the optimised plan.
        for _ in range(5):
            out = scripted(x, c)
        assert float(out) == 1.0 + args.nodes, float(out)
        graph = scripted.graph_for(x, c) if hasattr(scripted, "graph_for") else scripted.graph
        result["script_graph_adds"] = str(graph).count("aten::add")
        med, best = time_fn(scripted, x, c, args.reps, args.rounds)
        result["torchscript_ns_per_op"] = med * 1e9 / args.nodes
        result["torchscript_ns_per_op_best"] = best * 1e9 / args.nodes
        result["torchscript_us_per_call"] = med * 1e6
        if not args.no_eager:
            for _ in range(2):
                eager(x, c)
            med, best = time_fn(eager, x, c, max(1, args.reps // 5), args.rounds)
            result["eager_ns_per_op"] = med * 1e9 / args.nodes
    print(json.dumps(result))


if __name__ == "__main__":
    # TorchScript's graph passes recurse along the 10,000-statement chain and
    # overflow the default 8 MiB main-thread stack on the first call; run on a
    # thread with a large stack instead.
    threading.stack_size(512 << 20)
    failure = []

    def run():
        try:
            main()
        except BaseException as e:  # noqa: BLE001 - re-raised below
            failure.append(e)

    t = threading.Thread(target=run)
    t.start()
    t.join()
    if failure:
        raise failure[0]
