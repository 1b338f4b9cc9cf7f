#!/usr/bin/env python3
"""compare_peers.py -- bench/run.lua's cases through CuPy and PyTorch on the same GPU.

usage: python3 bench/compare_peers.py [CUARR_FIGURES]

CUARR_FIGURES (default: $CUARR_BENCH_OUT) is the file bench/run.lua writes, one `name value`
line per figure; when it is readable the table shows cuarr's figure and cuarr/peer speed ratios
beside the peers'.  A peer that is not installed, or whose GPU setup fails, is reported and
skipped: the script still exits 0.

Each case is timed as run.lua times it: the median of several repetitions after a warm-up, wall
clock around the call with the device synchronized before and after, results freed outside the
timed region.  To add a case, add an entry to the dict each builder in PEERS returns, named as
run.lua names the figure (ending in _GBps for a rate, _us for a time), and the same case to
run.lua.
"""

import os
import statistics
import sys
import time

N = 1 << 26  # float32 elements: 256 MiB, as in run.lua and ceilings.c
BYTES = N * 4
N_ALLOC = 1 << 20  # empty(2^20 float32)
ALLOC_BATCH = 1000  # pairs per timed batch: one pair is too short for the clock


def median_seconds(once, n_warmup, n_repeat):
    """Median of n_repeat runs of once() (each returns seconds) after n_warmup untimed runs."""
    for _ in range(n_warmup):
        once()
    return statistics.median(once() for _ in range(n_repeat))


def transfer_case(sync, fn):
    """A case measuring GB/s of fn() (one 256 MiB copy), its result dropped after the clock."""

    def once():
        sync()
        t0 = time.perf_counter()
        result = fn()
        sync()
        t = time.perf_counter() - t0
        del result  # back to the library's pool outside the timed region
        return t

    return lambda: BYTES / median_seconds(once, 2, 10) / 1e9


def alloc_case(empty):
    """A case measuring microseconds per empty() + free through the library's pool."""

    def once():
        t0 = time.perf_counter()
        for _ in range(ALLOC_BATCH):
            empty()  # the result is dropped at once: freed to the pool
        return (time.perf_counter() - t0) / ALLOC_BATCH

    return lambda: 1e6 * median_seconds(once, 3, 21)


def cupy_cases():
    import cupy as cp
    import cupyx
    import numpy as np

    sync = cp.cuda.Device().synchronize
    host = np.full(N, 1.5, np.float32)  # not zeros: zeros can flatter
    pinned = cupyx.empty_pinned(N, np.float32)
    pinned[...] = host
    dev = cp.asarray(host)

    def h2d_pinned():
        # cp.asarray would stage even pinned memory through CuPy's own pinned buffer; set() is
        # what a CuPy user who pinned writes, and copies straight from it.
        d = cp.empty(N, np.float32)
        d.set(pinned)
        return d

    info = f"cupy {cp.__version__}, {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}"
    return info, {
        "h2d_pageable_GBps": transfer_case(sync, lambda: cp.asarray(host)),
        "h2d_pinned_GBps": transfer_case(sync, h2d_pinned),
        "d2h_pageable_GBps": transfer_case(sync, dev.get),
        "d2h_pinned_GBps": transfer_case(sync, lambda: dev.get(out=pinned)),
        "empty_free_us": alloc_case(lambda: cp.empty(N_ALLOC, np.float32)),
    }


def torch_cases():
    import torch

    if not torch.cuda.is_available():
        raise RuntimeError("torch.cuda.is_available() is false")
    sync = torch.cuda.synchronize
    host = torch.full((N,), 1.5, dtype=torch.float32)
    pinned = torch.empty(N, dtype=torch.float32, pin_memory=True)
    pinned.copy_(host)
    dev = host.to("cuda")

    info = f"torch {torch.__version__}, {torch.cuda.get_device_name(0)}"
    return info, {
        "h2d_pageable_GBps": transfer_case(sync, lambda: host.to("cuda")),
        "h2d_pinned_GBps": transfer_case(sync, lambda: pinned.to("cuda", non_blocking=True)),
        "d2h_pageable_GBps": transfer_case(sync, dev.cpu),
        "d2h_pinned_GBps": transfer_case(sync, lambda: pinned.copy_(dev, non_blocking=True)),
        "empty_free_us": alloc_case(
            lambda: torch.empty(N_ALLOC, dtype=torch.float32, device="cuda")
        ),
    }


# peer name -> builder returning (a line naming versions and device, {case name: measure()}).
PEERS = {"cupy": cupy_cases, "torch": torch_cases}


def run_peer(name, build):
    """{case: value} for one peer; {} with a report when it cannot run."""
    try:
        info, cases = build()
    except Exception as e:  # ImportError, no device, a broken install: report, go on
        print(f"{name}: not available ({type(e).__name__}: {e})")
        return {}
    print(f"{name}: {info}")
    values = {}
    for case, measure in cases.items():
        try:
            values[case] = measure()
            print(f"{name} {case} {values[case]:.6g}", flush=True)
        except Exception as e:
            print(f"{name} {case} failed ({type(e).__name__}: {e})")
    return values


def read_figures(path):
    figures = {}
    if not path:
        return figures
    try:
        with open(path) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 2:
                    figures[parts[0]] = float(parts[1])
    except (OSError, ValueError) as e:
        print(f"cuarr figures not read ({e}): ratios left out")
    return figures


def speed_ratio(case, ours, theirs):
    """cuarr's speed over the peer's: >1 means cuarr is faster, for rates and times alike."""
    if ours is None or theirs is None or ours <= 0 or theirs <= 0:
        return "-"
    r = theirs / ours if case.endswith("_us") else ours / theirs
    return f"{r:.2f}x"


def fmt(v):
    return "-" if v is None else f"{v:.2f}"


def print_table(cuarr, peers):
    cases = list(dict.fromkeys(c for values in peers.values() for c in values))
    names = list(peers)
    head = f"{'case':<18} {'cuarr':>8}" + "".join(f" {n:>8}" for n in names)
    head += "".join(f" {'vs ' + n:>9}" for n in names)
    print()
    print(head)
    for case in cases:
        ours = cuarr.get(case)
        row = f"{case:<18} {fmt(ours):>8}"
        row += "".join(f" {fmt(peers[n].get(case)):>8}" for n in names)
        row += "".join(f" {speed_ratio(case, ours, peers[n].get(case)):>9}" for n in names)
        print(row)
    print("vs X: cuarr's speed over X's (>1: cuarr faster); GBps rates, us per call")


def main(argv):
    path = argv[1] if len(argv) > 1 else os.environ.get("CUARR_BENCH_OUT")
    cuarr = read_figures(path)
    peers = {name: run_peer(name, build) for name, build in PEERS.items()}
    if not any(peers.values()):
        print("no peer could run: nothing to compare")
        return 0
    print_table(cuarr, peers)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
