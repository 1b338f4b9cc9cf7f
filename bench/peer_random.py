"""bench/peer_random.py -- bench/random.lua's cases through CuPy (its Generator and its legacy
API) and PyTorch, under the same names: uniform and standard normal float32 at 2^28 and randint
int64 at 2^27, as the output's bytes over device time, and a permutation of 2^24 in ms.  compare_peers.py hands in its clocks."""

N_FLOAT = 1 << 28
N_INT = 1 << 27
N_PERM = 1 << 24
REPS = 10


def gbps(nbytes, seconds):
    return nbytes / seconds / 1e9


def cupy_random_cases(cp, ops, device_seconds):
    gen = cp.random.default_rng(1)
    out = {}

    def buffer(dtype):
        if dtype not in out:
            out[dtype] = cp.empty(N_FLOAT, dtype=dtype)
        return out[dtype]

    def gen_uniform():
        o = buffer(cp.float32)
        return gbps(o.nbytes, device_seconds(ops, lambda r: gen.random(N_FLOAT, cp.float32, o), REPS))

    def gen_normal():
        o = buffer(cp.float32)
        f = lambda r: gen.standard_normal(N_FLOAT, cp.float32, o)  # noqa: E731
        return gbps(o.nbytes, device_seconds(ops, f, REPS))

    def gen_randint():
        f = lambda r: gen.integers(0, 1000, N_INT, dtype=cp.int64)  # noqa: E731
        return gbps(N_INT * 8, device_seconds(ops, f, REPS))

    def legacy_uniform():
        f = lambda r: cp.random.random_sample(N_FLOAT, dtype=cp.float32)  # noqa: E731
        return gbps(N_FLOAT * 4, device_seconds(ops, f, REPS))

    def legacy_normal():
        f = lambda r: cp.random.standard_normal(N_FLOAT, dtype=cp.float32)  # noqa: E731
        return gbps(N_FLOAT * 4, device_seconds(ops, f, REPS))

    def legacy_randint():
        f = lambda r: cp.random.randint(0, 1000, N_INT, dtype=cp.int64)  # noqa: E731
        return gbps(N_INT * 8, device_seconds(ops, f, REPS))

    def permutation():
        f = lambda r: cp.random.permutation(N_PERM)  # noqa: E731
        return device_seconds(ops, f, REPS) * 1e3

    return {
        "rand_permutation_2p24_ms": permutation,
        "rand_uniform_f32_2p28_GBps": gen_uniform,
        "rand_normal_f32_2p28_GBps": gen_normal,
        "rand_randint_i64_2p27_GBps": gen_randint,
        "rand_uniform_f32_2p28_legacy_GBps": legacy_uniform,
        "rand_normal_f32_2p28_legacy_GBps": legacy_normal,
        "rand_randint_i64_2p27_legacy_GBps": legacy_randint,
    }


def torch_random_cases(torch, ops, device_seconds):
    dev = torch.device("cuda")
    gen = torch.Generator(device=dev)
    gen.manual_seed(1)
    out = torch.empty(N_FLOAT, dtype=torch.float32, device=dev)
    ints = torch.empty(N_INT, dtype=torch.int64, device=dev)

    def uniform():
        return gbps(N_FLOAT * 4, device_seconds(ops, lambda r: out.uniform_(generator=gen), REPS))

    def normal():
        return gbps(N_FLOAT * 4, device_seconds(ops, lambda r: out.normal_(generator=gen), REPS))

    def randint():
        f = lambda r: ints.random_(0, 1000, generator=gen)  # noqa: E731
        return gbps(N_INT * 8, device_seconds(ops, f, REPS))

    def permutation():
        f = lambda r: torch.randperm(N_PERM, device=dev, generator=gen)  # noqa: E731
        return device_seconds(ops, f, REPS) * 1e3

    return {
        "rand_permutation_2p24_ms": permutation,
        "rand_uniform_f32_2p28_GBps": uniform,
        "rand_normal_f32_2p28_GBps": normal,
        "rand_randint_i64_2p27_GBps": randint,
    }
