/* test_formats.c: FP16/BF16/TF32/FIXED16 conversions (kernels/common) and the CPU array loops (convert_cpu) against independent references. */
#include <math.h>
#include <stdio.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>
#include "tests/mixt.h"
#include "kernels/common/formats.h"
#include "kernels/common/prec_traits.h"
#include "kernels/cpu/convert_cpu.h"

/* ---- helpers ----------------------------------------------------------------------------------- */

static uint32_t fb(float x) { uint32_t u; memcpy(&u, &x, 4); return u; }
static float bf(uint32_t u) { float x; memcpy(&x, &u, 4); return x; }
static uint64_t db(double x) { uint64_t u; memcpy(&u, &x, 8); return u; }
static double bd(uint64_t u) { double x; memcpy(&x, &u, 8); return x; }

/* One random stream for the suite: mixm_rng, seeded at first use. */
static uint64_t rnd64(void)
{
    static mixm_rng g;
    static int seeded;
    if (!seeded) {
        mixm_rng_seed(&g, 0x9e3779b97f4a7c15ull);
        seeded = 1;
    }
    return mixm_rng_next(&g);
}
static double rnd_unit(void) { return (double)(rnd64() >> 11) * 0x1p-53; }
/* A random double with full mantissa, exponent uniform in [emin, emax], random sign. */
static double rnd_mag(int emin, int emax)
{
    const int e = emin + (int)(rnd64() % (uint64_t)(emax - emin + 1));
    const double v = ldexp(1.0 + rnd_unit(), e);
    return (rnd64() & 1) ? -v : v;
}

/* Reference rounding written with plain double arithmetic: nearest value, ties to even, of a
 * binary grid with p mantissa bits and exponents emin..emax (uniform spacing 2^(emin-p) below
 * 2^emin); beyond the largest finite value (+ half an ulp) the result is Inf. */
static double ref_round(double x, int p, int emin, int emax)
{
    if (isnan(x) || isinf(x) || x == 0) return x;
    const double a = fabs(x);
    int e = ilogb(a);
    if (e < emin) e = emin;
    const double ulp = ldexp(1.0, e - p);
    const double lo = floor(a / ulp) * ulp, r = a - lo, half = ulp / 2;
    double res = lo;
    if (r > half || (r == half && fmod(lo / ulp, 2.0) != 0.0)) res = lo + ulp;
    if (res > ldexp(2.0 - ldexp(1.0, -p), emax)) res = INFINITY;
    return copysign(res, x);
}
static double ref_f16(double x) { return ref_round(x, 10, -14, 15); }
static double ref_bf16(double x) { return ref_round(x, 7, -126, 127); }
static double ref_tf32(double x) { return ref_round(x, 10, -126, 127); }

/* Same value with the same sign (so -0 != +0); NaN equals NaN. */
static int same(double a, double b)
{
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
    return db(a) == db(b);
}

#ifdef __FLT16_MAX__
static uint16_t gcc_f16(float x) { _Float16 h = (_Float16)x; uint16_t u; memcpy(&u, &h, 2); return u; }
static uint16_t gcc_f16d(double x) { _Float16 h = (_Float16)x; uint16_t u; memcpy(&u, &h, 2); return u; }
#endif

/* ---- FP16 ------------------------------------------------------------------------------------ */

