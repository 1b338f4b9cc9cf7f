"""bench/peer_matmul.py -- bench/matmul.lua's cases through CuPy and PyTorch, under the same
names: float32 4096 and float64 and float16 8192 products and a (1000, 64, 64) @ (1000, 64, 64)
float32 batch as TFLOP/s (best batch by events, as matmul.lua and ceilings.c time them), and a
64 x 64 float32 product's host cost per call (compare_peers.py's wall_per_op, as matmul.lua's
per-op rows).  compare_peers.py hands in its ops and clocks.

Both peers are set to cuarr's default precision: float32 without TF32, float16 summed in
float32 with cuBLAS's float16 split-K reductions ruled out.  PyTorch through its flags; CuPy
computes float32 in float32 unless CUPY_TF32 is set (its float32 cases then refuse to run), and
its cuBLAS handle is given the math mode that rules the reductions out."""

import math
import os

BATCHES = 7  # timed batches of a rate, the best taken
POISON = -3.0  # what outputs hold before the product writes them
SMALL = 64
# Relative tolerances against float64 sums of the same inputs, as in bench/matmul.lua.
TOL = {"float64": 1e-11, "float32": 1e-4, "float16": 3e-3}
# name: (n, dtype, calls per timed batch, batch or None), as in matmul.lua and ceilings.c
PRODUCTS = {
    "matmul_f32_4096_TFLOPs": (4096, "float32", 20, None),
    "matmul_f64_8192_TFLOPs": (8192, "float64", 5, None),
    "matmul_f16_8192_TFLOPs": (8192, "float16", 20, None),
    "matmul_f32_1000x64_TFLOPs": (64, "float32", 500, 1000),
}
# cublasMath_t: CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION
CUBLAS_DISALLOW_REDUCED_PRECISION_REDUCTION = 16


def best_device_seconds(ops, fn, reps, batches=BATCHES):
    """Device seconds per call of fn(): the best of `batches` batches of `reps` back-to-back
    calls between two events, after one untimed batch."""
    for _ in range(reps):
        fn()
    ops.sync()
    e0, e1 = ops.event(), ops.event()
    best = math.inf
    for _ in range(batches):
        e0.record()
        for _ in range(reps):
            fn()
        e1.record()
        e1.synchronize()
        best = min(best, ops.elapsed_ms(e0, e1) / 1e3 / reps)
    return best


