#!/usr/bin/env python3
"""compare_peers.py -- bench/run.lua's cases through CuPy and PyTorch on the same GPU.

usage: python3 bench/compare_peers.py [CUARR_FIGURES]

CUARR_FIGURES (default: $CUARR_BENCH_OUT) is the file bench/run.lua writes, one `name value`
line per figure; when it is readable the table shows cuarr's figure and cuarr/peer speed ratios
beside the peers'.  A peer that is not installed, or whose GPU setup fails, is reported and
skipped; a case that fails is reported and the others still run: the script exits 0.
CUARR_BENCH_SUITES (comma-separated: transfers, elementwise) picks suites as in run.lua.

Each case is timed as run.lua times it (bench/timing.lua):
  transfers   median of several repetitions after a warm-up, wall clock around the call with
              the device synchronized before and after, results freed outside the timed region
  bandwidth   device time between two events around a batch of back-to-back calls, per call,
              median of 7 batches after 3 warm-up calls; small inputs rotate among sets that
              together outgrow the L2
  per op      a loop of 20 000 ops as a user writes it, one synchronize at the end, wall clock
              per op, median of 5 runs after one warm-up run
  compile     building a new ElementwiseKernel and its first call (synchronized), median of 3
              unique kernels after a throwaway one; the disk cache's figure in fresh processes
To add a case, add it to run.lua and here under the same name (ending in _GBps for a rate, _us
or _ms for a time).
"""

import gc
import os
import random
import statistics
import subprocess
import sys
import time

N = 1 << 26  # float32 elements: 256 MiB, as in run.lua and ceilings.c
BYTES = N * 4
N_ALLOC = 1 << 20  # empty(2^20 float32)
ALLOC_BATCH = 1000  # pairs per timed batch: one pair is too short for the clock

# As in bench/elementwise.lua.
SIDE = 16384  # the matrix is SIDE x SIDE float32: 1 GiB
BIG = 1 << 28  # the large add and astype: 1 GiB of float32
ROTATE_BYTES = 256 << 20  # small cases rotate among input sets this large in all (> L2)
BATCH_BYTES = 1 << 32  # bytes a timed batch moves at least (10 calls at the least)
N_OPS = 20000  # ops per timed loop of the per-op cases
POISON = -3.0  # what outputs hold before the op writes them
SPOT_TOL = 1e-6  # relative: float32 results rounded once, compared with Python's floats
EWK_N = 4096
SUITES = ("transfers", "elementwise")


def median_seconds(once, n_warmup, n_repeat):
    """Median of n_repeat runs of once() (each returns seconds) after n_warmup untimed runs."""
    for _ in range(n_warmup):
        once()
    return statistics.median(once() for _ in range(n_repeat))


# ---------------------------------------------------------------- transfers


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


def cupy_transfer_cases(cp):
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

    return {
        "h2d_pageable_GBps": transfer_case(sync, lambda: cp.asarray(host)),
        "h2d_pinned_GBps": transfer_case(sync, h2d_pinned),
        "d2h_pageable_GBps": transfer_case(sync, dev.get),
        "d2h_pinned_GBps": transfer_case(sync, lambda: dev.get(out=pinned)),
        "empty_free_us": alloc_case(lambda: cp.empty(N_ALLOC, np.float32)),
    }


def torch_transfer_cases(torch):
    sync = torch.cuda.synchronize
    host = torch.full((N,), 1.5, dtype=torch.float32)
    pinned = torch.empty(N, dtype=torch.float32, pin_memory=True)
    pinned.copy_(host)
    dev = host.to("cuda")

    return {
        "h2d_pageable_GBps": transfer_case(sync, lambda: host.to("cuda")),
        "h2d_pinned_GBps": transfer_case(sync, lambda: pinned.to("cuda", non_blocking=True)),
        "d2h_pageable_GBps": transfer_case(sync, dev.cpu),
        "d2h_pinned_GBps": transfer_case(sync, lambda: pinned.copy_(dev, non_blocking=True)),
        "empty_free_us": alloc_case(
            lambda: torch.empty(N_ALLOC, dtype=torch.float32, device="cuda")
        ),
    }