static void test_f16_all_patterns(void)
{
    int bad = 0, bad64 = 0, badnan = 0, badref = 0;
    for (uint32_t h = 0; h < 65536; h++) {
        const float f = mixk_f16_to_f32((uint16_t)h);
        const int is_nan = (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu);
        if (is_nan) {
            /* NaN stays NaN, sign and payload kept, quieted. */
            badnan += !isnan(f) || mixk_f32_to_f16(f) != (h | 0x200u) ||
                      mixk_f64_to_f16((double)f) != (h | 0x200u);
            continue;
        }
        bad += mixk_f32_to_f16(f) != h;
        bad64 += mixk_f64_to_f16((double)f) != h;
        /* The widening against a value built from the definition: (-1)^s 2^(e-15) (1 + m/1024). */
        const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
        double v = e == 0 ? ldexp(m, -24) : e == 31 ? INFINITY : ldexp(1024 + m, e - 25);
        if (h & 0x8000u) v = -v;
        badref += !same(f, v);
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(bad64, 0);
    CU_ASSERT_EQUAL(badnan, 0);
    CU_ASSERT_EQUAL(badref, 0);
}

/* Every tie between neighbouring FP16 values, and one float/double ulp either side of it. */
static void test_f16_ties_against_refs(void)
{
    int bad = 0, badd = 0, badref = 0;
    for (uint32_t h = 0; h < 0x7c00u; h++) {
        const double lo = mixk_f16_to_f32((uint16_t)h);
        const double hi = h == 0x7bffu ? 65536.0 : mixk_f16_to_f32((uint16_t)(h + 1));
        const double mid = (lo + hi) / 2; /* exact, and exact in float */
        const uint16_t even = (h & 1) ? (uint16_t)(h + 1) : (uint16_t)h;
        for (int s = 0; s < 2; s++) {
            const uint16_t sg = s ? 0x8000u : 0u;
            const double sm = s ? -mid : mid;
            bad += mixk_f32_to_f16((float)sm) != (even | sg);
            badd += mixk_f64_to_f16(sm) != (even | sg);
            /* One float ulp and one double ulp above/below the tie decide it. */
            const float fu = nextafterf((float)mid, INFINITY), fd = nextafterf((float)mid, 0);
            const double du = nextafter(mid, INFINITY), dd = nextafter(mid, 0);
            const uint16_t up = (uint16_t)(h + 1), dn = (uint16_t)h;
            bad += mixk_f32_to_f16(s ? -fu : fu) != (up | sg);
            bad += mixk_f32_to_f16(s ? -fd : fd) != (dn | sg);
            badd += mixk_f64_to_f16(s ? -du : du) != (up | sg);
            badd += mixk_f64_to_f16(s ? -dd : dd) != (dn | sg);
            badref += !same(mixk_f16_to_f32(mixk_f64_to_f16(s ? -du : du)), ref_f16(s ? -du : du));
        }
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(badd, 0);
    CU_ASSERT_EQUAL(badref, 0);
}

static void test_f16_specials(void)
{
    /* Overflow: 65504 is the largest; from 65520 (the tie with 2^16) on it is Inf. */
    CU_ASSERT_EQUAL(mixk_f32_to_f16(65504.0f), 0x7bffu);
    CU_ASSERT_EQUAL(mixk_f32_to_f16(65519.996f), 0x7bffu);
    CU_ASSERT_EQUAL(mixk_f32_to_f16(65520.0f), 0x7c00u);
    CU_ASSERT_EQUAL(mixk_f32_to_f16(-65520.0f), 0xfc00u);
    CU_ASSERT_EQUAL(mixk_f32_to_f16(FLT_MAX), 0x7c00u);
    CU_ASSERT_EQUAL(mixk_f64_to_f16(65519.99999999999), 0x7bffu);
    CU_ASSERT_EQUAL(mixk_f64_to_f16(65520.0), 0x7c00u);
    CU_ASSERT_EQUAL(mixk_f64_to_f16(1e300), 0x7c00u);
    CU_ASSERT_EQUAL(mixk_f64_to_f16(-DBL_MAX), 0xfc00u);
    CU_ASSERT_EQUAL(mixk_f32_to_f16(INFINITY), 0x7c00u);
    CU_ASSERT_EQUAL(mixk_f64_to_f16(-INFINITY), 0xfc00u);
    /* Subnormal boundaries: 2^-24 is the smallest; 2^-25 is a tie that goes to 0 (even). */
    CU_ASSERT_EQUAL(mixk_f32_to_f16(0x1p-24f), 0x0001u);
    CU_ASSERT_EQUAL(mixk_f32_to_f16(0x1p-25f), 0x0000u);
    CU_ASSERT_EQUAL(mixk_f32_to_f16(-0x1p-25f), 0x8000u);
    CU_ASSERT_EQUAL(mixk_f32_to_f16(nextafterf(0x1p-25f, 1)), 0x0001u);
    CU_ASSERT_EQUAL(mixk_f64_to_f16(nextafter(0x1p-25, 1)), 0x0001u);
    CU_ASSERT_EQUAL(mixk_f64_to_f16(0x1p-25), 0x0000u);
    CU_ASSERT_EQUAL(mixk_f32_to_f16(0x1.8p-24f), 0x0002u); /* 1.5 units: tie to even 2 */
    CU_ASSERT_EQUAL(mixk_f32_to_f16(0x1.4p-23f), 0x0002u); /* 2.5 units: tie to even 2 */
    CU_ASSERT_EQUAL(mixk_f32_to_f16(0x1p-14f), 0x0400u);   /* smallest normal */
    CU_ASSERT_EQUAL(mixk_f32_to_f16(0x1.ff8p-15f), 0x03ffu); /* largest subnormal */
    CU_ASSERT_EQUAL(mixk_f32_to_f16(0x1.ffcp-15f), 0x0400u); /* its tie with 2^-14: even */
    CU_ASSERT_EQUAL(mixk_f64_to_f16(0x1.ffcp-15), 0x0400u);
    CU_ASSERT_EQUAL(mixk_f32_to_f16(FLT_MIN), 0x0000u);
    CU_ASSERT_EQUAL(mixk_f64_to_f16(DBL_MIN), 0x0000u);
    CU_ASSERT_EQUAL(mixk_f64_to_f16(-4.9406564584124654e-324), 0x8000u);
    CU_ASSERT_EQUAL(mixk_f32_to_f16(-0.0f), 0x8000u);
    CU_ASSERT_EQUAL(mixk_f16_to_f32(0x0001u), 0x1p-24f);
    CU_ASSERT_EQUAL(fb(mixk_f16_to_f32(0x8000u)), 0x80000000u);
    /* Double rounding would get this wrong: just above the tie 1 + 2^-11, but rounding to float
     * first lands exactly on the tie, which goes down to 1. */
    CU_ASSERT_EQUAL(mixk_f64_to_f16(1.0 + 0x1p-11 + 0x1p-40), 0x3c01u);
    CU_ASSERT_EQUAL(mixk_f32_to_f16((float)(1.0 + 0x1p-11 + 0x1p-40)), 0x3c00u);
    /* NaN: quiet, sign and top payload bits kept, never Inf. */
    CU_ASSERT_EQUAL(mixk_f32_to_f16(bf(0x7f800001u)), 0x7e00u);
    CU_ASSERT_EQUAL(mixk_f32_to_f16(bf(0xff812345u)), 0xfe09u);
    CU_ASSERT_EQUAL(mixk_f64_to_f16(bd(0x7ff0000000000001ull)), 0x7e00u);
    CU_ASSERT_EQUAL(mixk_f64_to_f16(bd(0xfff5500000000000ull)), 0xff54u);
    CU_ASSERT_EQUAL(fb(mixk_f16_to_f32(0x7c01u)), 0x7fc02000u);
    CU_ASSERT(isnan(mixk_round_f16(NAN)));
    CU_ASSERT_EQUAL(mixk_round_f16(1.0f + 0x1p-11f), 1.0f);
    CU_ASSERT_EQUAL(mixk_round_f16(70000.0f), INFINITY);
}

static void test_f16_random(void)
{
    int bad = 0, badd = 0, badref = 0;
    for (int i = 0; i < 200000; i++) {
        const double d = rnd_mag(-30, 17);
        const float f = (float)rnd_mag(-30, 17);
        badref += !same(mixk_f16_to_f32(mixk_f64_to_f16(d)), ref_f16(d));
        badref += !same(mixk_f16_to_f32(mixk_f32_to_f16(f)), ref_f16(f));
#ifdef __FLT16_MAX__
        bad += mixk_f32_to_f16(f) != gcc_f16(f);
        badd += mixk_f64_to_f16(d) != gcc_f16d(d);
#endif
    }
#ifdef __FLT16_MAX__
    /* A stride through all float patterns, NaNs left to the NaN tests. */
    for (uint64_t u = 0; u < 0x100000000ull; u += 65521) {
        const float f = bf((uint32_t)u);
        if (!isnan(f)) bad += mixk_f32_to_f16(f) != gcc_f16(f);
    }
#endif
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(badd, 0);
    CU_ASSERT_EQUAL(badref, 0);
}

/* ---- BF16 ------------------------------------------------------------------------------------ */

static void test_bf16_all_patterns(void)
{
    int bad = 0, bad64 = 0, badnan = 0, badwide = 0;
    for (uint32_t h = 0; h < 65536; h++) {
        const float f = mixk_bf16_to_f32((uint16_t)h);
        if ((h & 0x7f80u) == 0x7f80u && (h & 0x7fu)) {
            badnan += !isnan(f) || mixk_f32_to_bf16(f) != (h | 0x40u) ||
                      mixk_f64_to_bf16((double)f) != (h | 0x40u);
            continue;
        }
        badwide += fb(f) != h << 16;
        bad += mixk_f32_to_bf16(f) != h;
        bad64 += mixk_f64_to_bf16((double)f) != h;
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(bad64, 0);
    CU_ASSERT_EQUAL(badnan, 0);
    CU_ASSERT_EQUAL(badwide, 0);
}

/* Every tie between neighbouring BF16 values (subnormals included), exactly and +-1 ulp. */
static void test_bf16_ties(void)
{
    int bad = 0, badd = 0;
    for (uint32_t h = 0; h < 0x7f80u; h++) {
        const uint32_t mid = (h << 16) | 0x8000u;
        const uint16_t even = (h & 1) ? (uint16_t)(h + 1) : (uint16_t)h;
        for (uint32_t sg = 0; sg <= 0x8000u; sg += 0x8000u) {
            const uint32_t s32 = sg << 16;
            bad += mixk_f32_to_bf16(bf(mid | s32)) != (even | sg);
            bad += mixk_f32_to_bf16(bf((mid + 1) | s32)) != ((h + 1) | sg);
            bad += mixk_f32_to_bf16(bf((mid - 1) | s32)) != (h | sg);
            const double dm = bf(mid | s32);
            badd += mixk_f64_to_bf16(dm) != (even | sg);
            badd += mixk_f64_to_bf16(nextafter(dm, sg ? -INFINITY : INFINITY)) != ((h + 1) | sg);
            badd += mixk_f64_to_bf16(nextafter(dm, 0)) != (h | sg);
        }
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(badd, 0);
}

static void test_bf16_random_and_specials(void)
{
    int bad = 0, badd = 0;
    for (int i = 0; i < 200000; i++) {
        const double d = rnd_mag(-140, 130);
        const float f = (float)rnd_mag(-140, 127);
        badd += !same(mixk_bf16_to_f32(mixk_f64_to_bf16(d)), ref_bf16(d));
        bad += !same(mixk_round_bf16(f), ref_bf16(f));
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(badd, 0);
    CU_ASSERT_EQUAL(mixk_f32_to_bf16(FLT_MAX), 0x7f80u);
    CU_ASSERT_EQUAL(mixk_f32_to_bf16(bf(0x7f7f7fffu)), 0x7f7fu);
    CU_ASSERT_EQUAL(mixk_f64_to_bf16(0x1.ffp127), 0x7f80u);
    CU_ASSERT_EQUAL(mixk_f64_to_bf16(nextafter(0x1.ffp127, 0)), 0x7f7fu);
    CU_ASSERT_EQUAL(mixk_f64_to_bf16(1e300), 0x7f80u);
    CU_ASSERT_EQUAL(mixk_f64_to_bf16(-INFINITY), 0xff80u);
    CU_ASSERT_EQUAL(mixk_f64_to_bf16(0x1p-133), 0x0001u);  /* smallest BF16 subnormal */
    CU_ASSERT_EQUAL(mixk_f64_to_bf16(0x1p-134), 0x0000u);  /* tie to even 0 */
    CU_ASSERT_EQUAL(mixk_f64_to_bf16(-0x1.000001p-134), 0x8001u);
    CU_ASSERT_EQUAL(mixk_f64_to_bf16(0x1p-150), 0x0000u);
    CU_ASSERT_EQUAL(mixk_f32_to_bf16(bf(0x00000001u)), 0x0000u);
    CU_ASSERT_EQUAL(mixk_f32_to_bf16(bf(0x00008000u)), 0x0000u); /* tie, even */
    CU_ASSERT_EQUAL(mixk_f32_to_bf16(bf(0x00018000u)), 0x0002u); /* tie, even */
    /* Double rounding through float would lose this: the tie 1 + 2^-8 plus 2^-40. */
    CU_ASSERT_EQUAL(mixk_f64_to_bf16(1.0 + 0x1p-8 + 0x1p-40), 0x3f81u);
    CU_ASSERT_EQUAL(mixk_f32_to_bf16(bf(0x7f800001u)), 0x7fc0u);
    CU_ASSERT_EQUAL(mixk_f32_to_bf16(bf(0xffa12345u)), 0xffe1u);
    CU_ASSERT_EQUAL(mixk_f64_to_bf16(bd(0x7ff4200000000000ull)), 0x7fe1u);
    CU_ASSERT_EQUAL(fb(mixk_bf16_to_f32(0x7f81u)), 0x7fc10000u);
}

/* ---- TF32 ------------------------------------------------------------------------------------ */

static void test_tf32(void)
{
    CU_ASSERT_EQUAL(fb(mixk_round_tf32(bf(0x3f801000u))), 0x3f800000u); /* tie, even down */
    CU_ASSERT_EQUAL(fb(mixk_round_tf32(bf(0x3f803000u))), 0x3f804000u); /* tie, even up */
    CU_ASSERT_EQUAL(fb(mixk_round_tf32(bf(0x3f801001u))), 0x3f802000u);
    CU_ASSERT_EQUAL(fb(mixk_round_tf32(bf(0x3f800fffu))), 0x3f800000u);
    CU_ASSERT_EQUAL(fb(mixk_round_tf32(bf(0xbf803000u))), 0xbf804000u);
    /* Carry through the mantissa into the exponent. */
    CU_ASSERT_EQUAL(mixk_round_tf32(bf(0x3ffff000u)), 2.0f);
    CU_ASSERT_EQUAL(mixk_round_tf32(nextafterf(2.0f, 0)), 2.0f);
    CU_ASSERT_EQUAL(fb(mixk_round_tf32(bf(0x007ff000u))), 0x00800000u); /* subnormal -> FLT_MIN */
    CU_ASSERT_EQUAL(fb(mixk_round_tf32(bf(0x00001000u))), 0x00000000u);
    CU_ASSERT_EQUAL(fb(mixk_round_tf32(bf(0x00003000u))), 0x00004000u);
    /* Overflow at the top: FLT_MAX and the tie above the largest TF32 value go to Inf. */
    CU_ASSERT_EQUAL(mixk_round_tf32(FLT_MAX), INFINITY);
    CU_ASSERT_EQUAL(mixk_round_tf32(-FLT_MAX), -INFINITY);
    CU_ASSERT_EQUAL(mixk_round_tf32(bf(0x7f7ff000u)), INFINITY);
    CU_ASSERT_EQUAL(fb(mixk_round_tf32(bf(0x7f7fefffu))), 0x7f7fe000u);
    CU_ASSERT_EQUAL(mixk_round_tf32(INFINITY), INFINITY);
    CU_ASSERT_EQUAL(fb(mixk_round_tf32(bf(0x7f800001u))), 0x7fc00000u);
    CU_ASSERT_EQUAL(fb(mixk_round_tf32(bf(0xffc12345u))), 0xffc12000u);
    CU_ASSERT_EQUAL(fb(mixk_round_tf32(-0.0f)), 0x80000000u);
    int bad = 0;
    for (int i = 0; i < 200000; i++) {
        const float f = (float)rnd_mag(-149, 127);
        bad += !same(mixk_round_tf32(f), ref_tf32(f));
    }
    for (uint64_t u = 0; u < 0x100000000ull; u += 65521) {
        const float f = bf((uint32_t)u);
        if (!isnan(f)) bad += !same(mixk_round_tf32(f), ref_tf32(f));
    }
    CU_ASSERT_EQUAL(bad, 0);
}

/* ---- FIXED16 --------------------------------------------------------------------------------- */

/* The bound tested: |x - decode(encode(x))| <= s/65534 + 5 * 2^-24 * s.  s/65534 is half a
 * quantum; the second term covers the float roundings of inv_step, step and the two products
 * (about 4 units of 2^-24 relative to s).  It holds for s >= 2^-100; far below that the step
 * itself is subnormal in float and only an absolute error of order 2^-135 is added. */
static double fx_bound(double s) { return s / 65534.0 + 5.0 * 0x1p-24 * s; }

static void test_fixed16_bound(void)
{
    enum { N = 64 };
    float x[N];
    double xd[N];
    int bad = 0, badzero = 0, badq = 0, badmax = 0, badd = 0;
    for (int e = -100; e <= 100; e += 3) {
        for (int rep = 0; rep < 40; rep++) {
            for (int i = 0; i < N; i++) {
                /* Many magnitudes inside a block too, and some exact zeros. */
                xd[i] = (rnd64() % 7 == 0) ? 0.0 : rnd_mag(e - 20, e);
                x[i] = (float)xd[i];
            }
            const float s = mixk_fixed16_block_scale_f32(x, N);
            float ref = 0;
            for (int i = 0; i < N; i++) ref = fmaxf(ref, fabsf(x[i]));
            CU_ASSERT_EQUAL(s, ref);
            const float inv = mixk_fixed16_inv_step(s), step = mixk_fixed16_step(s);
            for (int i = 0; i < N; i++) {
                const int16_t q = mixk_fixed16_encode(x[i], inv);
                const float y = mixk_fixed16_decode(q, step);
                bad += fabs((double)x[i] - y) > fx_bound(s);
                badq += q == INT16_MIN; /* the one int16 outside [-32767, 32767] */
                if (x[i] == 0) badzero += y != 0;
                if (fabsf(x[i]) == s) badmax += abs(q) != MIXK_FIXED16_QMAX;
            }
            /* FP64 values: a float scale rounded up, the products in double. */
            const float sd = mixk_fixed16_block_scale_f64(xd, N);
            double mx = 0;
            for (int i = 0; i < N; i++) mx = fmax(mx, fabs(xd[i]));
            CU_ASSERT(sd >= mx && nextafterf(sd, 0) < mx);
            const double invd = mixk_fixed16_inv_step_f64(sd);
            const float stepd = mixk_fixed16_step(sd);
            for (int i = 0; i < N; i++) {
                const double y = mixk_fixed16_decode(mixk_fixed16_encode_f64(xd[i], invd), stepd);
                badd += fabs(xd[i] - y) > fx_bound(sd);
                if (xd[i] == 0) badzero += y != 0;
            }
        }
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(badd, 0);
    CU_ASSERT_EQUAL(badq, 0);
    CU_ASSERT_EQUAL(badzero, 0);
    CU_ASSERT_EQUAL(badmax, 0);
}

static void test_fixed16_edges(void)
{
    /* Zero block: no division by zero, all q = 0, decoded exactly 0 (not NaN). */
    const float z[5] = {0.0f, -0.0f, 0.0f, 0.0f, 0.0f};
    const float s = mixk_fixed16_block_scale_f32(z, 5);
    CU_ASSERT_EQUAL(fb(s), 0u);
    CU_ASSERT_EQUAL(mixk_fixed16_inv_step(s), 0.0f);
    for (int i = 0; i < 5; i++) {
        const int16_t q = mixk_fixed16_encode(z[i], mixk_fixed16_inv_step(s));
        CU_ASSERT_EQUAL(q, 0);
        CU_ASSERT_EQUAL(mixk_fixed16_decode(q, mixk_fixed16_step(s)), 0.0f);
    }
    const double zd[2] = {0.0, -0.0};
    CU_ASSERT_EQUAL(mixk_fixed16_block_scale_f64(zd, 2), 0.0f);
    CU_ASSERT_EQUAL(mixk_fixed16_inv_step_f64(0.0), 0.0);
    CU_ASSERT_EQUAL(mixk_fixed16_encode_f64(0.0, 0.0), 0);
    CU_ASSERT_EQUAL(mixk_fixed16_block_scale_f32(z, 0), 0.0f);
    /* Rounding to nearest even, clamping, NaN. */
    CU_ASSERT_EQUAL(mixk_fixed16_encode(1.5f, 1.0f), 2);
    CU_ASSERT_EQUAL(mixk_fixed16_encode(2.5f, 1.0f), 2);
    CU_ASSERT_EQUAL(mixk_fixed16_encode(-2.5f, 1.0f), -2);
    CU_ASSERT_EQUAL(mixk_fixed16_encode(0.49999997f, 1.0f), 0);
    CU_ASSERT_EQUAL(mixk_fixed16_encode(32766.5f, 1.0f), 32766);
    CU_ASSERT_EQUAL(mixk_fixed16_encode(1e30f, 1.0f), 32767);
    CU_ASSERT_EQUAL(mixk_fixed16_encode(-INFINITY, 1.0f), -32767);
    CU_ASSERT_EQUAL(mixk_fixed16_encode(NAN, 1.0f), 0);
    CU_ASSERT_EQUAL(mixk_fixed16_encode_f64(-2.5, 1.0), -2);
    CU_ASSERT_EQUAL(mixk_fixed16_encode_f64(3.5, 1.0), 4);
    CU_ASSERT_EQUAL(mixk_fixed16_encode_f64(-1e300, 1.0), -32767);
    CU_ASSERT_EQUAL(mixk_fixed16_encode_f64(NAN, 1.0), 0);
    /* A NaN in the block makes the scale NaN, so decoding shows it. */
    const float w[4] = {1.0f, NAN, 3.0f, -2.0f};
    CU_ASSERT(isnan(mixk_fixed16_block_scale_f32(w, 4)));
    CU_ASSERT(isnan(mixk_fixed16_decode(5, mixk_fixed16_step(mixk_fixed16_block_scale_f32(w, 4)))));
    const double wd[3] = {1.0, -NAN, 3.0};
    CU_ASSERT(isnan(mixk_fixed16_block_scale_f64(wd, 3)));
    const double big[2] = {1e300, -2.0};
    CU_ASSERT_EQUAL(mixk_fixed16_block_scale_f64(big, 2), FLT_MAX);
    /* Tiny scales saturate inv_step instead of producing Inf (and 0 * Inf = NaN). */
    CU_ASSERT_EQUAL(mixk_fixed16_inv_step(1e-40f), FLT_MAX);
    CU_ASSERT_EQUAL(mixk_fixed16_encode(0.0f, mixk_fixed16_inv_step(1e-40f)), 0);
    /* The largest value maps to +-32767 exactly, and back to s up to rounding. */
    const float v[3] = {-7.25f, 3.0f, 0.5f};
    const float sv = mixk_fixed16_block_scale_f32(v, 3);
    CU_ASSERT_EQUAL(sv, 7.25f);
    CU_ASSERT_EQUAL(mixk_fixed16_encode(-7.25f, mixk_fixed16_inv_step(sv)), -32767);
    CU_ASSERT(fabsf(mixk_fixed16_decode(-32767, mixk_fixed16_step(sv)) + 7.25f) <= 7.25f * 0x1p-23f);
}

/* The device's decoding step (an FMA-corrected product) against the host's s/32767, bit for bit:
 * every exponent, both signs, strided mantissas and each exponent's first and last 256, denser
 * in the subnormal scales and where s/32767 turns normal; Inf, NaN, +-0.  (A sweep of all 2^32
 * floats, 2 minutes, found none.) */
static int step_fma_differs(uint32_t bits)
{
    const float s = bf(bits), ref = s / (float)MIXK_FIXED16_QMAX, got = mixk_fixed16_step_fma(s);
    return isnan(ref) ? !isnan(got) : fb(ref) != fb(got);
}

static void test_fixed16_step_fma(void)
{
    long bad = 0;
    for (uint32_t e = 0; e < 256; e++) {
        /* s subnormal; s/32767 at the normal boundary */
        const uint32_t stride = e == 0 || e == 16 ? 7u : 1021u;
        for (uint32_t m = 0; m < 0x800000u; m += (m < 256 || m >= 0x800000u - 256) ? 1u : stride)
            bad += step_fma_differs(e << 23 | m) + step_fma_differs(0x80000000u | e << 23 | m);
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(mixk_fixed16_step_fma(INFINITY), INFINITY);
    CU_ASSERT(isnan(mixk_fixed16_step_fma(NAN)));
    CU_ASSERT_EQUAL(fb(mixk_fixed16_step_fma(0.0f)), 0u);
    CU_ASSERT_EQUAL(fb(mixk_fixed16_step_fma(-0.0f)), 0x80000000u);
}

/* ---- CPU array loops: the same bits as the scalar functions ------------------------------------ */

static const size_t lens[] = {0, 1, 7, 8, 9, 31, 1000, 4099, 70001}; /* 70001: the OpenMP path */
#define NLENS (sizeof lens / sizeof lens[0])
#define MAXLEN 70001

/* Test data: random magnitudes over the whole range of interest plus every kind of special
 * value (NaN payloads, Inf, zeros, subnormals, ties, values just past each format's overflow). */
static void fill_f64(double *x, size_t n, int emin, int emax)
{
    static const uint64_t sp[] = {
        0x7ff8000000000000ull, 0xfff4200000000001ull, 0x7ff0000000000000ull,
        0xfff0000000000000ull, 0x0000000000000000ull, 0x8000000000000000ull,
        0x0000000000000001ull, 0x3e70000000000000ull /* 2^-24 */, 0x3e60000000000000ull,
        0x40effe0000000000ull /* 65520 */, 0x40effdffffffffffull, 0x47efff0000000000ull,
        0x47efffffe0000000ull, 0x47effffff0000000ull /* FLT_MAX + half ulp */,
        0x3ff0020000000000ull /* 1 + 2^-11 */, 0x3ff0020000010000ull, 0x3ff0100000000001ull,
        0x380fffffe0000000ull, 0x3810000000000000ull /* FLT_MIN */, 0x37a0000000000000ull,
    };
    for (size_t i = 0; i < n; i++) {
        if (rnd64() % 5 == 0) x[i] = bd(sp[rnd64() % (sizeof sp / sizeof sp[0])]);
        else x[i] = rnd_mag(emin, emax);
    }
}

static void fill_f32(float *x, size_t n)
{
    static const uint32_t sp[] = {
        0x7fc00000u, 0xff812345u, 0x7f800001u, 0x7f800000u, 0xff800000u, 0u, 0x80000000u, 1u,
        0x33800000u, 0x33000000u, 0x477ff000u, 0x477fefffu, 0x7f7fffffu, 0x7f7f8000u,
        0x7f7f7fffu, 0x7f7ff000u, 0x7f7fefffu, 0x3f801000u, 0x3f803000u, 0x3f808000u,
        0x3f818000u, 0x007ff000u, 0x00008000u, 0x00018000u, 0x387fc000u,
    };
    for (size_t i = 0; i < n; i++) {
        if (rnd64() % 5 == 0) x[i] = bf(sp[rnd64() % (sizeof sp / sizeof sp[0])]);
        else x[i] = (float)rnd_mag(-150, 128);
    }
}

static int fin(double v) { return !isnan(v) && !isinf(v); }

/* The array loop to FP16 (bf = 0) or BF16 (bf = 1) from FP64 xd (from64) or FP32 xf, n
 * elements, against the scalar conversion: returns the elements with other bits; asserts the
 * overflow count, the finite inputs that became Inf. */
static int narrow16(size_t n, int bf, int from64, const double *xd, const float *xf, uint16_t *yh)
{
    size_t ov = from64 ? (bf ? mixi_cpu_f64_to_bf16 : mixi_cpu_f64_to_f16)(n, xd, yh)
                       : (bf ? mixi_cpu_f32_to_bf16 : mixi_cpu_f32_to_f16)(n, xf, yh);
    size_t ov_ref = 0;
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        uint16_t want = from64 ? (bf ? mixk_f64_to_bf16(xd[i]) : mixk_f64_to_f16(xd[i]))
                               : (bf ? mixk_f32_to_bf16(xf[i]) : mixk_f32_to_f16(xf[i]));
        bad += yh[i] != want;
        float back = bf ? mixk_bf16_to_f32(yh[i]) : mixk_f16_to_f32(yh[i]);
        ov_ref += fin(from64 ? xd[i] : xf[i]) && isinf(back);
    }
    CU_ASSERT_EQUAL(ov, ov_ref);
    return bad;
}

/* The conversion loops' buffers: MAXLEN elements (yf and yh one more, for the canary). */
typedef struct {
    double *xd, *yd;
    float *xf, *yf;
    uint16_t *yh;
} conv_bufs;

static void conv_open(conv_bufs *c)
{
    c->xd = malloc(MAXLEN * sizeof *c->xd);
    c->yd = malloc(MAXLEN * sizeof *c->yd);
    c->xf = malloc(MAXLEN * sizeof *c->xf);
    c->yf = malloc((MAXLEN + 1) * sizeof *c->yf);
    c->yh = malloc((MAXLEN + 1) * sizeof *c->yh);
    CU_ASSERT_FATAL(c->xd && c->yd && c->xf && c->yf && c->yh);
}

static void conv_close(conv_bufs *c)
{
    free(c->xd); free(c->yd); free(c->xf); free(c->yf); free(c->yh);
}

/* check(n, c) at every length of lens with the run-time choice of loops (AVX2+F16C here), then
 * forced portable (left so: the caller resets it): no element with other bits. */
static void every_len(int (*check)(size_t n, conv_bufs *c), conv_bufs *c, const char *what)
{
    for (int portable = 0; portable < 2; portable++) {
        mixi_cpu_convert_force_portable(portable);
        for (size_t l = 0; l < NLENS; l++) {
            int bad = check(lens[l], c);
            if (bad) fprintf(stderr, "%s n=%zu portable=%d: %d wrong\n", what, lens[l], portable, bad);
            CU_ASSERT_EQUAL(bad, 0);
        }
    }
}

/* FP64 and FP32 to FP16 and BF16, FP64 to FP32, with their overflow counts. */
static int narrowing_at(size_t n, conv_bufs *c)
{
    int bad = 0;
    fill_f64(c->xd, n, -30, 20);
    fill_f32(c->xf, n);
    c->yh[n] = 0xabcdu; /* nothing written past the end */
    bad += narrow16(n, 0, 1, c->xd, c->xf, c->yh);
    CU_ASSERT_EQUAL(c->yh[n], 0xabcdu);
    bad += narrow16(n, 0, 0, c->xd, c->xf, c->yh);
    fill_f64(c->xd, n, -140, 130);
    bad += narrow16(n, 1, 1, c->xd, c->xf, c->yh);
    bad += narrow16(n, 1, 0, c->xd, c->xf, c->yh);
    size_t ov = mixi_cpu_f64_to_f32(n, c->xd, c->yf), ov_ref = 0;
    for (size_t i = 0; i < n; i++) {
        bad += fb(c->yf[i]) != fb((float)c->xd[i]);
        ov_ref += fin(c->xd[i]) && isinf(c->yf[i]);
    }
    CU_ASSERT_EQUAL(ov, ov_ref);
    return bad;
}

static void test_loops_narrowing(void)
{
    conv_bufs c;
    conv_open(&c);
    every_len(narrowing_at, &c, "narrowing");
    mixi_cpu_convert_force_portable(0);
    conv_close(&c);
}

/* FP16 and BF16 to FP32, FP32 to FP64. */
static int widening_at(size_t n, conv_bufs *c)
{
    int bad = 0;
    uint16_t *h = c->yh;
    float *y = c->yf;
    for (size_t i = 0; i < n; i++) h[i] = (uint16_t)(i < 65536 ? i * 40503u : rnd64());
    y[n] = -1.0f;
    mixi_cpu_f16_to_f32(n, h, y);
    for (size_t i = 0; i < n; i++) bad += fb(y[i]) != fb(mixk_f16_to_f32(h[i]));
    mixi_cpu_bf16_to_f32(n, h, y);
    for (size_t i = 0; i < n; i++) bad += fb(y[i]) != fb(mixk_bf16_to_f32(h[i]));
    CU_ASSERT_EQUAL(y[n], -1.0f);
    fill_f32(c->xf, n);
    mixi_cpu_f32_to_f64(n, c->xf, c->yd);
    for (size_t i = 0; i < n; i++) bad += db(c->yd[i]) != db((double)c->xf[i]);
    return bad;
}

static void test_loops_widening(void)
{
    conv_bufs c;
    conv_open(&c);
    every_len(widening_at, &c, "widening");
    /* Every FP16 and BF16 pattern through the array loops. */
    uint16_t *all = malloc(65536 * sizeof *all);
    float *out = malloc(65536 * sizeof *out);
    CU_ASSERT_FATAL(all && out);
    for (uint32_t i = 0; i < 65536; i++) all[i] = (uint16_t)i;
    int bad = 0;
    mixi_cpu_f16_to_f32(65536, all, out);
    for (uint32_t i = 0; i < 65536; i++) bad += fb(out[i]) != fb(mixk_f16_to_f32((uint16_t)i));
    mixi_cpu_bf16_to_f32(65536, all, out);
    for (uint32_t i = 0; i < 65536; i++) bad += fb(out[i]) != fb(mixk_bf16_to_f32((uint16_t)i));
    CU_ASSERT_EQUAL(bad, 0);
    mixi_cpu_convert_force_portable(0);
    free(all); free(out);
    conv_close(&c);
}

static float scalar_round(mix_prec p, float x)
{
    switch (p) {
    case MIX_TF32: return mixk_round_tf32(x);
    case MIX_FP16: return mixk_round_f16(x);
    case MIX_BF16: return mixk_round_bf16(x);
    default: return x;
    }
}

static void test_loops_round(void)
{
    const mix_prec ps[] = {MIX_FP32, MIX_TF32, MIX_FP16, MIX_BF16};
    float *x = malloc(MAXLEN * sizeof *x), *y = malloc(MAXLEN * sizeof *y);
    float *z = malloc(MAXLEN * sizeof *z);
    CU_ASSERT_FATAL(x && y && z);
    for (int portable = 0; portable < 2; portable++) {
        mixi_cpu_convert_force_portable(portable);
        for (size_t k = 0; k < 4; k++)
            for (size_t l = 0; l < NLENS; l++) {
                const size_t n = lens[l];
                fill_f32(x, n);
                int bad = 0;
                size_t ov_ref = 0;
                const size_t ov = mixi_cpu_round_f32(ps[k], n, x, y);
                for (size_t i = 0; i < n; i++) {
                    const float r = scalar_round(ps[k], x[i]);
                    bad += fb(y[i]) != fb(r);
                    ov_ref += fin(x[i]) && isinf(r);
                }
                CU_ASSERT_EQUAL(ov, ov_ref);
                if (ps[k] == MIX_FP32) CU_ASSERT_EQUAL(ov, 0);
                /* In place gives the same. */
                memcpy(z, x, n * sizeof *z);
                CU_ASSERT_EQUAL(mixi_cpu_round_f32(ps[k], n, z, z), ov);
                for (size_t i = 0; i < n; i++) bad += fb(z[i]) != fb(y[i]);
                CU_ASSERT_EQUAL(bad, 0);
            }
    }
    mixi_cpu_convert_force_portable(0);
    free(x); free(y); free(z);
}

static void test_loops_round_matrix(void)
{
    const int ms[] = {1, 9, 33}, ns[] = {1, 5, 200};
    const mix_prec ps[] = {MIX_FP32, MIX_TF32, MIX_FP16, MIX_BF16};
    for (size_t k = 0; k < 4; k++)
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) {
                const int m = ms[a], n = ns[b], ldx = m + 3, ldy = m + 1;
                float *x = malloc((size_t)ldx * n * sizeof *x), *y = malloc((size_t)ldy * n * sizeof *y);
                CU_ASSERT_FATAL(x && y);
                fill_f32(x, (size_t)ldx * n);
                for (int i = 0; i < ldy * n; i++) y[i] = 42.0f;
                size_t ov_ref = 0;
                int bad = 0;
                const size_t ov = mixi_cpu_round_f32_matrix(ps[k], m, n, x, ldx, y, ldy);
                for (int j = 0; j < n; j++)
                    for (int i = 0; i < ldy; i++) {
                        if (i >= m) { bad += y[i + j * ldy] != 42.0f; continue; } /* padding */
                        const float r = scalar_round(ps[k], x[i + j * ldx]);
                        bad += fb(y[i + j * ldy]) != fb(r);
                        ov_ref += fin(x[i + j * ldx]) && isinf(r);
                    }
                CU_ASSERT_EQUAL(ov, ov_ref);
                /* In place, padding rows untouched. */
                float *x0 = malloc((size_t)ldx * n * sizeof *x0);
                CU_ASSERT_FATAL(x0 != NULL);
                memcpy(x0, x, (size_t)ldx * n * sizeof *x0);
                CU_ASSERT_EQUAL(mixi_cpu_round_f32_matrix(ps[k], m, n, x, ldx, x, ldx), ov);
                for (int j = 0; j < n; j++)
                    for (int i = 0; i < ldx; i++)
                        bad += fb(x[i + j * ldx]) !=
                               fb(i < m ? scalar_round(ps[k], x0[i + j * ldx]) : x0[i + j * ldx]);
                CU_ASSERT_EQUAL(bad, 0);
                free(x); free(y); free(x0);
            }
    CU_ASSERT_EQUAL(mixi_cpu_round_f32_matrix(MIX_FP16, 0, 5, NULL, 1, NULL, 1), 0);
}

static void test_loops_fixed16(void)
{
    const size_t blocks[] = {0, 1, 7, 8, 32, 1000};
    float *x = malloc(MAXLEN * sizeof *x), *y = malloc(MAXLEN * sizeof *y);
    int16_t *q = malloc(MAXLEN * sizeof *q);
    float *sc = malloc(MAXLEN * sizeof *sc);
    CU_ASSERT_FATAL(x && y && q && sc);
    for (int portable = 0; portable < 2; portable++) {
        mixi_cpu_convert_force_portable(portable);
        for (size_t l = 0; l < NLENS; l++)
            for (size_t bk = 0; bk < sizeof blocks / sizeof blocks[0]; bk++) {
                const size_t n = lens[l], block = blocks[bk] ? blocks[bk] : n;
                for (size_t i = 0; i < n; i++) {
                    const uint64_t r = rnd64() % 500;
                    x[i] = r == 0 ? 0.0f : r == 1 ? NAN : (float)rnd_mag(-60, 60);
                }
                if (n > 40) for (size_t i = 8; i < 24; i++) x[i] = 0.0f; /* whole zero blocks */
                mixi_cpu_fixed16_encode(n, blocks[bk], x, q, sc);
                mixi_cpu_fixed16_decode(n, blocks[bk], q, sc, y);
                int bad = 0, badnan = 0, badbound = 0;
                for (size_t lo = 0, k = 0; lo < n; lo += block, k++) {
                    const size_t len = n - lo < block ? n - lo : block;
                    const float s = mixk_fixed16_block_scale_f32(x + lo, (int)len);
                    badnan += isnan(s) != isnan(sc[k]);
                    if (!isnan(s)) bad += fb(s) != fb(sc[k]);
                    for (size_t i = lo; i < lo + len; i++) {
                        bad += q[i] != mixk_fixed16_encode(x[i], mixk_fixed16_inv_step(s));
                        const float d = mixk_fixed16_decode(q[i], mixk_fixed16_step(s));
                        badnan += isnan(d) != isnan(y[i]);
                        if (!isnan(d)) {
                            bad += fb(d) != fb(y[i]);
                            badbound += fabs((double)x[i] - y[i]) > fx_bound(s);
                        }
                    }
                }
                CU_ASSERT_EQUAL(bad, 0);
                CU_ASSERT_EQUAL(badnan, 0);
                CU_ASSERT_EQUAL(badbound, 0);
            }
    }
    mixi_cpu_convert_force_portable(0);
    mixi_cpu_fixed16_encode(0, 8, x, q, sc); /* n = 0: nothing touched */
    free(x); free(y); free(q); free(sc);
}

/* Every FP16 and BF16 tie (as float and as double) and its neighbours one ulp away, through
 * the array loops: the AVX2 FP64 paths round to odd in float first, and these are the values
 * where that could go wrong. */
static void test_loops_all_ties(void)
{
    const size_t n = 6 * 0x7f80u;
    double *d = malloc(n * sizeof *d);
    float *f = malloc(n * sizeof *f);
    uint16_t *h = malloc(n * sizeof *h);
    CU_ASSERT_FATAL(d && f && h);
    for (int isbf = 0; isbf < 2; isbf++) {
        size_t k = 0;
        for (uint32_t p = 0; p < (isbf ? 0x7f80u : 0x7c00u); p++) {
            const double lo = isbf ? mixk_bf16_to_f32((uint16_t)p) : mixk_f16_to_f32((uint16_t)p);
            const double ulp = isbf ? ldexp(1.0, (p >> 7) > 1 ? (int)(p >> 7) - 134 : -133)
                                  : ldexp(1.0, (p >> 10) > 1 ? (int)(p >> 10) - 25 : -24);
            const double mid = lo + ulp / 2;
            const double v[6] = {mid, -mid, nextafter(mid, 0), -nextafter(mid, INFINITY),
                                 nextafter(mid, INFINITY), (double)nextafterf((float)mid, 0)};
            for (int i = 0; i < 6; i++, k++) { d[k] = v[i]; f[k] = (float)v[i]; }
        }
        int bad = 0;
        size_t ov = isbf ? mixi_cpu_f64_to_bf16(k, d, h) : mixi_cpu_f64_to_f16(k, d, h);
        CU_ASSERT_EQUAL(ov, 4); /* the tie above the largest value, and one ulp beyond, +- */
        for (size_t i = 0; i < k; i++)
            bad += h[i] != (isbf ? mixk_f64_to_bf16(d[i]) : mixk_f64_to_f16(d[i]));
        ov = isbf ? mixi_cpu_f32_to_bf16(k, f, h) : mixi_cpu_f32_to_f16(k, f, h);
        for (size_t i = 0; i < k; i++)
            bad += h[i] != (isbf ? mixk_f32_to_bf16(f[i]) : mixk_f32_to_f16(f[i]));
        CU_ASSERT_EQUAL(bad, 0);
    }
    free(d); free(f); free(h);
}

static void test_overflow_counts(void)
{
    const float xf[9] = {65504.0f, 65519.996f, 65520.0f, -1e10f, INFINITY, -INFINITY, NAN,
                         -65520.0f, FLT_MAX};
    uint16_t h[9];
    float y[9];
    for (int portable = 0; portable < 2; portable++) {
        mixi_cpu_convert_force_portable(portable);
        CU_ASSERT_EQUAL(mixi_cpu_f32_to_f16(9, xf, h), 4);
        CU_ASSERT_EQUAL(mixi_cpu_round_f32(MIX_FP16, 9, xf, y), 4);
        CU_ASSERT_EQUAL(mixi_cpu_f32_to_bf16(9, xf, h), 1);     /* FLT_MAX */
        CU_ASSERT_EQUAL(mixi_cpu_round_f32(MIX_BF16, 9, xf, y), 1);
        CU_ASSERT_EQUAL(mixi_cpu_round_f32(MIX_TF32, 9, xf, y), 1);
        CU_ASSERT_EQUAL(mixi_cpu_round_f32(MIX_FP32, 9, xf, y), 0);
        const double xd[9] = {1e300, -1e39, 3.4028235e38, 0x1.ffffffp127, INFINITY, NAN,
                              65520.0, 1.0, -DBL_MAX};
        CU_ASSERT_EQUAL(mixi_cpu_f64_to_f32(9, xd, y), 4);  /* 1e300, -1e39, FLT_MAX+ulp/2, -DBL_MAX */
        CU_ASSERT_EQUAL(mixi_cpu_f64_to_f16(9, xd, h), 6);
        CU_ASSERT_EQUAL(mixi_cpu_f64_to_bf16(9, xd, h), 5); /* and 3.4028235e38 */
    }
    mixi_cpu_convert_force_portable(0);
}

/* ---- the precision-traits table against the conversions themselves ------------------------------- */

/* x rounded to `p` (to nearest even) through the format's own conversion. */
static double round_to(mix_prec p, double x)
{
    switch (p) {
    case MIX_FP64: return x;
    case MIX_FP32: return (double)(float)x;
    case MIX_TF32: return (double)mixk_round_tf32((float)x); /* exact: x is a float below */
    case MIX_FP16: return (double)mixk_f16_to_f32(mixk_f64_to_f16(x));
    case MIX_BF16: return (double)mixk_bf16_to_f32(mixk_f64_to_bf16(x));
    default: return NAN;
    }
}

static void test_traits_table(void)
{
    int storage = 0, gemm = 0;
    for (int k = 0; k < MIX_NUM_PREC; k++) {
        const mix_prec p = (mix_prec)k;
        CU_ASSERT(mixk_prec_valid(p));
        CU_ASSERT_STRING_EQUAL(mixk_prec_name(p), mix_prec_name(p));
        storage += mixk_prec_storage(p);
        gemm += mixk_prec_gemm(p);
        const double maxf = mixk_prec_max_finite(p), lim = mixk_prec_overflow_limit(p);
        CU_ASSERT(maxf > 0.0 && lim > maxf);
        CU_ASSERT(mixk_prec_acc(p) == MIX_FP64 || mixk_prec_acc(p) == MIX_FP32);
        CU_ASSERT(mixk_prec_bytes(p) >= mixk_prec_bytes(mixk_prec_acc(p)) ||
                  mixk_prec_acc(p) != p);
        if (mixk_prec_exp_bits(p) == 0) { /* fixed point: the float scale's range */
            CU_ASSERT_EQUAL(mixk_prec_mant_bits(p), 15);
            CU_ASSERT_EQUAL(1 << mixk_prec_mant_bits(p), MIXK_FIXED16_QMAX + 1);
            CU_ASSERT(mixk_prec_block_scaled(p));
            continue;
        }
        /* The largest finite value is (2 - 2^-m) 2^emax and rounds to itself ... */
        const int m = mixk_prec_mant_bits(p), emax = (1 << (mixk_prec_exp_bits(p) - 1)) - 1;
        CU_ASSERT_EQUAL(maxf, ldexp(2.0 - ldexp(1.0, -m), emax));
        CU_ASSERT_EQUAL(round_to(p, maxf), maxf);
        CU_ASSERT(mixk_prec_fits(p, maxf) && !mixk_prec_overflows(p, maxf));
        CU_ASSERT(1 + m + mixk_prec_exp_bits(p) <= 8 * mixk_prec_bytes(p));
        if (p == MIX_FP64) continue;
        /* ... the limit rounds to Inf and the double just below it does not. */
        const double below = p == MIX_TF32 ? (double)nextafterf((float)lim, 0.0f) /* float input */
                                           : nextafter(lim, 0.0);
        CU_ASSERT(isinf(round_to(p, lim)));
        CU_ASSERT(!isinf(round_to(p, below)));
        CU_ASSERT(mixk_prec_overflows(p, lim) && !mixk_prec_fits(p, lim));
        CU_ASSERT(mixk_prec_fits(p, below));
    }
    CU_ASSERT_EQUAL(storage, 5); /* fp64 fp32 fp16 bf16 fixed16 */
    CU_ASSERT_EQUAL(gemm, 5);    /* fp64 fp32 tf32 fp16 bf16 */
    CU_ASSERT(mixk_prec_range_scaling(MIX_FP16) && !mixk_prec_range_scaling(MIX_BF16));
    /* The narrow-exponent trait is what the exponent bits say; AUTO's orders as before. */
    for (int k = 0; k < MIX_NUM_PREC; k++) {
        const mix_prec p = (mix_prec)k;
        CU_ASSERT_EQUAL(mixk_prec_narrow_exp(p),
                        mixk_prec_exp_bits(p) > 0 && mixk_prec_exp_bits(p) < mixk_prec_exp_bits(MIX_FP32));
        if (mixk_prec_cg_auto(p)) CU_ASSERT(mixk_prec_storage(p));
    }
    CU_ASSERT(mixk_prec_short_float(MIX_FP16) && mixk_prec_short_float(MIX_BF16) &&
              !mixk_prec_short_float(MIX_FIXED16) && !mixk_prec_short_float(MIX_FP32));
    CU_ASSERT(mixk_prec_auto_nth(1) == MIX_FP16 && mixk_prec_auto_nth(2) == MIX_BF16 &&
              mixk_prec_auto_nth(3) == MIX_TF32 && mixk_prec_auto_nth(4) == MIX_FP32 &&
              mixk_prec_auto_nth(5) == MIX_PREC_AUTO && mixk_prec_auto_nth(0) == MIX_PREC_AUTO);
    CU_ASSERT(!mixk_prec_valid(MIX_PREC_AUTO) && !mixk_prec_storage(MIX_PREC_AUTO));
    CU_ASSERT(!mixk_prec_fits(MIX_FP16, NAN) && !mixk_prec_overflows(MIX_FP16, NAN));
    CU_ASSERT(mixk_prec_overflows(MIX_FP64, INFINITY));
    CU_ASSERT(MIX_PREC_AUTO >= MIX_CAPS_PREC_SLOTS && MIX_NUM_PREC <= MIX_CAPS_PREC_SLOTS);
    CU_ASSERT_STRING_EQUAL(mix_prec_name(MIX_PREC_AUTO), "auto");
    CU_ASSERT_STRING_EQUAL(mix_prec_name((mix_prec)MIX_NUM_PREC), "?");
}

void mixt_register_formats(void)
{
    static const mixt_test traits[] = {{"table agrees with the conversions", test_traits_table},
                                       {NULL, NULL}};
    static const mixt_test fp16[] = {
        {"all 65536 patterns round-trip", test_f16_all_patterns},
        {"every tie, +-1 ulp, vs definition", test_f16_ties_against_refs},
        {"overflow, subnormals, NaN", test_f16_specials},
        {"random vs _Float16 and reference", test_f16_random},
        {NULL, NULL}};
    static const mixt_test bf16[] = {
        {"all 65536 patterns round-trip", test_bf16_all_patterns},
        {"every tie, +-1 ulp", test_bf16_ties},
        {"random vs reference, specials", test_bf16_random_and_specials},
        {NULL, NULL}};
    static const mixt_test tf32[] = {{"ties, carries, overflow, random", test_tf32}, {NULL, NULL}};
    static const mixt_test fixed16[] = {
        {"error bound over 2^-100..2^100", test_fixed16_bound},
        {"zero blocks, rounding, NaN, clamping", test_fixed16_edges},
        {"the device's FMA step == s/32767, bit for bit", test_fixed16_step_fma},
        {NULL, NULL}};
    static const mixt_test loops[] = {
        {"narrowing == scalar, overflow counts", test_loops_narrowing},
        {"widening == scalar", test_loops_widening},
        {"round_f32 == scalar, in place", test_loops_round},
        {"round_f32_matrix strided, in place", test_loops_round_matrix},
        {"fixed16 blocks == scalar", test_loops_fixed16},
        {"every FP16/BF16 tie == scalar", test_loops_all_ties},
        {"overflow counts of known arrays", test_overflow_counts},
        {NULL, NULL}};
    mixt_add_suite("formats/traits", traits);
    mixt_add_suite("formats/fp16", fp16);
    mixt_add_suite("formats/bf16", bf16);
    mixt_add_suite("formats/tf32", tf32);
    mixt_add_suite("formats/fixed16", fixed16);
    mixt_add_suite("formats/cpu_loops", loops);
}