def spots(n):
    """0-based positions checked in an n x n result, as matmul.lua's (1-based) spots."""
    return [(0, 0), (0, n - 1), (n - 1, 0), (n - 1, n - 1), (n // 3 - 1, n // 2), (n - 6, 6)]


def check_element(got, row, col, dtype, where):
    """got against the float64 sum of row * col (host float lists)."""
    want = math.fsum(float(x) * float(y) for x, y in zip(row, col))
    got = float(got)
    if not abs(got - want) <= TOL[dtype] * abs(want):
        raise AssertionError(f"{dtype} product {where}: got {got:.9g}, want {want:.9g}")


def check_result(tolist, a, b, c, n, dtype, batch):
    """A few elements of c = a @ b against the host's sums (tolist: device array -> lists)."""
    for p in (0, batch // 2 - 1, batch - 1) if batch else (None,):
        am, bm, cm = (a, b, c) if p is None else (a[p], b[p], c[p])
        for i, j in spots(n):
            where = f"[{i}][{j}]" if p is None else f"[{p}][{i}][{j}]"
            check_element(tolist(cm[i, j]), tolist(am[i]), tolist(bm[:, j]), dtype, where)


def check_small(tolist, a, b, c):
    """The whole of a 64 x 64 float32 product against the host's."""
    ha, hb, hc = tolist(a), tolist(b), tolist(c)
    for i in range(SMALL):
        for j in range(SMALL):
            col = [hb[k][j] for k in range(SMALL)]
            check_element(hc[i][j], ha[i], col, "float32", f"64 x 64 [{i}][{j}]")


def tflops(n, batch, seconds):
    return 2 * n**3 * (batch or 1) / seconds / 1e12


# ---------------------------------------------------------------- CuPy


def cupy_matmul_cases(cp, ops, wall_per_op):
    tf32 = int(os.getenv("CUPY_TF32", "0")) > 0
    math_mode_error = None
    try:
        from cupy_backends.cuda.libs import cublas

        cublas.setMathMode(
            cp.cuda.device.get_cublas_handle(), CUBLAS_DISALLOW_REDUCED_PRECISION_REDUCTION
        )
    except Exception as e:  # an older or newer CuPy: the float16 row says why it is missing
        math_mode_error = f"{type(e).__name__}: {e}"
    tolist = lambda x: x.get().tolist()  # noqa: E731

    def refuse(dtype):
        if dtype == "float32" and tf32:
            raise RuntimeError("CUPY_TF32 is set: CuPy's float32 products would use TF32")
        if dtype == "float16" and math_mode_error:
            raise RuntimeError(f"setting CuPy's cuBLAS math mode failed ({math_mode_error})")

    def uniform(g, shape, dtype):
        if dtype == "float16":
            return g.random(shape, dtype=cp.float32).astype(cp.float16)
        return g.random(shape, dtype=dtype)

    def product(n, dtype, reps, batch):
        refuse(dtype)
        g = cp.random.default_rng(17)
        shape = (batch, n, n) if batch else (n, n)
        a, b = uniform(g, shape, dtype), uniform(g, shape, dtype)
        c = cp.full(shape, POISON, dtype=dtype)
        t = best_device_seconds(ops, lambda: cp.matmul(a, b, out=c), reps)
        check_result(tolist, a, b, c, n, dtype, batch)
        return tflops(n, batch, t)

    def per_op(alloc):
        refuse("float32")
        g = cp.random.default_rng(18)
        a = g.random((SMALL, SMALL), dtype=cp.float32)
        b = g.random((SMALL, SMALL), dtype=cp.float32)
        c = cp.full((SMALL, SMALL), POISON, dtype=cp.float32)
        last = [c]

        def loop_out(n_ops):
            for _ in range(n_ops):
                cp.matmul(a, b, out=c)

        def loop_alloc(n_ops):
            r = None
            for _ in range(n_ops):
                r = cp.matmul(a, b)
            last[0] = r

        t = wall_per_op(ops, loop_alloc if alloc else loop_out)
        check_small(tolist, a, b, last[0])
        return 1e6 * t

    cases = {name: (lambda p=p: product(*p)) for name, p in PRODUCTS.items()}
    cases["matmul_f32_64_us"] = lambda: per_op(False)
    cases["matmul_alloc_f32_64_us"] = lambda: per_op(True)
    return cases


# ---------------------------------------------------------------- PyTorch


def torch_highest_precision(torch):
    """float32 products without TF32 and float16 ones without reduced-precision reductions.
    PyTorch 2.9 and later take the first through fp32_precision and raise when the legacy
    allow_tf32 flag is mixed with it, so the legacy flag is set only where the new one is
    missing or refuses "ieee"."""
    m = torch.backends.cuda.matmul
    try:
        m.fp32_precision = "ieee"
    except (AttributeError, RuntimeError, ValueError):
        m.allow_tf32 = False
    m.allow_fp16_reduced_precision_reduction = False


def torch_matmul_cases(torch, ops, wall_per_op):
    torch_highest_precision(torch)
    dev = torch.device("cuda")
    types = {"float16": torch.float16, "float32": torch.float32, "float64": torch.float64}
    tolist = lambda x: x.cpu().tolist()  # noqa: E731

    def uniform(g, shape, dtype):
        if dtype == "float16":
            return torch.rand(shape, generator=g, device=dev).to(torch.float16)
        return torch.rand(shape, generator=g, device=dev, dtype=types[dtype])

    def generator(seed):
        g = torch.Generator(device=dev)
        g.manual_seed(seed)
        return g

    def product(n, dtype, reps, batch):
        g = generator(17)
        shape = (batch, n, n) if batch else (n, n)
        a, b = uniform(g, shape, dtype), uniform(g, shape, dtype)
        c = torch.full(shape, POISON, dtype=types[dtype], device=dev)
        t = best_device_seconds(ops, lambda: torch.matmul(a, b, out=c), reps)
        check_result(tolist, a, b, c, n, dtype, batch)
        return tflops(n, batch, t)

    def per_op(alloc):
        g = generator(18)
        a, b = uniform(g, (SMALL, SMALL), "float32"), uniform(g, (SMALL, SMALL), "float32")
        c = torch.full((SMALL, SMALL), POISON, dtype=torch.float32, device=dev)
        last = [c]

        def loop_out(n_ops):
            for _ in range(n_ops):
                torch.matmul(a, b, out=c)

        def loop_alloc(n_ops):
            r = None
            for _ in range(n_ops):
                r = torch.matmul(a, b)
            last[0] = r

        t = wall_per_op(ops, loop_alloc if alloc else loop_out)
        check_small(tolist, a, b, last[0])
        return 1e6 * t

    cases = {name: (lambda p=p: product(*p)) for name, p in PRODUCTS.items()}
    cases["matmul_f32_64_us"] = lambda: per_op(False)
    cases["matmul_alloc_f32_64_us"] = lambda: per_op(True)
    return cases