# ---------------------------------------------------------------- elementwise: the two peers

# Each peer's elementwise operations behind one interface, so that the cases below are written
# once.  The per-op loops are each peer's own, written as a user writes them (the op inline),
# so that no wrapper call is timed.


class CupyOps:
    def __init__(self, cp):
        import numpy as np

        self.cp, self.f32 = cp, np.float32
        self.sync = cp.cuda.Device().synchronize

    def event(self):
        return self.cp.cuda.Event()

    def elapsed_ms(self, e0, e1):
        return self.cp.cuda.get_elapsed_time(e0, e1)

    def arange(self, n):
        return self.cp.arange(n, dtype=self.f32)

    def full(self, shape, v):
        return self.cp.full(shape, v, dtype=self.f32)

    def add_out(self, a, b, c):
        self.cp.add(a, b, out=c)

    def transpose_copy(self, m):
        return self.cp.ascontiguousarray(m.T)

    def astype64(self, a):
        return a.astype(self.cp.float64)

    def add_out_loop(self, a, b, c, n_ops):
        cp = self.cp
        for _ in range(n_ops):
            cp.add(a, b, out=c)

    def add_alloc_loop(self, a, b, n_ops):
        c = None
        for _ in range(n_ops):
            c = a + b
        return c

    def release(self):
        self.cp.get_default_memory_pool().free_all_blocks()


class TorchOps:
    def __init__(self, torch):
        self.torch, self.f32 = torch, torch.float32
        self.sync = torch.cuda.synchronize

    def event(self):
        return self.torch.cuda.Event(enable_timing=True)

    def elapsed_ms(self, e0, e1):
        return e0.elapsed_time(e1)

    def arange(self, n):
        return self.torch.arange(n, dtype=self.f32, device="cuda")

    def full(self, shape, v):
        shape = shape if isinstance(shape, tuple) else (shape,)
        return self.torch.full(shape, v, dtype=self.f32, device="cuda")

    def add_out(self, a, b, c):
        self.torch.add(a, b, out=c)

    def transpose_copy(self, m):
        return m.t().contiguous()

    def astype64(self, a):
        return a.to(self.torch.float64)

    def add_out_loop(self, a, b, c, n_ops):
        torch = self.torch
        for _ in range(n_ops):
            torch.add(a, b, out=c)

    def add_alloc_loop(self, a, b, n_ops):
        c = None
        for _ in range(n_ops):
            c = a + b
        return c

    def release(self):
        self.torch.cuda.empty_cache()


# ---------------------------------------------------------------- elementwise: timing, checks


def device_seconds(ops, fn, reps, batches=7, warmup=3):
    """Device seconds per call of fn(r) (r = 0..reps-1, for rotating among input sets): batches
    of reps back-to-back calls between two events, median over the batches after warm-up calls."""
    for r in range(warmup):
        fn(r)
    ops.sync()
    e0, e1 = ops.event(), ops.event()

    def once():
        e0.record()
        for r in range(reps):
            fn(r)
        e1.record()
        e1.synchronize()
        return ops.elapsed_ms(e0, e1) / 1e3 / reps

    return median_seconds(once, 0, batches)


def wall_per_op(ops, loop, runs=5):
    """Seconds per op of loop(N_OPS) with one synchronize at the end, median after a warm-up run."""

    def once():
        gc.collect()  # as run.lua collects its garbage: not charged to the run
        ops.sync()
        t0 = time.perf_counter()
        loop(N_OPS)
        ops.sync()
        return (time.perf_counter() - t0) / N_OPS

    return median_seconds(once, 1, runs)


