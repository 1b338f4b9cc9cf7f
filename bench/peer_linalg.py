"""bench/peer_linalg.py -- bench/linalg.lua's cases through CuPy and PyTorch, under the same
names: det, solve (b of shape (4096, 1)) and inv of one 4096 x 4096 float64 matrix, det and
eigvalsh of a stack of 10 000 8 x 8 and svd of that stack in float32, as milliseconds of
device time per call (compare_peers.py's device_seconds: events around batches of
back-to-back calls, the median of 7 batches after 3 warm-up calls, as linalg.lua times
cuarr's through bench/timing.lua).  compare_peers.py hands in its ops and clock.

The inputs and checks are linalg.lua's: (uniform [0, 1) + n I) / n drawn on the device, and
before timing det against the determinant lemma on I + u v^T / n, the timed det positive and
finite, the residuals of solve and inv, the stack's determinants against the host's
(NumPy's for CuPy, PyTorch's CPU for PyTorch, where linalg.lua eliminates in Lua), the
eigenvalues' sum against the traces, the SVD's squared singular values against the squared
entries and u diag(s) vh against the stack.  Each call's result is dropped as it returns, as
linalg.lua closes cuarr's."""

import math

N, BATCH, SMALL = 4096, 10000, 8
REPS_LARGE, REPS_STACK = 5, 100  # calls per timed batch, as in linalg.lua
TOL = 1e-9  # relative to each quantity's scale, as in linalg.lua
TOL32 = 5e-5  # the float32 SVD's, as in linalg.lua


class Peer:
    """What the cases need of a peer: the device's linalg and arrays, and host values."""

    def __init__(self, linalg, rng, uniform, eye, host_det, tolist, f32, f64):
        self.linalg, self.rng, self.uniform, self.eye = linalg, rng, uniform, eye
        self.host_det, self.tolist = host_det, tolist
        self.f32, self.f64 = f32, f64  # casts of a device array


def max_abs(x):
    return float(abs(x).max())


def well_conditioned(p, g, shape, n):
    """(uniform + n I) / n of the shape (the last two axes n x n)."""
    return p.uniform(g, shape) / n + p.eye(n)


def check_det_known(p, n):
    g = p.rng(23)
    u, v = p.uniform(g, (n, 1)), p.uniform(g, (1, n))
    m = (u @ v) / n + p.eye(n)
    want = 1 + float((u.reshape(n) * v.reshape(n)).sum()) / n
    got = float(p.linalg.det(m))
    if not abs(got - want) <= TOL * abs(want):
        raise AssertionError(f"det of I + u v^T / n ({n}): got {got:.17g}, want {want:.17g}")


def check_det_finite(d, what):
    v = float(d)
    if not (0 < v < math.inf):
        raise AssertionError(f"{what}: det {v:.17g}, want positive and finite")


def check_solve(a, b, x):
    n = a.shape[0]
    if tuple(x.shape) != (n, 1):
        raise AssertionError(f"solve: result of shape {tuple(x.shape)}, want ({n}, 1)")
    err = max_abs(a @ x - b)
    if not err <= TOL * max_abs(b):
        raise AssertionError(f"solve {n}: max |a x - b| = {err:.3g}")


def check_inv(p, a, x):
    n = a.shape[0]
    err = max_abs(a @ x - p.eye(n))
    if not err <= TOL:
        raise AssertionError(f"inv {n}: max |a inv(a) - I| = {err:.3g}")


def check_det_stack(p, a, d):
    want, got = p.host_det(a), p.tolist(d)
    if len(got) != len(want):
        raise AssertionError(f"det of the stack: {len(got)} results, want {len(want)}")
    for i, (x, y) in enumerate(zip(got, want)):
        if not abs(x - y) <= TOL * abs(y):
            raise AssertionError(f"det of the stack [{i}]: got {x:.17g}, want {y:.17g}")


