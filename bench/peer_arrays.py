"""bench/peer_arrays.py -- bench/arrays.lua's cases through CuPy and PyTorch, under the same
names and with the same sizes, checks, clocks and byte counts: sorts in millions of keys per
second by events, the first sort of a fresh process, unique, a[mask] and nonzero as the
milliseconds a caller waits for, take, concatenate, vstack, where and a flip's copy as GB/s by
events.  Indices are 0-based here and 1-based in cuarr.  compare_peers.py hands in its ops and
clocks."""

import os
import statistics
import subprocess
import sys
import time

N = 1 << 26
N_UNIQUE = 1 << 24
SIDE = 8192
REPS = 10


def gbps(nbytes, seconds):
    return nbytes / seconds / 1e9


def mkeys(n, seconds):
    return n / seconds / 1e6


def check(ok, what):
    if not ok:
        raise AssertionError(what)


def wall_ms(ops, fn):
    """Milliseconds the caller waits for fn(), median of 7 after 3 warm-up calls."""
    for _ in range(3):
        fn()
    v = []
    for _ in range(7):
        ops.sync()
        t0 = time.perf_counter()
        fn()
        ops.sync()
        v.append(time.perf_counter() - t0)
    return 1e3 * statistics.median(v)


FIRST_SORT_CHILD = {
    "cupy": """
import time, cupy as cp
a = cp.random.default_rng(4).random(1 << 20, dtype=cp.float32)
cp.cuda.Device().synchronize()
t0 = time.perf_counter()
s = cp.sort(a)
cp.cuda.Device().synchronize()
ms = 1e3 * (time.perf_counter() - t0)
assert bool((s[1:] >= s[:-1]).all())
print(f"first_sort_ms {ms:.6f}")
""",
    "torch": """
import time, torch
a = torch.rand(1 << 20, dtype=torch.float32, device="cuda")
torch.cuda.synchronize()
t0 = time.perf_counter()
s = torch.sort(a).values
torch.cuda.synchronize()
ms = 1e3 * (time.perf_counter() - t0)
assert bool((s[1:] >= s[:-1]).all())
print(f"first_sort_ms {ms:.6f}")
""",
}


def first_sort_ms(peer):
    p = subprocess.run([sys.executable, "-c", FIRST_SORT_CHILD[peer]], capture_output=True,
                       text=True, env=dict(os.environ), timeout=300)
    for line in p.stdout.splitlines():
        if line.startswith("first_sort_ms "):
            return float(line.split()[1])
    raise RuntimeError(f"fresh process failed: {p.stdout}{p.stderr}")


class Api:
    """What the cases need of a peer, named as NumPy names it."""

    def __init__(self, name, uniform, integers, sort, argsort, unique, nonzero, take, concat,
                 vstack, where, flip, empty, is_sorted, count):
        self.name, self.uniform, self.integers = name, uniform, integers
        self.sort, self.argsort, self.unique, self.nonzero = sort, argsort, unique, nonzero
        self.take, self.concat, self.vstack = take, concat, vstack
        self.where, self.flip = where, flip
        self.empty, self.is_sorted, self.count = empty, is_sorted, count


