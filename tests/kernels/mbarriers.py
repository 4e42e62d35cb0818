"""Kernels the transaction-barrier tests share (tests/exec/test_mbarriers.py, the PTX checks of
tests/cuda/test_ptx_mbarriers.py, the planted bugs of tests/check/planted_mbarriers.py): the
K-tiled f32 matmul of tests/kernels/async_copies.py with its A and B tiles brought in by bulk
copies, three stages deep (triple buffering), each stage with a `full` barrier (its tiles have
landed) and an `empty` one (every lane is done with it); and a one-stage copy of a tile.

The matmul multiplies in the order of `async_copies.matmul_double_buffered`, so the two give the
same bits."""
import tack

STAGES = tack.constant(3)
TILE_BYTES = tack.constant(2 * 16 * 16 * 4)  # the A and the B tile of one stage, f32


@tack.kernel
def matmul_bulk(a, b, c):
    for g in range(c.shape[0] * c.shape[1]):
        As = tack.shared(tack.f32, 768)  # three 16×16 A tiles, one per stage
        Bs = tack.shared(tack.f32, 768)
        full = tack.mbarriers(3)  # stage s: its two tiles have landed
        empty = tack.mbarriers(3)  # stage s: every lane is done reading it
        tid = tack.thread_id()
        tile = g // 256
        row0 = (tile // (c.shape[1] // 16)) * 16
        col0 = (tile % (c.shape[1] // 16)) * 16
        r = tid // 16
        q = tid % 16
        ktiles = a.shape[1] // 16
        if tid == 0:
            for s in range(STAGES):
                tack.mbarrier_init(full[s], 1)  # lane 0's arrive_tx
                tack.mbarrier_init(empty[s], 256)  # every lane, after its reads
        tack.barrier()
        acc = 0.0
        for t in range(-2, ktiles):
            nxt = t + 2  # the tile to load, two ahead of the one used
            if nxt < ktiles:
                s = nxt % STAGES
                if q == 0:  # one lane per row copies that row of each tile (64 bytes)
                    # the stage's previous tile (nxt - 3) is released; phase -1: none yet
                    tack.mbarrier_wait(empty[s], nxt // STAGES - 1)
                    if r == 0:
                        tack.mbarrier_arrive_tx(full[s], TILE_BYTES)
                    tack.async_bulk_copy(As, s * 256 + r * 16, a, (row0 + r, nxt * 16), 16,
                                         full[s])
                    tack.async_bulk_copy(Bs, s * 256 + r * 16, b, (nxt * 16 + r, col0), 16,
                                         full[s])
            if t >= 0:
                s = t % STAGES
                tack.mbarrier_wait(full[s], t // STAGES)  # round t // 3 of stage s
                base = s * 256
                for k in range(16):
                    acc += As[base + r * 16 + k] * Bs[base + k * 16 + q]
                tack.mbarrier_arrive(empty[s])
        c[row0 + r, col0 + q] = acc


@tack.kernel
def copy_tile(x, out):
    for i in range(out.shape[0]):
        buf = tack.shared_like(x, 256)
        bar = tack.mbarriers(1)
        tid = tack.thread_id()
        if tid == 0:
            tack.mbarrier_init(bar[0], 1)
        tack.barrier()
        if tid == 0:
            tack.mbarrier_arrive_tx(bar[0], 256 * 4)
            tack.async_bulk_copy(buf, 0, x, i, 256, bar[0])
        tack.mbarrier_wait(bar[0], 0)
        out[i] = buf[255 - tid]


@tack.kernel
def handoff(x, out):
    """Lane 0 writes a value and arrives; every lane waits and reads it: a barrier without bulk
    copies (sm_80). tack.check reports the plain write and read as a race: its race analysis
    orders plain accesses by tack.barrier() only (docs/checking.md, "Transaction barriers")."""
    for i in range(out.shape[0]):
        buf = tack.shared_like(x, 1)
        bar = tack.mbarriers(1)
        tid = tack.thread_id()
        if tid == 0:
            tack.mbarrier_init(bar[0], 1)
        tack.barrier()
        if tid == 0:
            buf[0] = x[i // 256]
            tack.mbarrier_arrive(bar[0])
        tack.mbarrier_wait(bar[0], 0)
        out[i] = buf[0] + tid