def linalg_cases(p, ops, device_seconds):
    la = p.linalg

    def det_ms():
        check_det_known(p, N)
        a = well_conditioned(p, p.rng(21), (N, N), N)
        check_det_finite(la.det(a), f"det {N}")
        return 1e3 * device_seconds(ops, lambda r: la.det(a), REPS_LARGE)

    def solve_ms():
        g = p.rng(21)
        a = well_conditioned(p, g, (N, N), N)
        b = p.uniform(g, (N, 1))
        check_solve(a, b, la.solve(a, b))
        return 1e3 * device_seconds(ops, lambda r: la.solve(a, b), REPS_LARGE)

    def inv_ms():
        a = well_conditioned(p, p.rng(21), (N, N), N)
        check_inv(p, a, la.inv(a))
        return 1e3 * device_seconds(ops, lambda r: la.inv(a), REPS_LARGE)

    def det_stack_ms():
        a = well_conditioned(p, p.rng(22), (BATCH, SMALL, SMALL), SMALL)
        check_det_stack(p, a, la.det(a))
        return 1e3 * device_seconds(ops, lambda r: la.det(a), REPS_STACK)

    def eigvalsh_stack_ms():
        a = well_conditioned(p, p.rng(23), (BATCH, SMALL, SMALL), SMALL)
        got = float(la.eigvalsh(a).sum())
        want = float(a.diagonal(0, -2, -1).sum())
        if not abs(got - want) <= TOL * abs(want):
            raise AssertionError(f"eigvalsh of the stack: sum {got:.17g}, traces {want:.17g}")
        return 1e3 * device_seconds(ops, lambda r: la.eigvalsh(a), REPS_STACK)

    def svd_stack_ms():
        a64 = well_conditioned(p, p.rng(24), (BATCH, SMALL, SMALL), SMALL)
        a = p.f32(a64)
        u, s, vh = la.svd(a)
        s64 = p.f64(s)
        got, want = float((s64 * s64).sum()), float((a64 * a64).sum())
        if not abs(got - want) <= TOL32 * abs(want):
            raise AssertionError(f"svd of the stack: squared sum {got:.9g}, entries' {want:.9g}")
        worst = max_abs((u * s[..., None, :]) @ vh - a)
        if not worst <= TOL32:
            raise AssertionError(f"svd of the stack: max |u diag(s) vh - a| = {worst:.3g}")
        return 1e3 * device_seconds(ops, lambda r: la.svd(a), REPS_STACK)

    return {
        "linalg_det_f64_4096_ms": det_ms,
        "linalg_solve_f64_4096_ms": solve_ms,
        "linalg_inv_f64_4096_ms": inv_ms,
        "linalg_det_f64_10000x8_ms": det_stack_ms,
        "linalg_eigvalsh_f64_10000x8_ms": eigvalsh_stack_ms,
        "linalg_svd_f32_10000x8_ms": svd_stack_ms,
    }


def cupy_linalg_cases(cp, ops, device_seconds):
    import numpy as np

    p = Peer(
        cp.linalg,
        cp.random.default_rng,
        lambda g, shape: g.random(shape, dtype=cp.float64),
        lambda n: cp.eye(n, dtype=cp.float64),
        lambda a: np.linalg.det(cp.asnumpy(a)).tolist(),
        lambda x: x.get().tolist(),
        lambda x: x.astype(cp.float32),
        lambda x: x.astype(cp.float64),
    )
    return linalg_cases(p, ops, device_seconds)


def torch_linalg_cases(torch, ops, device_seconds):
    dev = torch.device("cuda")

    def rng(seed):
        g = torch.Generator(device=dev)
        g.manual_seed(seed)
        return g

    p = Peer(
        torch.linalg,
        rng,
        lambda g, shape: torch.rand(shape, generator=g, device=dev, dtype=torch.float64),
        lambda n: torch.eye(n, dtype=torch.float64, device=dev),
        lambda a: torch.linalg.det(a.cpu()).tolist(),
        lambda x: x.cpu().tolist(),
        lambda x: x.to(torch.float32),
        lambda x: x.to(torch.float64),
    )
    return linalg_cases(p, ops, device_seconds)