def array_cases(api, ops, device_seconds):
    def sort_f32():
        a = api.uniform(N, 1)
        check(api.is_sorted(api.sort(a)), "sort float32: not sorted")
        return mkeys(N, device_seconds(ops, lambda r: api.sort(a), REPS))

    def argsort_f32():
        a = api.uniform(N, 2)
        check(api.is_sorted(api.take(a, api.argsort(a))), "argsort float32: not sorted")
        return mkeys(N, device_seconds(ops, lambda r: api.argsort(a), REPS))

    def sort_i64():
        a = api.integers(-(1 << 62), 1 << 62, N, 3)
        check(api.is_sorted(api.sort(a)), "sort int64: not sorted")
        return mkeys(N, device_seconds(ops, lambda r: api.sort(a), REPS))

    def unique_ms():
        a = api.integers(0, 1000, N_UNIQUE, 5, small=True)
        u = api.unique(a)
        check(int(u.shape[0]) == 1000 and int(u[0]) == 0 and int(u[999]) == 999, "unique: values")
        return wall_ms(ops, lambda: api.unique(a))

    def mask_ms():
        a, mask = api.uniform(N, 6), api.uniform(N, 7) < 0.5
        check(int(a[mask].shape[0]) == api.count(mask), "a[mask]: wrong size")
        return wall_ms(ops, lambda: a[mask])

    def nonzero_ms():
        mask = api.uniform(N, 8) < 0.5
        check(int(api.nonzero(mask).shape[0]) == api.count(mask), "nonzero: wrong size")
        return wall_ms(ops, lambda: api.nonzero(mask))

    def take_gbps():
        a = api.uniform(N, 9)
        idx = api.integers(0, N, N, 10)
        got = api.take(a, idx)
        check(float(got[0]) == float(a[int(idx[0])]), "take: wrong value")
        return gbps(N * (8 + 4 + 4), device_seconds(ops, lambda r: api.take(a, idx), REPS))

    def concat_gbps():
        part = N // 8
        pieces = [api.uniform(part, 10 + i) for i in range(8)]
        out = api.empty(N)
        api.concat(pieces, out)
        check(float(out[part]) == float(pieces[1][0]), "concatenate: wrong value")
        return gbps(2 * N * 4, device_seconds(ops, lambda r: api.concat(pieces, out), REPS))

    def vstack_gbps():
        x = api.uniform(SIDE * SIDE, 20).reshape(SIDE, SIDE)
        y = api.uniform(SIDE * SIDE, 21).reshape(SIDE, SIDE)
        check(float(api.vstack([x, y])[SIDE, 0]) == float(y[0, 0]), "vstack: wrong value")
        seconds = device_seconds(ops, lambda r: api.vstack([x, y]), REPS)
        return gbps(2 * 2 * SIDE * SIDE * 4, seconds)

    def where_gbps():
        mask, x, y = api.uniform(N, 22) < 0.5, api.uniform(N, 23), api.uniform(N, 24)
        w = api.where(mask, x, y)
        check(float(w[0]) == float(x[0] if bool(mask[0]) else y[0]), "where: wrong value")
        return gbps(N * 13, device_seconds(ops, lambda r: api.where(mask, x, y), REPS))

    def flip_gbps():
        a = api.uniform(N, 25)
        f = api.flip(a)
        check(float(f[0]) == float(a[N - 1]), "flip: wrong value")
        return gbps(2 * N * 4, device_seconds(ops, lambda r: api.flip(a), REPS))

    return {
        "sort_f32_2p26_Mkeys": sort_f32,
        "argsort_f32_2p26_Mkeys": argsort_f32,
        "sort_i64_2p26_Mkeys": sort_i64,
        "sort_first_call_ms": lambda: first_sort_ms(api.name),
        "unique_i32_2p24_ms": unique_ms,
        "mask_select_2p26_ms": mask_ms,
        "nonzero_2p26_ms": nonzero_ms,
        "take_f32_2p26_GBps": take_gbps,
        "concat_8_2p26_GBps": concat_gbps,
        "vstack_8192_GBps": vstack_gbps,
        "where_2p26_GBps": where_gbps,
        "flip_copy_2p26_GBps": flip_gbps,
    }


def cupy_array_cases(cp, ops, device_seconds):
    def uniform(n, seed):
        return cp.random.default_rng(seed).random(n, dtype=cp.float32)

    def integers(lo, hi, n, seed, small=False):
        dtype = cp.int32 if small else cp.int64
        return cp.random.default_rng(seed).integers(lo, hi, n, dtype=dtype)

    def concat(pieces, out):
        cp.concatenate(pieces, out=out)

    api = Api("cupy", uniform, integers, cp.sort, lambda a: cp.argsort(a, kind="stable"),
              cp.unique, lambda m: cp.nonzero(m)[0], cp.take, concat, cp.vstack, cp.where,
              lambda a: cp.flip(a).copy(), lambda n: cp.empty(n, dtype=cp.float32),
              lambda v: bool((v[1:] >= v[:-1]).all()), lambda m: int(cp.count_nonzero(m)))
    return array_cases(api, ops, device_seconds)


def torch_array_cases(torch, ops, device_seconds):
    dev = torch.device("cuda")

    def gen(seed):
        g = torch.Generator(device=dev)
        g.manual_seed(seed)
        return g

    def uniform(n, seed):
        return torch.rand(n, dtype=torch.float32, device=dev, generator=gen(seed))

    def integers(lo, hi, n, seed, small=False):
        dtype = torch.int32 if small else torch.int64
        return torch.randint(lo, hi, (n,), dtype=dtype, device=dev, generator=gen(seed))

    def concat(pieces, out):
        torch.cat(pieces, out=out)

    api = Api("torch", uniform, integers, lambda a: torch.sort(a).values,
              lambda a: torch.argsort(a, stable=True), torch.unique,
              lambda m: torch.nonzero(m).reshape(-1), torch.take, concat, torch.vstack,
              torch.where, lambda a: torch.flip(a, (0,)),
              lambda n: torch.empty(n, dtype=torch.float32, device=dev),
              lambda v: bool((v[1:] >= v[:-1]).all()), lambda m: int(torch.count_nonzero(m)))
    return array_cases(api, ops, device_seconds)
