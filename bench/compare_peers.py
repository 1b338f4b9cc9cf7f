#!/usr/bin/env python3
"""compare_peers.py -- bench/run.lua's cases through CuPy and PyTorch on the same GPU.

usage: python3 bench/compare_peers.py [CUARR_FIGURES]

CUARR_FIGURES (default: $CUARR_BENCH_OUT) is the file bench/run.lua writes, one `name value`
line per figure; when it is readable the table shows cuarr's figure and cuarr/peer speed ratios
beside the peers'.  A peer that is not installed, or whose GPU setup fails, is reported and
skipped; a case that fails is reported and the others still run: the script exits 0.
CUARR_BENCH_SUITES (comma-separated: transfers, elementwise, reduction, raw_kernels, graphs,
jit, random, matmul, linalg, arrays, distributed) picks suites as in run.lua.

Each case is timed as run.lua times it (bench/timing.lua):
  transfers   median of several repetitions after a warm-up, wall clock around the call with
              the device synchronized before and after, results freed outside the timed region
  bandwidth   device time between two events around a batch of back-to-back calls, per call,
              median of 7 batches after 3 warm-up calls; small inputs rotate among sets that
              together outgrow the L2
  per op      a loop of 20 000 ops as a user writes it, one synchronize at the end, wall clock
              per op, median of 5 runs after one warm-up run
  compile     building a new ElementwiseKernel or ReductionKernel and its first call
              (synchronized), median of 3 unique kernels after a throwaway one; the disk
              cache's figure in fresh processes
  round trip  a:sum().item() (each call waits for the device): median of 2000 single calls
              after 100 warm-up calls, as ceilings.c times launch + synchronize
  raw kernels 20 000 launches of a RawKernel on 1000 elements, one synchronize (per op, as
              above); a new RawKernel's first call and its disk-cache load (as compile); mul
              and mulReg over a 4096 x 512 x 512 float64 stack by events (CuPy only)
  graphs      a captured graph of 100 adds of 1000 float32 replayed 200 times, and the same
              adds eager, wall clock per op (CuPy: stream capture; PyTorch: CUDAGraph)
  matmul      products as TFLOP/s by events, the best of 7 batches after an untimed one (as
              ceilings.c times raw cuBLAS), and a 64 x 64 product per op (as above); both
              peers without TF32 and without float16 reduced-precision reductions
              (bench/peer_matmul.py)
  linalg      det, solve and inv of a 4096 x 4096 float64 matrix and det of 10 000 8 x 8, ms per
              call by events, median of 7 batches after 3 warm-up calls (as bandwidth above;
              bench/peer_linalg.py)
The reduction cases time the peers' calls with out= where their APIs take it (as run.lua does
cuarr's); argmax indices are 0-based here and 1-based in cuarr, and are checked as such.
To add a case, add it to run.lua and here under the same name (ending in _GBps or _TFLOPs for a
rate, _us or _ms for a time).
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
# As in bench/reduction.lua.
RED_POISON = -0.75  # what float outputs of the reductions hold first: no case's result
INDEX_POISON = -3  # what index outputs hold first: never an index
PERIOD = 7  # the data is (k mod 7) + 1 for the reductions, (k mod 7) - 3 for the scan
PLANT = 100.25  # planted above the pattern's maximum for max and argmax
BUMP = 1 << 20  # added at a planted position for sum
EXACT = 1 << 24  # float32 integers are exact below this
SUM_TOL = 1e-5  # relative, for float32 sums past EXACT
PER_OP_N = 1000
N_SYNC_CALLS = 2000  # single synchronising calls timed, as ceilings.c's launch_sync_us
N_SYNC_WARMUP = 100
RK_N = 4096
SUITES = (
    "transfers",
    "elementwise",
    "reduction",
    "raw_kernels",
    "graphs",
    "jit",
    "random",
    "matmul",
    "linalg",
    "arrays",
    "distributed",
)
# As in bench/raw_kernels.lua and bench/graphs.lua.
RAW_N = 1000
STACK_Z, STACK_Y, STACK_X = 4096, 512, 512
GRAPH_N, GRAPH_OPS = 1000, 100


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

    # Reductions and scans.
    def pattern(self, n, offset):
        """(k mod 7) + offset as float32, through int32 (float32 arange is inexact past 2^24)."""
        cp = self.cp
        return (cp.arange(n, dtype=cp.int32) % PERIOD + offset).astype(self.f32)

    def out(self, shape, index=False):
        cp = self.cp
        if index:
            return cp.full(shape, INDEX_POISON, dtype=cp.int64)
        return cp.full(shape, RED_POISON, dtype=self.f32)

    def reduce_out(self, op, a, o):
        if op == "sum":
            self.cp.sum(a, out=o)
        elif op == "max":
            a.max(out=o)
        else:
            a.argmax(out=o)

    def reduce(self, op, a):
        if op == "sum":
            return self.cp.sum(a)
        return a.max() if op == "max" else a.argmax()

    def sum_axis_out(self, m, axis, o):
        self.cp.sum(m, axis=axis, out=o)

    def cumsum_out(self, a, o):
        self.cp.cumsum(a, out=o)

    def sum_alloc_loop(self, a, n_ops):
        s = None
        for _ in range(n_ops):
            s = a.sum()
        return s

    def sum_item(self, a):
        return a.sum().item()

    def int_arange(self, n):
        return self.cp.arange(n, dtype=self.cp.int32)

    def copy(self, a):
        return a.copy()

    def mismatches(self, x, e):
        return int(self.cp.count_nonzero(x != e))

    def tolist(self, x):
        return x.get().tolist()

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

    # Reductions and scans.  The full reductions of a 1-D tensor go through dim=0, whose
    # overloads take out= (a 0-d tensor); max is amax (values only, as cuarr's and CuPy's max).
    def pattern(self, n, offset):
        torch = self.torch
        k = torch.arange(n, dtype=torch.int32, device="cuda")
        return (k % PERIOD + offset).to(self.f32)

    def out(self, shape, index=False):
        torch = self.torch
        shape = shape if isinstance(shape, tuple) else (shape,)
        if index:
            return torch.full(shape, INDEX_POISON, dtype=torch.int64, device="cuda")
        return torch.full(shape, RED_POISON, dtype=self.f32, device="cuda")

    def reduce_out(self, op, a, o):
        torch = self.torch
        if op == "sum":
            torch.sum(a, 0, out=o)
        elif op == "max":
            torch.amax(a, 0, out=o)
        else:
            torch.argmax(a, 0, out=o)

    def reduce(self, op, a):
        torch = self.torch
        return {"sum": torch.sum, "max": torch.max, "argmax": torch.argmax}[op](a)

    def sum_axis_out(self, m, axis, o):
        self.torch.sum(m, axis, out=o)

    def cumsum_out(self, a, o):
        self.torch.cumsum(a, 0, out=o)

    def sum_alloc_loop(self, a, n_ops):
        s = None
        for _ in range(n_ops):
            s = a.sum()
        return s

    def sum_item(self, a):
        return a.sum().item()

    def int_arange(self, n):
        return self.torch.arange(n, dtype=self.torch.int32, device="cuda")

    def copy(self, a):
        return a.clone()

    def mismatches(self, x, e):
        return int((x != e).sum().item())

    def tolist(self, x):
        return x.cpu().tolist()

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


def fresh_process_ms(name, constant, child="--cupy-ewk-child"):
    """Runs cupy_child (or, with --cupy-rk-child or --cupy-raw-child, cupy_rk_child or
    cupy_raw_child) in a fresh interpreter (same environment, so the same disk cache)."""
    p = subprocess.run(
        [sys.executable, os.path.abspath(__file__), child, name, constant],
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


# ---------------------------------------------------------------- reductions: data, checks


def value(i, offset):
    """The pattern's value at 0-based flat position i."""
    return i % PERIOD + offset


