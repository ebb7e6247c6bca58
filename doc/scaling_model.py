#!/usr/bin/env python3
"""scaling_model.py: the per-iteration model of doc/scaling.md for the distributed
reliable-update CG on 3D Poisson (python3 doc/scaling_model.py prints its tables)."""
import math

# ---- measured here: one core, 3D Poisson 100^3, bench/bench_cg (doc/scaling.md, table 1) ----
T_ROW = {"fp64": 14.36e-9, "fixed16": 10.80e-9}   # s per unknown per CG iteration
SPMV_SHARE = {"fp64": 10.19 / 14.36, "fixed16": 4.05 / 10.80}  # of an iteration, in the SpMV
CORE_BW = 10.5e9      # B/s the core's FP64 SpMV streams (107 MB in 10.19 ms)
# Packing and unpacking a halo value, beyond what FP64's copy costs (bench_mpi_halo, the
# exchange alone: 10^4 values each way, FIXED16 30.6 us against FP64 16.5 us; FP32 no dearer).
PACK = {"fp64": 0.0, "fp32": 0.0, "fixed16": 1.4e-9}  # s per value, one core
# ---- assumed (not measurable on one 2-core VM) ----
NIC_BW = 12.5e9       # B/s: 100 Gb/s InfiniBand (HDR100) per node
LAT = 1.5e-6          # s per point-to-point message
AR_STEP = 1.5e-6      # s per step of MPI_Allreduce (recursive doubling: log2 P steps)
N_ALLREDUCE = 2       # per iteration: <p, Ap>; then ||r||^2 and <r, r_old> fused
GPU_BW = 3.35e12      # B/s: one H100's HBM3, for the GPU scenario
WIRE = {"fp64": (8, 0), "fp32": (4, 0), "fixed16": (2.125, 8)}  # bytes per value (17 bits), per message
# scenario: (name, local speed-up over the measured core, ranks sharing one NIC)
SCENARIOS = [("CPU, 1 rank/NIC", 1.0, 1), ("CPU, 64 ranks/NIC", 1.0, 64),
             ("GPU, 1 rank/NIC", GPU_BW / CORE_BW, 1)]
CASES = [("fp64", "fp64"), ("fixed16", "fp64"), ("fixed16", "fp32"), ("fixed16", "fixed16")]
PS = [1, 2, 8, 64, 512, 4096]


def grid(P):
    """P = px * py * pz, as cubic as powers of two allow."""
    d, k = [1, 1, 1], 0
    while P > 1:
        d[k % 3] *= 2
        P //= 2
        k += 1
    return d


def faces(P):
    """Faces of an interior rank's block that border another rank."""
    return sum(0 if p == 1 else 1 if p == 2 else 2 for p in grid(P))


def iteration(N, P, storage, wire, speedup=1.0, share=1, overlap=True):
    """Seconds per CG iteration on each of P ranks holding N unknowns (a cube of side m)."""
    m = round(N ** (1 / 3))
    f = faces(P)
    t_loc = T_ROW[storage] * N / speedup
    t_spmv = SPMV_SHARE[storage] * t_loc
    b, h = WIRE[wire]
    halo = f * (m * m * b + h)
    t_pack = 2 * f * m * m * PACK[wire] / speedup  # pack what goes, unpack what comes
    t_halo = f * LAT + halo * share / NIC_BW + t_pack if f else 0.0
    t_ar = N_ALLREDUCE * AR_STEP * math.log2(P) if P > 1 else 0.0
    bnd = min(1.0, f / m)  # share of the rows that wait for the halo
    if overlap:
        t = max(t_spmv * (1 - bnd), t_halo) + t_spmv * bnd + (t_loc - t_spmv) + t_ar
    else:
        t = t_loc + t_halo + t_ar
    return t, halo, t_halo, t_ar


def table(N):
    print(f"\n#### {N:.0e} unknowns per rank (a {round(N ** (1 / 3))}^3 block)\n")
    print("Time per iteration; in brackets the weak-scaling efficiency T(1) / T(P).\n")
    print("| scenario | storage / halo | " + " | ".join(f"P = {P}" for P in PS) + " |")
    print("|---|---|" + "---|" * len(PS))
    for name, sp, sh in SCENARIOS:
        for s, w in CASES:
            t1 = iteration(N, 1, s, w, sp, sh)[0]
            cells = []
            for P in PS:
                t = iteration(N, P, s, w, sp, sh)[0]
                unit, k = ("ms", 1e3) if t >= 1e-3 else ("us", 1e6)
                cells.append(f"{k * t:.3g} {unit} ({100 * t1 / t:.0f} %)")
            print(f"| {name} | {s} / {w} | " + " | ".join(cells) + " |")
    print("\nAt P = 4096 (6 neighbours), without overlap: halo bytes per rank per iteration and "
          "the halo's and the allreduces' share of the iteration:\n")
    print("| scenario | storage / halo | halo KiB | halo % | allreduce % |")
    print("|---|---|---|---|---|")
    for name, sp, sh in SCENARIOS:
        for s, w in CASES:
            t, hb, th, ta = iteration(N, 4096, s, w, sp, sh, overlap=False)
            print(f"| {name} | {s} / {w} | {hb / 1024:.0f} | {100 * th / t:.1f} | {100 * ta / t:.1f} |")


if __name__ == "__main__":
    for N in (1e6, 1e7):
        table(N)