def check_close(what, got, want):
    got, want = float(got), float(want)
    if not abs(got - want) <= SPOT_TOL * abs(want) + SPOT_TOL:
        raise AssertionError(f"{what}: got {got:.9g}, want {want:.9g}")


def spots(n):
    """A few 0-based positions of an n-element array: both ends and some between."""
    return sorted({i for i in (0, 1, n // 3, n // 2, n - 2, n - 1) if 0 <= i < n})


MATRIX_SPOTS = [(0, 0), (0, SIDE - 1), (SIDE - 1, 0), (SIDE - 1, SIDE - 1), (122, 4566), (9998, 1)]


def reps_for(nbytes):
    return max(10, -(-BATCH_BYTES // nbytes))


def gbps(nbytes, seconds):
    return nbytes / seconds / 1e9


# ---------------------------------------------------------------- elementwise: the cases


def add_gbps(ops, n):
    """GB/s of add into a preallocated c over n float32 (3 x 4n bytes)."""
    nbytes = 3 * 4 * n
    sets = [
        (ops.arange(n), ops.full(n, 0.5), ops.full(n, POISON))
        for _ in range(max(1, -(-ROTATE_BYTES // nbytes)))
    ]

    def call(r):
        a, b, c = sets[r % len(sets)]
        ops.add_out(a, b, c)

    t = device_seconds(ops, call, reps_for(nbytes))
    for a, b, c in sets:
        for i in spots(n):
            check_close(f"add c[{i}]", c[i], float(a[i]) + float(b[i]))
    return gbps(nbytes, t)


class Matrix:
    """The SIDE x SIDE matrix the broadcast and transpose cases share, made on first use."""

    def __init__(self, ops):
        self.ops, self.m = ops, None

    def get(self):
        if self.m is None:
            self.m = self.ops.arange(SIDE * SIDE).reshape(SIDE, SIDE)
        return self.m

    def drop(self):
        self.m = None


def bcast_add_gbps(ops, m):
    row = ops.arange(SIDE)
    out = ops.full((SIDE, SIDE), POISON)
    nbytes = 2 * 4 * SIDE * SIDE + 4 * SIDE
    t = device_seconds(ops, lambda r: ops.add_out(m, row, out), reps_for(nbytes))
    for i, j in MATRIX_SPOTS:
        check_close(f"bcast out[{i},{j}]", out[i, j], float(m[i, j]) + float(row[j]))
    return gbps(nbytes, t)


def transpose_gbps(ops, m):
    nbytes = 2 * 4 * SIDE * SIDE
    t = device_seconds(ops, lambda r: ops.transpose_copy(m), reps_for(nbytes))
    c = ops.transpose_copy(m)
    for i, j in MATRIX_SPOTS:
        check_close(f"transpose [{i},{j}]", c[i, j], m[j, i])
    return gbps(nbytes, t)


def astype_gbps(ops, n):
    a = ops.arange(n)
    nbytes = 12 * n
    t = device_seconds(ops, lambda r: ops.astype64(a), reps_for(nbytes))
    d = ops.astype64(a)
    for i in spots(n):
        check_close(f"astype [{i}]", d[i], a[i])
    return gbps(nbytes, t)


def per_op_us(ops, n, alloc):
    a, b, c = ops.full(n, 1.5), ops.full(n, 0.25), ops.full(n, POISON)
    if alloc:
        loop = lambda n_ops: ops.add_alloc_loop(a, b, n_ops)
    else:
        loop = lambda n_ops: ops.add_out_loop(a, b, c, n_ops)
    t = wall_per_op(ops, loop)
    r = loop(1)
    r = c if r is None else r
    for i in spots(n):
        check_close(f"per-op [{i}]", r[i], 1.75)
    return 1e6 * t


# ---------------------------------------------------------------- CuPy's ElementwiseKernel


def unique_kernel():
    """A (name, constant) no cache holds yet; the constant is exact in float32."""
    tag = f"{int(time.time())}_{random.randrange(1, 1 << 30)}"
    return f"bench_add_{tag}", f"{random.randrange(1, 1000000)}.5"


def cupy_ewk_inputs(cp):
    """Made on the host and copied over: no kernel runs before the one timed (as run.lua)."""
    import numpy as np

    x = cp.asarray(np.arange(EWK_N, dtype=np.float32))
    y = cp.asarray(np.full(EWK_N, 0.75, dtype=np.float32))
    return x, y


def cupy_first_call_ms(cp, x, y, name, constant):
    """Milliseconds from building the kernel to the end of its first call, checked."""
    sync = cp.cuda.Device().synchronize
    sync()
    t0 = time.perf_counter()
    k = cp.ElementwiseKernel(
        "float32 x, float32 y", "float32 z", f"z = x + y + {constant}f", name
    )
    z = k(x, y)
    sync()
    ms = 1e3 * (time.perf_counter() - t0)
    for i in spots(EWK_N):
        check_close(f"{name} z[{i}]", z[i], float(x[i]) + float(y[i]) + float(constant))
    return ms


def cupy_child(name, constant):
    """What a fresh process runs: CuPy imported and the device warmed (the inputs' copies),
    then only the kernel's first call is timed."""
    import cupy as cp

    x, y = cupy_ewk_inputs(cp)
    cp.cuda.Device().synchronize()
    print(f"first_call_ms {cupy_first_call_ms(cp, x, y, name, constant):.6f}")


def fresh_process_ms(name, constant):
    """Runs cupy_child in a fresh interpreter (same environment, so the same disk cache)."""
    p = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--cupy-ewk-child", name, constant],
        capture_output=True,
        text=True,
    )
    for line in p.stdout.splitlines():
        if line.startswith("first_call_ms ") and p.returncode == 0:
            return float(line.split()[1])
    raise RuntimeError(f"fresh process failed (exit {p.returncode}): {p.stdout}{p.stderr}")


def cupy_compile_ms(cp):
    x, y = cupy_ewk_inputs(cp)
    cupy_first_call_ms(cp, x, y, *unique_kernel())  # throwaway: loads NVRTC and the like
    return statistics.median(cupy_first_call_ms(cp, x, y, *unique_kernel()) for _ in range(3))


def cupy_disk_load_ms():
    if os.environ.get("CUPY_CACHE_IN_MEMORY", "0") not in ("", "0"):
        raise RuntimeError("CUPY_CACHE_IN_MEMORY is set: there is no disk cache to load from")
    name, constant = unique_kernel()
    cold = fresh_process_ms(name, constant)  # compiles, and so stores it on disk
    print(f"cupy ewk_fresh_cold_ms {cold:.1f} (info: fresh process, nothing cached)")
    return statistics.median(fresh_process_ms(name, constant) for _ in range(3))


# ---------------------------------------------------------------- the peers


def elementwise_cases(ops):
    """The same cases, in the same order and under the same names, as bench/elementwise.lua."""
    mat = Matrix(ops)

    def transpose():
        v = transpose_gbps(ops, mat.get())
        mat.drop()
        return v

    return {
        "add_1e6_GBps": lambda: add_gbps(ops, 1000000),
        "add_1e7_GBps": lambda: add_gbps(ops, 10000000),
        "add_2p28_GBps": lambda: add_gbps(ops, BIG),
        "bcast_add_16k_GBps": lambda: bcast_add_gbps(ops, mat.get()),
        "transpose_copy_16k_GBps": transpose,
        "astype_f32_f64_2p28_GBps": lambda: astype_gbps(ops, BIG),
        "add_out_n1_us": lambda: per_op_us(ops, 1, False),
        "add_out_n1000_us": lambda: per_op_us(ops, 1000, False),
        "add_alloc_n1_us": lambda: per_op_us(ops, 1, True),
        "add_alloc_n1000_us": lambda: per_op_us(ops, 1000, True),
    }


def cupy_cases(suites):
    import cupy as cp

    ops = CupyOps(cp)
    cases = {}
    if "transfers" in suites:
        cases.update(cupy_transfer_cases(cp))
    if "elementwise" in suites:
        cases.update(elementwise_cases(ops))
        cases["ewk_compile_ms"] = lambda: cupy_compile_ms(cp)
        cases["ewk_disk_load_ms"] = cupy_disk_load_ms
    info = f"cupy {cp.__version__}, {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}"
    return info, cases, ops.release


def torch_cases(suites):
    import torch

    if not torch.cuda.is_available():
        raise RuntimeError("torch.cuda.is_available() is false")
    ops = TorchOps(torch)
    cases = {}
    if "transfers" in suites:
        cases.update(torch_transfer_cases(torch))
    if "elementwise" in suites:
        cases.update(elementwise_cases(ops))  # no ElementwiseKernel: those rows stay blank
    info = f"torch {torch.__version__}, {torch.cuda.get_device_name(0)}"
    return info, cases, ops.release


# peer name -> builder(suites) returning (a line naming versions and device, {case name:
# measure()}, release() handing the peer's cached device memory back when it is done).
PEERS = {"cupy": cupy_cases, "torch": torch_cases}


def run_peer(name, build, suites):
    """{case: value} for one peer; {} with a report when it cannot run."""
    t0 = time.perf_counter()
    try:
        info, cases, release = build(suites)
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
            print(f"{name} {case} failed ({type(e).__name__}: {e})", flush=True)
    cases.clear()  # the cases' closures hold the peer's arrays
    gc.collect()
    try:
        release()
    except Exception as e:
        print(f"{name}: releasing its memory failed ({type(e).__name__}: {e})")
    print(f"{name}: took {time.perf_counter() - t0:.1f} s", flush=True)
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


def is_time(case):
    return case.endswith("_us") or case.endswith("_ms")


def speed_ratio(case, ours, theirs):
    """cuarr's speed over the peer's: >1 means cuarr is faster, for rates and times alike."""
    if ours is None or theirs is None or ours <= 0 or theirs <= 0:
        return "-"
    r = theirs / ours if is_time(case) else ours / theirs
    return f"{r:.2f}x"


def fmt(v):
    return "-" if v is None else f"{v:.2f}"


def print_table(cuarr, peers):
    cases = list(dict.fromkeys(list(cuarr) + [c for values in peers.values() for c in values]))
    names = list(peers)
    head = f"{'case':<25} {'cuarr':>8}" + "".join(f" {n:>8}" for n in names)
    head += "".join(f" {'vs ' + n:>9}" for n in names)
    print()
    print(head)
    for case in cases:
        ours = cuarr.get(case)
        row = f"{case:<25} {fmt(ours):>8}"
        row += "".join(f" {fmt(peers[n].get(case)):>8}" for n in names)
        row += "".join(f" {speed_ratio(case, ours, peers[n].get(case)):>9}" for n in names)
        print(row)
    print("vs X: cuarr's speed over X's (>1: cuarr faster); GBps rates, us/ms per call")


def selected_suites():
    want = os.environ.get("CUARR_BENCH_SUITES", "")
    if not want:
        return set(SUITES)
    return {s for s in want.split(",") if s in SUITES}


def main(argv):
    if len(argv) == 4 and argv[1] == "--cupy-ewk-child":
        cupy_child(argv[2], argv[3])
        return 0
    path = argv[1] if len(argv) > 1 else os.environ.get("CUARR_BENCH_OUT")
    cuarr = read_figures(path)
    suites = selected_suites()
    peers = {name: run_peer(name, build, suites) for name, build in PEERS.items()}
    if not any(peers.values()):
        print("no peer could run: nothing to compare")
        return 0
    print_table(cuarr, peers)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
