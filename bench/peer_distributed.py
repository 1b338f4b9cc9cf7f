"""bench/peer_distributed.py -- bench/distributed.lua's cases through PyTorch, under the same
names: all_reduce of float32 across two devices at 1 MiB and 256 MiB per device through
torch.cuda.nccl.all_reduce (NCCL over the devices of one process, as cuarr's communicator is), as
bus bandwidth, and a 256 MiB copy from device 0 to device 1 (Tensor.to), as GB/s.  The clock is
distributed.lua's: every device synchronized around a batch of calls, median of 7 batches after a
warm-up call.  Nothing when fewer than two devices are present."""

import statistics
import time

MIB = 1 << 20
BATCHES = 7


def torch_distributed_cases(torch):
    if torch.cuda.device_count() < 2:
        return {}
    import torch.cuda.nccl as nccl

    devices = (0, 1)

    def drain():
        for d in devices:
            torch.cuda.synchronize(d)

    def seconds_per_call(fn, reps):
        fn()
        v = []
        for _ in range(BATCHES):
            drain()
            t0 = time.perf_counter()
            for _ in range(reps):
                fn()
            drain()
            v.append((time.perf_counter() - t0) / reps)
        return statistics.median(v)

    def all_reduce_gbps(nbytes, reps):
        n = nbytes // 4
        parts = [torch.full((n,), float(d + 1), dtype=torch.float32, device=f"cuda:{d}")
                 for d in devices]
        nccl.all_reduce(parts)
        drain()
        if float(parts[0][-1]) != 3.0 or float(parts[1][0]) != 3.0:
            raise AssertionError("all_reduce: the sum is not 3")
        return nbytes / seconds_per_call(lambda: nccl.all_reduce(parts), reps) / 1e9

    def peer_copy_gbps():
        nbytes = 256 * MIB
        a = torch.arange(nbytes // 4, dtype=torch.float32, device="cuda:0")
        b = a.to("cuda:1")
        if float(b[4096]) != 4096:  # arange is exact in float32 below 2^24
            raise AssertionError("the copy on device 1 is not a's")
        return nbytes / seconds_per_call(lambda: a.to("cuda:1"), 10) / 1e9

    return {
        "allreduce_f32_1MiB_GBps": lambda: all_reduce_gbps(MIB, 200),
        "allreduce_f32_256MiB_GBps": lambda: all_reduce_gbps(256 * MIB, 10),
        "peer_copy_256MiB_GBps": peer_copy_gbps,
    }
