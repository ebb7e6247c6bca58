/* spmv_tune.c: the CPU SpMV tuner: candidates per format and CPU, timing of the first SpMVs, a pure choice from the timings. */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "kernels/cpu/spmv_tune.h"

static const char *const names[MIXI_SPMV_NVAR] = {"avx512-contig", "avx512-gather", "avx2-contig",
                                                  "avx2-gather",   "avx2-loads",    "portable",
                                                  "csr"};

static const char *const pf_names[MIXI_SPMV_NVAR] = {
    [MIXI_SPMV_AVX512_CONTIG] = "avx512-contig-pf", [MIXI_SPMV_AVX512_GATHER] = "avx512-gather-pf",
    [MIXI_SPMV_AVX2_CONTIG] = "avx2-contig-pf",     [MIXI_SPMV_AVX2_GATHER] = "avx2-gather-pf",
    [MIXI_SPMV_AVX2_LOADS] = "avx2-loads-pf",       [MIXI_SPMV_CSR] = "csr-pf"};
static const char *const far_names[MIXI_SPMV_NVAR] = {
    [MIXI_SPMV_AVX512_CONTIG] = "avx512-contig-pf-far", [MIXI_SPMV_AVX512_GATHER] = "avx512-gather-pf-far",
    [MIXI_SPMV_AVX2_CONTIG] = "avx2-contig-pf-far",     [MIXI_SPMV_AVX2_GATHER] = "avx2-gather-pf-far",
    [MIXI_SPMV_AVX2_LOADS] = "avx2-loads-pf-far",       [MIXI_SPMV_CSR] = "csr-pf-far"};
/* The prefetch stage's distances, by its index. */
static const int pf_dist[MIXI_SPMV_NPF] = {0, MIXI_SPMV_PF_DIST, MIXI_SPMV_PF_FAR};

const char *mixi_spmv_variant_name(int var)
{
    const int b = mixi_spmv_body(var), pf = mixi_spmv_pfd(var);
    if (var < 0 || b >= MIXI_SPMV_NVAR) return "?";
    if (!pf) return names[b];
    if (!mixi_spmv_has_pf(b)) return "?";
    return pf == MIXI_SPMV_PF_DIST ? pf_names[b] : pf == MIXI_SPMV_PF_FAR ? far_names[b] : "?";
}

int mixi_spmv_variant_parse(const char *name)
{
    for (int v = 0; name && v < MIXI_SPMV_NVAR; v++) {
        if (strcmp(name, names[v]) == 0) return v;
        if (pf_names[v] && strcmp(name, pf_names[v]) == 0) return v | MIXI_SPMV_PF_DIST << MIXI_SPMV_PF_SHIFT;
        if (far_names[v] && strcmp(name, far_names[v]) == 0) return v | MIXI_SPMV_PF_FAR << MIXI_SPMV_PF_SHIFT;
    }
    return -1;
}

int mixi_spmv_tune_pick(const double *t, int nvar, int dflt)
{
    int best = -1;
    for (int v = 0; v < nvar; v++)
        if (t[v] > 0.0 && isfinite(t[v]) && (best < 0 || t[v] < t[best])) best = v;
    if (best >= 0 && dflt >= 0 && dflt < nvar && t[dflt] > 0.0 && isfinite(t[dflt]) &&
        t[dflt] <= 1.02 * t[best])
        return dflt;
    return best;
}

static int tune_off(void)
{
    const char *e = getenv("MIXSOLVE_TUNE");
    return e && (strcmp(e, "off") == 0 || strcmp(e, "0") == 0);
}

void mixi_spmv_tuner_init(mixi_spmv_tuner *T, mix_prec storage, int has_avx2, int has_avx512)
{
    memset(T, 0, sizeof *T);
    T->chosen = -1;
    T->pfcalls = -1;
    if (storage == MIX_FP64) {
        T->cand[T->ncand++] = MIXI_SPMV_CSR;
    } else {
        if (has_avx512) {
            T->cand[T->ncand++] = MIXI_SPMV_AVX512_CONTIG;
            T->cand[T->ncand++] = MIXI_SPMV_AVX512_GATHER;
        }
        if (has_avx2) {
            T->cand[T->ncand++] = MIXI_SPMV_AVX2_CONTIG;
            T->cand[T->ncand++] = MIXI_SPMV_AVX2_GATHER;
            T->cand[T->ncand++] = MIXI_SPMV_AVX2_LOADS;
        }
        if (!T->ncand) T->cand[T->ncand++] = MIXI_SPMV_PORTABLE;
    }
    /* The default: the widest ISA's gather body (the body before the tuner; on the AVX-512 Xeon
     * measured, doc/benchmarks.md, gathers beat the contiguous loads by 10-20%). */
    T->dflt = T->ncand > 1 ? 1 : 0;
    const int forced = mixi_spmv_variant_parse(getenv("MIXSOLVE_SPMV_VARIANT"));
    int applies = forced == MIXI_SPMV_PORTABLE && storage != MIX_FP64;
    for (int c = 0; c < T->ncand; c++) applies |= forced >= 0 && T->cand[c] == mixi_spmv_body(forced);
    if (applies) {
        T->chosen = forced;
        return;
    }
    /* Tuning off: the default at once (no prefetch stage); its first SpMVs are still timed for
     * mixi_spmv_rate. */
    if (tune_off()) T->chosen = T->cand[T->dflt];
}