def pattern_sum(n, offset):
    """Sum of the pattern's first n values, exactly."""
    q, r = divmod(n, PERIOD)
    return q * (PERIOD * (PERIOD - 1) // 2 + PERIOD * offset) + r * (r - 1) // 2 + r * offset


def check_equal(what, got, want):
    if got != want:
        raise AssertionError(f"{what}: got {got!r}, want {want!r}")


def check_sum(what, got, want):
    """Exact below 2^24 (every partial sum an integer float32 holds), 1e-5 of the total past it."""
    tol = 0 if abs(want) < EXACT else SUM_TOL * abs(want)
    if not abs(float(got) - want) <= tol:
        raise AssertionError(f"{what}: got {float(got):.10g}, want {want} (tolerance {tol:g})")


# op -> whether its out holds an index, the check, the result on the pattern (values 1..7), the
# value planted at i and the result once it is planted there.  argmax: the first of the equal
# maxima, at 0-based 6 (1-based 7 in cuarr).
FULL = {
    "sum": dict(
        index=False,
        check=check_sum,
        want=lambda n: pattern_sum(n, 1),
        plant=lambda i: value(i, 1) + BUMP,
        planted=lambda n, i: pattern_sum(n, 1) + BUMP,
    ),
    "max": dict(
        index=False,
        check=check_equal,
        want=lambda n: float(PERIOD),
        plant=lambda i: PLANT,
        planted=lambda n, i: PLANT,
    ),
    "argmax": dict(
        index=True,
        check=check_equal,
        want=lambda n: PERIOD - 1,
        plant=lambda i: PLANT,
        planted=lambda n, i: i,
    ),
}


class Sets:
    """Input sets of n elements, made once per size and shared by that size's sum, max and
    argmax cases (rotating among them keeps the working set out of the L2)."""

    def __init__(self, ops):
        self.ops, self.n, self.sets = ops, None, None

    def get(self, n):
        if self.n != n:
            self.drop()
            base = self.ops.pattern(n, 1)
            copies = max(1, -(-ROTATE_BYTES // (4 * n))) - 1
            self.sets = [base] + [self.ops.copy(base) for _ in range(copies)]
            self.n = n
        return self.sets

    def drop(self):
        self.n, self.sets = None, None
        gc.collect()


def check_planted(ops, op, a, n):
    """Plants a value at each spot of a in turn, checks the op's result, puts the value back."""
    spec = FULL[op]
    for i in spots(n):
        a[i] = spec["plant"](i)
        try:
            got = ops.reduce(op, a).item()
            what = f"{op} with {spec['plant'](i):g} planted at {i} of {n}"
            spec["check"](what, got, spec["planted"](n, i))
        finally:
            a[i] = value(i, 1)


def full_gbps(ops, held, op, n):
    """GB/s of the full reduction over n float32 (4n bytes read) into a preallocated out."""
    spec = FULL[op]
    sets = held.get(n)
    outs = [ops.out((), spec["index"]) for _ in sets]
    nbytes = 4 * n

    def call(r):
        k = r % len(sets)
        ops.reduce_out(op, sets[k], outs[k])

    t = device_seconds(ops, call, reps_for(nbytes))
    want = spec["want"](n)
    for k, o in enumerate(outs):
        spec["check"](f"{op} of set {k} (n = {n})", o.item(), want)
    check_planted(ops, op, sets[0], n)
    if len(sets) > 1:
        check_planted(ops, op, sets[-1], n)
    return gbps(nbytes, t)


def line_sum(axis, line):
    """Exact sum of 0-based line `line` of the matrix along NumPy axis `axis` (0: down a
    column; 1: along a row).  Lines 7 apart have the same sum (SIDE mod 7 = 4)."""
    if axis == 0:
        return sum(value(i * SIDE + line, 1) for i in range(SIDE))
    return sum(value(line * SIDE + j, 1) for j in range(SIDE))


class PatternMatrix(Matrix):
    """The SIDE x SIDE matrix of the pattern (values 1..7), made on first use."""

    def get(self):
        if self.m is None:
            self.m = self.ops.pattern(SIDE * SIDE, 1).reshape(SIDE, SIDE)
        return self.m


def axis_sum_gbps(ops, m, axis):
    """GB/s of the sum over NumPy axis `axis` (0: the strided one, cuarr's axis 1) into a
    preallocated out: reads the matrix, writes SIDE floats; every result is checked."""
    out = ops.out(SIDE)
    nbytes = 4 * SIDE * SIDE + 4 * SIDE
    t = device_seconds(ops, lambda r: ops.sum_axis_out(m, axis, out), reps_for(nbytes))
    want = [line_sum(axis, line) for line in range(PERIOD)]
    got = ops.tolist(out)
    check_equal(f"sum axis {axis}: results", len(got), SIDE)
    for line, g in enumerate(got):
        check_equal(f"sum axis {axis} [{line}]", g, want[line % PERIOD])
    return gbps(nbytes, t)


def cumsum_gbps(ops):
    """GB/s of cumsum over 2^28 float32 into a preallocated out (8 bytes per element).  The
    input is (k mod 7) - 3: every prefix is exact, r (r - 7) / 2 with r = (i + 1) mod 7."""
    n = BIG
    a = ops.pattern(n, -3)
    out = ops.out(n)
    t = device_seconds(ops, lambda r: ops.cumsum_out(a, out), reps_for(8 * n))
    a = None  # back to the pool before the checks' temporaries
    for i in spots(n):
        r = (i + 1) % PERIOD
        check_equal(f"cumsum [{i}]", float(out[i]), float(r * (r - PERIOD) // 2))
    r = (ops.int_arange(n) + 1) % PERIOD
    want = r * (r - PERIOD) // 2
    del r
    wrong = ops.mismatches(out, want)
    check_equal("cumsum: elements wrong", wrong, 0)
    return gbps(8 * n, t)


def sum_alloc_us(ops):
    a = ops.pattern(PER_OP_N, 1)
    t = wall_per_op(ops, lambda n_ops: ops.sum_alloc_loop(a, n_ops))
    check_sum("a.sum() per op", ops.sum_alloc_loop(a, 1).item(), pattern_sum(PER_OP_N, 1))
    return 1e6 * t


def sum_item_us(ops):
    """Median of single a.sum().item() calls (each waits for the device), every value checked."""
    a = ops.pattern(PER_OP_N, 1)
    want = pattern_sum(PER_OP_N, 1)
    bad = []
    ops.sync()

    def once():
        t0 = time.perf_counter()
        v = ops.sum_item(a)
        dt = time.perf_counter() - t0
        if v != want:
            bad.append(v)
        return dt

    t = median_seconds(once, N_SYNC_WARMUP, N_SYNC_CALLS)
    if bad:
        check_equal("a.sum().item()", bad[0], want)
    return 1e6 * t


def reduction_cases(ops):
    """The same cases, in the same order and under the same names, as bench/reduction.lua."""
    held, mat = Sets(ops), PatternMatrix(ops)
    cases = {}
    for tag, n in (("1e6", 1000000), ("1e7", 10000000), ("2p28", BIG)):
        for op in ("sum", "max", "argmax"):

            def measure(op=op, n=n):
                v = full_gbps(ops, held, op, n)
                if op == "argmax" and n == BIG:
                    held.drop()
                return v

            cases[f"{op}_{tag}_GBps"] = measure

    def axis2():
        v = axis_sum_gbps(ops, mat.get(), 1)
        mat.drop()
        return v

    cases["sum_axis1_16k_GBps"] = lambda: axis_sum_gbps(ops, mat.get(), 0)
    cases["sum_axis2_16k_GBps"] = axis2
    cases["cumsum_2p28_GBps"] = lambda: cumsum_gbps(ops)
    cases["sum_alloc_n1000_us"] = lambda: sum_alloc_us(ops)
    cases["sum_item_n1000_us"] = lambda: sum_item_us(ops)
    return cases


# ---------------------------------------------------------------- CuPy's ReductionKernel


def unique_rk():
    """A (name, constant) no cache holds yet; the sum over 0..4095 of x + c stays below 2^24."""
    tag = f"{int(time.time())}_{random.randrange(1, 1 << 30)}"
    return f"bench_rsum_{tag}", str(random.randrange(1, 1000))


def cupy_rk_input(cp):
    """Made on the host and copied over: no kernel runs before the one timed (as run.lua)."""
    import numpy as np

    return cp.asarray(np.arange(RK_N, dtype=np.float32))


def cupy_rk_first_call_ms(cp, x, name, constant):
    """Milliseconds from building the kernel to the end of its first call, checked."""
    sync = cp.cuda.Device().synchronize
    sync()
    t0 = time.perf_counter()
    k = cp.ReductionKernel(
        "float32 x", "float32 y", f"x + {constant}.0f", "a + b", "y = a", "0", name
    )
    y = k(x)
    sync()
    ms = 1e3 * (time.perf_counter() - t0)
    check_equal(f"{name} result", float(y), float(RK_N * (RK_N - 1) // 2 + RK_N * int(constant)))
    return ms


def cupy_rk_child(name, constant):
    """What a fresh process runs: CuPy imported and the device warmed (the input's copy), then
    only the kernel's first call is timed."""
    import cupy as cp

    x = cupy_rk_input(cp)
    cp.cuda.Device().synchronize()
    print(f"first_call_ms {cupy_rk_first_call_ms(cp, x, name, constant):.6f}")


def cupy_rk_compile_ms(cp):
    x = cupy_rk_input(cp)
    cupy_rk_first_call_ms(cp, x, *unique_rk())  # throwaway: loads NVRTC and the like
    return statistics.median(cupy_rk_first_call_ms(cp, x, *unique_rk()) for _ in range(3))


def cupy_rk_disk_load_ms():
    if os.environ.get("CUPY_CACHE_IN_MEMORY", "0") not in ("", "0"):
        raise RuntimeError("CUPY_CACHE_IN_MEMORY is set: there is no disk cache to load from")
    name, constant = unique_rk()
    cold = fresh_process_ms(name, constant, "--cupy-rk-child")  # compiles and stores it
    print(f"cupy rk_fresh_cold_ms {cold:.1f} (info: fresh process, nothing cached)")
    return statistics.median(
        fresh_process_ms(name, constant, "--cupy-rk-child") for _ in range(3)
    )



# ---------------------------------------------------------------- raw kernels (CuPy)

def bench_kernel_source(name):
    """A kernel source of bench/kernels/, the one bench/raw_kernels.lua reads too."""
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernels", name)) as f:
        return f.read()


RAW_ADD_SOURCE = bench_kernel_source("raw_add.cu")

MUL_SOURCE = bench_kernel_source("products.cu")


def check_equal(what, got, want):
    if float(got) != float(want):
        raise AssertionError(f"{what}: got {float(got):.17g}, want {float(want):.17g}")


def cupy_raw_launch_us(cp, ops):
    import numpy as np

    k = cp.RawKernel(RAW_ADD_SOURCE, "bench_raw_add")
    a, b = cp.arange(RAW_N, dtype=np.float32), cp.full(RAW_N, 0.5, dtype=np.float32)
    c = cp.full(RAW_N, -3, dtype=np.float32)
    grid, block, args = ((RAW_N + 255) // 256,), (256,), (a, b, c, np.int32(RAW_N))

    def loop(n_ops):
        for _ in range(n_ops):
            k(grid, block, args)

    t = wall_per_op(ops, loop)
    for i in (0, 1, 499, RAW_N - 1):
        check_equal(f"c[{i}]", c[i], i + 0.5)
    return 1e6 * t


def unique_raw_source():
    constant = f"{random.randrange(1, 1000000)}.5"
    tag = f"{int(time.time())}_{random.randrange(1, 1 << 30)}"
    src = (
        'extern "C" __global__ void bench_raw_new(float* x, int n) {\n'
        f"  /* {tag} */\n"
        "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        f"  if (i < n) x[i] = x[i] + {constant}f;\n"
        "}\n"
    )
    return src, constant


def cupy_raw_first_call_ms(cp, src, constant):
    import numpy as np

    x = cp.asarray(np.arange(4096, dtype=np.float32))
    sync = cp.cuda.Device().synchronize
    sync()
    t0 = time.perf_counter()
    k = cp.RawKernel(src, "bench_raw_new")
    k((16,), (256,), (x, np.int32(4096)))
    sync()
    ms = 1e3 * (time.perf_counter() - t0)
    for i in (0, 4095):
        check_equal(f"x[{i}]", x[i], i + float(constant))
    return ms


def cupy_raw_child(path, constant):
    import cupy as cp

    with open(path) as f:
        src = f.read()
    print(f"first_call_ms {cupy_raw_first_call_ms(cp, src, constant):.6f}")


def cupy_raw_compile_ms(cp):
    cupy_raw_first_call_ms(cp, *unique_raw_source())  # throwaway: loads NVRTC and the like
    return statistics.median(cupy_raw_first_call_ms(cp, *unique_raw_source()) for _ in range(3))


def cupy_raw_disk_load_ms():
    if os.environ.get("CUPY_CACHE_IN_MEMORY", "0") not in ("", "0"):
        raise RuntimeError("CUPY_CACHE_IN_MEMORY is set: there is no disk cache to load from")
    import tempfile

    src, constant = unique_raw_source()
    with tempfile.NamedTemporaryFile("w", suffix=".cu", delete=False) as f:
        f.write(src)
    try:
        cold = fresh_process_ms(f.name, constant, child="--cupy-raw-child")
        print(f"cupy raw_fresh_cold_ms {cold:.1f} (info: fresh process, nothing cached)")
        return statistics.median(
            fresh_process_ms(f.name, constant, child="--cupy-raw-child") for _ in range(3)
        )
    finally:
        os.remove(f.name)


class CupyStack:
    """The 4096 x 512 x 512 float64 stack: ones but for plane 0 (y*X + x) and the last (0.5)."""

    def __init__(self, cp):
        self.cp, self.stack = cp, None

    def get(self):
        if self.stack is None:
            cp, Y, X = self.cp, STACK_Y, STACK_X
            self.stack = cp.ones((STACK_Z, Y, X), dtype=cp.float64)
            self.stack[0] = cp.arange(Y * X, dtype=cp.float64).reshape(Y, X)
            self.stack[-1] = 0.5
        return self.stack


def cupy_product_ms(cp, ops, stack, name):
    import numpy as np

    k = cp.RawModule(code=MUL_SOURCE).get_function(name)
    Y, X = STACK_Y, STACK_X
    inp, out = stack.get(), cp.full((Y, X), -3, dtype=cp.float64)
    args = (inp, out, np.int32(STACK_Z), np.int32(Y), np.int32(X))
    t = device_seconds(ops, lambda r: k((X // 32, Y // 32), (32, 32), args), 5, 5, 1)
    for y, x in ((0, 0), (0, 1), (299, 16), (Y - 1, X - 1)):
        check_equal(f"{name} out[{y}][{x}]", out[y, x], (y * X + x) * 0.5)
    return 1e3 * t


# ---------------------------------------------------------------- graphs


def cupy_graph_cases(cp, ops):
    """100 in-place adds captured on a stream of their own, and the same adds eager there."""
    import numpy as np

    stream = cp.cuda.Stream(non_blocking=True)

    def adds(a, b):
        for _ in range(GRAPH_OPS):
            cp.add(a, b, out=a)

    def run(replay):
        with stream:
            a = cp.zeros(GRAPH_N, dtype=np.float32)
            b = cp.ones(GRAPH_N, dtype=np.float32)
            adds(a, b)  # warm: kernels compiled before the capture
            stream.synchronize()
            a.fill(0)
            g = None
            if replay:
                stream.begin_capture()
                adds(a, b)
                g = stream.end_capture()
            runs = [0]

            def loop(n_ops):
                for _ in range(n_ops // GRAPH_OPS):
                    if replay:
                        g.launch(stream)
                    else:
                        adds(a, b)
                runs[0] += 1

            t = wall_per_op(StreamSync(stream), loop)
            stream.synchronize()
            for i in (0, GRAPH_N // 2, GRAPH_N - 1):
                check_equal(f"a[{i}]", a[i], runs[0] * N_OPS)
            return 1e6 * t

    return {"graph_replay_us": lambda: run(True), "graph_eager_us": lambda: run(False)}


def torch_graph_cases(torch):
    """The same with torch.cuda.CUDAGraph (captured on a side stream, as PyTorch asks)."""

    def run(replay):
        a = torch.zeros(GRAPH_N, dtype=torch.float32, device="cuda")
        b = torch.ones(GRAPH_N, dtype=torch.float32, device="cuda")
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                a.add_(b)  # warm-up on the side stream, as PyTorch's capture recipe has it
        torch.cuda.current_stream().wait_stream(side)
        torch.cuda.synchronize()
        a.zero_()
        g = None
        if replay:
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                for _ in range(GRAPH_OPS):
                    a.add_(b)
            torch.cuda.synchronize()
            a.zero_()
        runs = [0]

        def loop(n_ops):
            for _ in range(n_ops // GRAPH_OPS):
                if replay:
                    g.replay()
                else:
                    for _ in range(GRAPH_OPS):
                        a.add_(b)
            runs[0] += 1

        t = wall_per_op(StreamSync(None, torch.cuda.synchronize), loop)
        for i in (0, GRAPH_N // 2, GRAPH_N - 1):
            check_equal(f"a[{i}]", a[i].item(), runs[0] * N_OPS)
        return 1e6 * t

    return {"graph_replay_us": lambda: run(True), "graph_eager_us": lambda: run(False)}


class StreamSync:
    """What wall_per_op needs of ops: a sync (of one stream, or the given function)."""

    def __init__(self, stream, sync=None):
        self.sync = sync or stream.synchronize


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
    if "reduction" in suites:
        cases.update(reduction_cases(ops))
        cases["rk_compile_ms"] = lambda: cupy_rk_compile_ms(cp)
        cases["rk_disk_load_ms"] = cupy_rk_disk_load_ms
    if "raw_kernels" in suites:
        stack = CupyStack(cp)
        cases["raw_launch_1000_us"] = lambda: cupy_raw_launch_us(cp, ops)
        cases["raw_compile_ms"] = lambda: cupy_raw_compile_ms(cp)
        cases["raw_disk_load_ms"] = cupy_raw_disk_load_ms
        cases["mul_ms"] = lambda: cupy_product_ms(cp, ops, stack, "mul")
        cases["mulReg_ms"] = lambda: cupy_product_ms(cp, ops, stack, "mulReg")
    if "graphs" in suites:
        cases.update(cupy_graph_cases(cp, ops))
    if "jit" in suites:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from peer_jit import cupy_jit_cases

        cases.update(cupy_jit_cases(cp, ops, device_seconds, wall_per_op))
    if "random" in suites:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from peer_random import cupy_random_cases

        cases.update(cupy_random_cases(cp, ops, device_seconds))
    if "matmul" in suites:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from peer_matmul import cupy_matmul_cases

        cases.update(cupy_matmul_cases(cp, ops, wall_per_op))
    if "linalg" in suites:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from peer_linalg import cupy_linalg_cases

        cases.update(cupy_linalg_cases(cp, ops, device_seconds))
    if "arrays" in suites:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from peer_arrays import cupy_array_cases

        cases.update(cupy_array_cases(cp, ops, device_seconds))
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
    if "reduction" in suites:
        cases.update(reduction_cases(ops))  # no ReductionKernel: those rows stay blank
    if "graphs" in suites:
        cases.update(torch_graph_cases(torch))  # no raw kernels: those rows stay blank
    if "random" in suites:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from peer_random import torch_random_cases

        cases.update(torch_random_cases(torch, ops, device_seconds))
    if "matmul" in suites:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from peer_matmul import torch_matmul_cases

        cases.update(torch_matmul_cases(torch, ops, wall_per_op))
    if "linalg" in suites:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from peer_linalg import torch_linalg_cases

        cases.update(torch_linalg_cases(torch, ops, device_seconds))
    if "arrays" in suites:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from peer_arrays import torch_array_cases

        cases.update(torch_array_cases(torch, ops, device_seconds))
    if "distributed" in suites:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from peer_distributed import torch_distributed_cases

        cases.update(torch_distributed_cases(torch))
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
    print("vs X: cuarr's speed over X's (>1: cuarr faster); GBps/TFLOPs rates, us/ms per call")


def selected_suites():
    want = os.environ.get("CUARR_BENCH_SUITES", "")
    if not want:
        return set(SUITES)
    return {s for s in want.split(",") if s in SUITES}


def main(argv):
    if len(argv) == 4 and argv[1] == "--cupy-ewk-child":
        cupy_child(argv[2], argv[3])
        return 0
    if len(argv) == 4 and argv[1] == "--cupy-rk-child":
        cupy_rk_child(argv[2], argv[3])
        return 0
    if len(argv) == 4 and argv[1] == "--cupy-raw-child":
        cupy_raw_child(argv[2], argv[3])
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