int mixi_spmv_tuner_next(const mixi_spmv_tuner *T)
{
    if (T->chosen >= 0 && T->pfcalls >= 0) /* the prefetch stage: none, near, far, none, ... */
        return T->chosen | pf_dist[T->pfcalls % MIXI_SPMV_NPF] << MIXI_SPMV_PF_SHIFT;
    if (T->chosen >= 0) return T->chosen;
    return T->warm < MIXI_TUNE_WARMUP ? T->cand[T->dflt] : T->cand[T->calls % T->ncand];
}

int mixi_spmv_tuner_timing(const mixi_spmv_tuner *T)
{
    return T->chosen < 0 || T->calls < MIXI_TUNE_ROUNDS || T->pfcalls >= 0;
}

/* Per storage format: the rate of the matrix tuned last (bytes/s), 0 = none.  The last, not the
 * best: a small matrix that sat in the cache would otherwise speak for every later one. */
static _Atomic double rates[MIX_NUM_PREC];

static void note_rate(mix_prec storage, double r)
{
    if ((int)storage < 0 || (int)storage >= MIX_NUM_PREC || !(r > 0.0) || !isfinite(r)) return;
    atomic_store(&rates[storage], r);
}

double mixi_spmv_rate(mix_prec storage)
{
    if ((int)storage < 0 || (int)storage >= MIX_NUM_PREC) return 0.0;
    return atomic_load(&rates[storage]);
}

void mixi_spmv_tuner_done(mixi_spmv_tuner *T, mix_prec storage, int var, double seconds,
                          double bytes)
{
    if (T->chosen >= 0 && T->pfcalls >= 0) { /* the prefetch stage */
        int w = 0;
        while (w < MIXI_SPMV_NPF - 1 && pf_dist[w] != mixi_spmv_pfd(var)) w++;
        if (seconds > 0.0 && (T->pfbest[w] <= 0.0 || seconds < T->pfbest[w])) T->pfbest[w] = seconds;
        if (++T->pfcalls < MIXI_SPMV_NPF * MIXI_TUNE_ROUNDS) return;
        T->pfcalls = -1;
        const int pick = mixi_spmv_tune_pick(T->pfbest, MIXI_SPMV_NPF, 0);
        if (pick > 0) {
            T->chosen |= pf_dist[pick] << MIXI_SPMV_PF_SHIFT;
            note_rate(storage, bytes / T->pfbest[pick]);
        }
        return;
    }
    if (T->chosen >= 0 && T->calls >= MIXI_TUNE_ROUNDS) return; /* fixed and rate noted */
    if (T->chosen < 0 && T->warm < MIXI_TUNE_WARMUP) { /* warming up: not a candidate's time */
        T->warm++;
        return;
    }
    int c = 0;
    while (c < T->ncand && T->cand[c] != var) c++;
    if (c < T->ncand && seconds > 0.0 && (T->best[c] <= 0.0 || seconds < T->best[c]))
        T->best[c] = seconds;
    T->calls++;
    if (T->chosen >= 0) { /* forced or pinned: its rate only, from its first calls */
        if (seconds > 0.0) note_rate(storage, bytes / seconds);
        return;
    }
    if (T->calls < MIXI_TUNE_ROUNDS * T->ncand) return;
    const int pick = mixi_spmv_tune_pick(T->best, T->ncand, T->dflt);
    T->chosen = T->cand[pick >= 0 ? pick : T->dflt];
    if (pick >= 0) note_rate(storage, bytes / T->best[pick]);
    if (mixi_spmv_has_pf(T->chosen)) T->pfcalls = 0; /* then its prefetch */
}

const char *mixi_spmv_tuner_choice(const mixi_spmv_tuner *T)
{
    return T->chosen >= 0 ? mixi_spmv_variant_name(T->chosen) : "tuning";
}
