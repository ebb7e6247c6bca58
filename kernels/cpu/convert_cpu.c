/* convert_cpu.c: array conversions of the CPU backend: portable C over kernels/common, an AVX2+F16C body picked at run time, OpenMP above a size threshold. */
#include <string.h>
#include "kernels/cpu/convert_cpu.h"
#include "kernels/cpu/cpu_features.h"
/* The AVX2 + F16C bodies exist on x86 only; elsewhere (aarch64), or with -DMIX_NO_X86_SIMD (to
 * check that build here), the portable ones stand in. */
#if (defined(__x86_64__) || defined(__i386__)) && !defined(MIX_NO_X86_SIMD)
#define MIXI_CONV_X86 1
#include <immintrin.h>
#include "kernels/cpu/avx2_lanes.h"
#endif
#include "kernels/common/formats.h"

/* Below this many elements one thread does it all (thread start-up costs more than the loop). */
#define MIXI_CONV_PAR_MIN ((size_t)1 << 16)
#define MIXI_CONV_CHUNK ((size_t)1 << 14)

#ifdef _OPENMP
#define MIXI_OMP(x) _Pragma(#x)
#else
#define MIXI_OMP(x)
#endif

/* One conversion of `n` elements; returns the overflow count (0 for widening ones). */
typedef size_t (*mixi_conv_fn)(size_t n, const void *x, void *y);

typedef struct {
    size_t in_size, out_size;
    mixi_conv_fn portable, avx2;
} mixi_conv;

/* ---- overflow tests on the output patterns (the portable bodies) ---------------------------- */

static inline int fin32(float x) { return (mixk_f32_bits(x) & 0x7f800000u) != 0x7f800000u; }
static inline int fin64(double x)
{
    return (mixk_f64_bits(x) & 0x7ff0000000000000ull) != 0x7ff0000000000000ull;
}
static inline int inf32(float y) { return (mixk_f32_bits(y) & 0x7fffffffu) == 0x7f800000u; }
static inline int inf16(uint16_t h) { return (h & 0x7fffu) == 0x7c00u; }
static inline int infb16(uint16_t h) { return (h & 0x7fffu) == 0x7f80u; }

/* Portable bodies, one line each: the scalar function of kernels/common per element. */
#define MIXI_PORTABLE(name, TI, TO, expr, overflow)                                   \
    static size_t name##_c(size_t n, const void *xv, void *yv)                        \
    {                                                                                 \
        const TI *x = (const TI *)xv;                                                 \
        TO *y = (TO *)yv;                                                             \
        size_t ov = 0;                                                                \
        for (size_t i = 0; i < n; i++) {                                              \
            const TI v = x[i];                                                        \
            const TO r = (expr);                                                      \
            y[i] = r;                                                                 \
            ov += (overflow) ? 1 : 0;                                                 \
        }                                                                             \
        return ov;                                                                    \
    }

MIXI_PORTABLE(f64_f32, double, float, (float)v, fin64(v) && inf32(r))
MIXI_PORTABLE(f32_f64, float, double, (double)v, 0)
MIXI_PORTABLE(f64_f16, double, uint16_t, mixk_f64_to_f16(v), fin64(v) && inf16(r))
MIXI_PORTABLE(f32_f16, float, uint16_t, mixk_f32_to_f16(v), fin32(v) && inf16(r))
MIXI_PORTABLE(f16_f32, uint16_t, float, mixk_f16_to_f32(v), 0)
MIXI_PORTABLE(f64_bf16, double, uint16_t, mixk_f64_to_bf16(v), fin64(v) && infb16(r))
MIXI_PORTABLE(f32_bf16, float, uint16_t, mixk_f32_to_bf16(v), fin32(v) && infb16(r))
MIXI_PORTABLE(bf16_f32, uint16_t, float, mixk_bf16_to_f32(v), 0)
MIXI_PORTABLE(rnd_tf32, float, float, mixk_round_tf32(v), fin32(v) && inf32(r))
MIXI_PORTABLE(rnd_f16, float, float, mixk_round_f16(v), fin32(v) && inf32(r))
MIXI_PORTABLE(rnd_bf16, float, float, mixk_round_bf16(v), fin32(v) && inf32(r))

static size_t copy_f32(size_t n, const void *x, void *y)
{
    if (n && x != y) memmove(y, x, n * sizeof(float));
    return 0;
}

#ifdef MIXI_CONV_X86
/* ---- AVX2 + F16C bodies ---------------------------------------------------------------------
 * Overflow is counted from the inputs: a finite |x| at or above the rounding threshold of the
 * format's largest value (half an ulp above it) becomes Inf.  The tails run the portable body. */

/* |x| >= lim and finite, as a count of the 8 lanes. */
MIXI_AVX2 static inline unsigned ovf8(__m256 x, __m256 lim)
{
    const __m256 a = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x);
    const __m256 m = _mm256_and_ps(_mm256_cmp_ps(a, lim, _CMP_GE_OQ),
                                   _mm256_cmp_ps(a, _mm256_set1_ps(__builtin_inff()), _CMP_LT_OQ));
    return (unsigned)__builtin_popcount((unsigned)_mm256_movemask_ps(m));
}

MIXI_AVX2 static inline unsigned ovf4d(__m256d x, __m256d lim)
{
    const __m256d a = _mm256_andnot_pd(_mm256_set1_pd(-0.0), x);
    const __m256d m = _mm256_and_pd(_mm256_cmp_pd(a, lim, _CMP_GE_OQ),
                                    _mm256_cmp_pd(a, _mm256_set1_pd(__builtin_inf()), _CMP_LT_OQ));
    return (unsigned)__builtin_popcount((unsigned)_mm256_movemask_pd(m));
}

/* The largest values' rounding thresholds (kernels/common/prec_traits.h). */
#define LIM_F16 mixk_prec_overflow_limit(MIX_FP16)
#define LIM_BF16 mixk_prec_overflow_limit(MIX_BF16)
#define LIM_TF32 mixk_prec_overflow_limit(MIX_TF32)
#define LIM_F32 mixk_prec_overflow_limit(MIX_FP32) /* FLT_MAX + half an ulp: a double */

/* FP64 -> FP32 rounded to odd: truncate, then set the last bit if anything was lost.  Rounding
 * that once more to a format with at least 2 fewer mantissa bits (FP16, BF16) gives the single
 * correctly rounded result, so double rounding never shows. */
MIXI_AVX2 static inline __m128i f64_to_f32_odd(__m256d d)
{
    const __m128 f = _mm256_cvtpd_ps(d); /* nearest even */
    const __m256d back = _mm256_cvtps_pd(f);
    const __m256d sgn = _mm256_set1_pd(-0.0);
    const __m256d away = _mm256_cmp_pd(_mm256_andnot_pd(sgn, back), _mm256_andnot_pd(sgn, d),
                                       _CMP_GT_OQ);      /* rounded away from zero */
    const __m256d inexact = _mm256_cmp_pd(back, d, _CMP_NEQ_OQ); /* false for NaN */
    /* 64-bit lane masks -> 32-bit lanes (take the low half of each). */
    const __m256i idx = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
    const __m128i away32 =
        _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(_mm256_castpd_si256(away), idx));
    const __m128i inex32 =
        _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(_mm256_castpd_si256(inexact), idx));
    __m128i b = _mm_add_epi32(_mm_castps_si128(f), away32); /* -1: one step back toward zero */
    return _mm_or_si128(b, _mm_and_si128(inex32, _mm_set1_epi32(1)));
}

/* The inputs at p, their overflows against lim (one of the LIM_ above) added to *ov. */
MIXI_AVX2 static inline __m256 load8(const float *p, double lim, size_t *ov)
{
    const __m256 v = _mm256_loadu_ps(p);
    *ov += ovf8(v, _mm256_set1_ps((float)lim));
    return v;
}

MIXI_AVX2 static inline __m256d load4d(const double *p, double lim, size_t *ov)
{
    const __m256d d = _mm256_loadu_pd(p);
    *ov += ovf4d(d, _mm256_set1_pd(lim));
    return d;
}

/* Eight doubles at p as FP32 patterns rounded to odd (f64_to_f32_odd), overflows counted. */
MIXI_AVX2 static inline __m256i load8d_odd(const double *p, double lim, size_t *ov)
{
    const __m256d d0 = load4d(p, lim, ov);
    const __m256d d1 = load4d(p + 4, lim, ov);
    return _mm256_setr_m128i(f64_to_f32_odd(d0), f64_to_f32_odd(d1));
}

/* FP32 patterns rounded to TF32 (nearest even, NaN quieted), still as FP32 patterns. */
MIXI_AVX2 static inline __m256i tf32_lanes(__m256 v)
{
    const __m256i u = _mm256_castps_si256(v);
    const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 13), _mm256_set1_epi32(1));
    const __m256i r = _mm256_add_epi32(_mm256_add_epi32(u, _mm256_set1_epi32(0xfff)), lsb);
    const __m256i q = _mm256_or_si256(u, _mm256_set1_epi32(0x400000));
    const __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    return _mm256_and_si256(_mm256_blendv_epi8(r, q, nan), _mm256_set1_epi32((int)0xffffe000u));
}

/* An AVX2 body: `step` elements a pass through `lane` (a statement over x + i and y + i that
 * adds its overflows to ov), the tail through the portable body of the same name. */
#define MIXI_AVX2_BODY(name, TI, TO, step, lane)                                     \
    MIXI_AVX2 static size_t name##_v(size_t n, const void *xv, void *yv)              \
    {                                                                                 \
        const TI *x = (const TI *)xv;                                                 \
        TO *y = (TO *)yv;                                                             \
        size_t i = 0, ov = 0;                                                         \
        for (; i + (step) <= n; i += (step)) {                                        \
            lane;                                                                     \
        }                                                                             \
        return ov + name##_c(n - i, x + i, y + i);                                    \
    }

#define RNE (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define STORE8_U16(v) _mm_storeu_si128((__m128i *)(y + i), (v))
#define LOAD8_U16() _mm_loadu_si128((const __m128i *)(x + i))

MIXI_AVX2_BODY(f64_f32, double, float, 4,
               _mm_storeu_ps(y + i, _mm256_cvtpd_ps(load4d(x + i, LIM_F32, &ov))))
MIXI_AVX2_BODY(f32_f64, float, double, 4,
               _mm256_storeu_pd(y + i, _mm256_cvtps_pd(_mm_loadu_ps(x + i))))
MIXI_AVX2_BODY(f32_f16, float, uint16_t, 8,
               STORE8_U16(_mm256_cvtps_ph(load8(x + i, LIM_F16, &ov), RNE)))
MIXI_AVX2_BODY(f64_f16, double, uint16_t, 8,
               STORE8_U16(_mm256_cvtps_ph(
                   _mm256_castsi256_ps(load8d_odd(x + i, LIM_F16, &ov)), RNE)))
MIXI_AVX2_BODY(f16_f32, uint16_t, float, 8, _mm256_storeu_ps(y + i, _mm256_cvtph_ps(LOAD8_U16())))
MIXI_AVX2_BODY(f32_bf16, float, uint16_t, 8,
               STORE8_U16(pack_u16(f32_to_bf16_lanes(
                   _mm256_castps_si256(load8(x + i, LIM_BF16, &ov))))))
MIXI_AVX2_BODY(f64_bf16, double, uint16_t, 8,
               STORE8_U16(pack_u16(f32_to_bf16_lanes(load8d_odd(x + i, LIM_BF16, &ov)))))
MIXI_AVX2_BODY(bf16_f32, uint16_t, float, 8,
               _mm256_storeu_ps(y + i, bf16_lanes_to_f32(_mm256_cvtepu16_epi32(LOAD8_U16()))))
MIXI_AVX2_BODY(rnd_tf32, float, float, 8,
               _mm256_storeu_si256((__m256i *)(y + i), tf32_lanes(load8(x + i, LIM_TF32, &ov))))
MIXI_AVX2_BODY(rnd_f16, float, float, 8,
               _mm256_storeu_ps(y + i, _mm256_cvtph_ps(
                                           _mm256_cvtps_ph(load8(x + i, LIM_F16, &ov), RNE))))
MIXI_AVX2_BODY(rnd_bf16, float, float, 8,
               _mm256_storeu_ps(y + i, bf16_lanes_to_f32(f32_to_bf16_lanes(
                                           _mm256_castps_si256(load8(x + i, LIM_BF16, &ov))))))
#define VEC(name) name##_v /* the AVX2 body, where there is one */
#else
#define VEC(name) name##_c
#endif

/* ---- the table and its one driver ------------------------------------------------------------ */

enum {
    CV_F64_F32, CV_F32_F64, CV_F64_F16, CV_F32_F16, CV_F16_F32, CV_F64_BF16, CV_F32_BF16,
    CV_BF16_F32, CV_RND_TF32, CV_RND_F16, CV_RND_BF16, CV_COPY_F32
};

/* {in size, out size, portable body, AVX2 body} per conversion. */
#define CONV(TI, TO, name) {sizeof(TI), sizeof(TO), name##_c, VEC(name)}
static const mixi_conv conv_table[] = {
    [CV_F64_F32] = CONV(double, float, f64_f32),
    [CV_F32_F64] = CONV(float, double, f32_f64),
    [CV_F64_F16] = CONV(double, uint16_t, f64_f16),
    [CV_F32_F16] = CONV(float, uint16_t, f32_f16),
    [CV_F16_F32] = CONV(uint16_t, float, f16_f32),
    [CV_F64_BF16] = CONV(double, uint16_t, f64_bf16),
    [CV_F32_BF16] = CONV(float, uint16_t, f32_bf16),
    [CV_BF16_F32] = CONV(uint16_t, float, bf16_f32),
    [CV_RND_TF32] = CONV(float, float, rnd_tf32),
    [CV_RND_F16] = CONV(float, float, rnd_f16),
    [CV_RND_BF16] = CONV(float, float, rnd_bf16),
    [CV_COPY_F32] = {sizeof(float), sizeof(float), copy_f32, copy_f32},
};

static int force_portable;

void mixi_cpu_convert_force_portable(int on) { force_portable = on; }

static mixi_conv_fn pick(int which)
{
    const mixi_conv *c = &conv_table[which];
    return (!force_portable && mixi_cpu_has_f16c()) ? c->avx2 : c->portable;
}

static size_t run(int which, size_t n, const void *x, void *y)
{
    const mixi_conv_fn fn = pick(which);
    if (n < MIXI_CONV_PAR_MIN) return fn(n, x, y);
    const size_t isz = conv_table[which].in_size, osz = conv_table[which].out_size;
    const long nchunk = (long)((n + MIXI_CONV_CHUNK - 1) / MIXI_CONV_CHUNK);
    size_t ov = 0;
    MIXI_OMP(omp parallel for reduction(+ : ov) schedule(static))
    for (long k = 0; k < nchunk; k++) {
        const size_t lo = (size_t)k * MIXI_CONV_CHUNK;
        const size_t len = n - lo < MIXI_CONV_CHUNK ? n - lo : MIXI_CONV_CHUNK;
        ov += fn(len, (const char *)x + lo * isz, (char *)y + lo * osz);
    }
    return ov;
}

size_t mixi_cpu_f64_to_f32(size_t n, const double *x, float *y) { return run(CV_F64_F32, n, x, y); }
void mixi_cpu_f32_to_f64(size_t n, const float *x, double *y) { (void)run(CV_F32_F64, n, x, y); }
size_t mixi_cpu_f64_to_f16(size_t n, const double *x, uint16_t *y) { return run(CV_F64_F16, n, x, y); }
size_t mixi_cpu_f32_to_f16(size_t n, const float *x, uint16_t *y) { return run(CV_F32_F16, n, x, y); }
void mixi_cpu_f16_to_f32(size_t n, const uint16_t *x, float *y) { (void)run(CV_F16_F32, n, x, y); }
size_t mixi_cpu_f64_to_bf16(size_t n, const double *x, uint16_t *y) { return run(CV_F64_BF16, n, x, y); }
size_t mixi_cpu_f32_to_bf16(size_t n, const float *x, uint16_t *y) { return run(CV_F32_BF16, n, x, y); }
void mixi_cpu_bf16_to_f32(size_t n, const uint16_t *x, float *y) { (void)run(CV_BF16_F32, n, x, y); }

static int round_op(mix_prec p)
{
    switch (p) {
    case MIX_TF32: return CV_RND_TF32;
    case MIX_FP16: return CV_RND_F16;
    case MIX_BF16: return CV_RND_BF16;
    default: return CV_COPY_F32;
    }
}

size_t mixi_cpu_round_f32(mix_prec p, size_t n, const float *x, float *y)
{
    return run(round_op(p), n, x, y);
}

/* An m x n column-major conversion, columns over the threads when the matrix is large and the
 * BLAS shares our OpenMP pool (else serial: see mixi_cpu_blas_shares_omp_pool). */
static size_t run_matrix(int which, int m, int n, const void *x, int ldx, void *y, int ldy)
{
    if (m <= 0 || n <= 0) return 0;
    const mixi_conv_fn fn = pick(which);
    const size_t isz = conv_table[which].in_size, osz = conv_table[which].out_size;
    const int par = (size_t)m * (size_t)n >= MIXI_CONV_PAR_MIN && mixi_cpu_blas_shares_omp_pool();
    size_t ov = 0;
    (void)par;
    MIXI_OMP(omp parallel for reduction(+ : ov) schedule(static) if (par))
    for (int j = 0; j < n; j++)
        ov += fn((size_t)m, (const char *)x + (size_t)j * (size_t)ldx * isz,
                 (char *)y + (size_t)j * (size_t)ldy * osz);
    return ov;
}

size_t mixi_cpu_round_f32_matrix(mix_prec p, int m, int n, const float *x, int ldx, float *y,
                                 int ldy)
{
    return run_matrix(round_op(p), m, n, x, ldx, y, ldy);
}

size_t mixi_cpu_f32_to_bf16_matrix(int m, int n, const float *x, int ldx, uint16_t *y, int ldy)
{
    return run_matrix(CV_F32_BF16, m, n, x, ldx, y, ldy);
}

/* ---- FIXED16 blocks ---------------------------------------------------------------------------- */

static float fx_scale_c(size_t n, const float *x) { return mixk_fixed16_block_scale_f32(x, (int)n); }

static void fx_encode_c(size_t n, const float *x, float inv_step, int16_t *q)
{
    for (size_t i = 0; i < n; i++) q[i] = mixk_fixed16_encode(x[i], inv_step);
}

static void fx_decode_c(size_t n, const int16_t *q, float step, float *x)
{
    for (size_t i = 0; i < n; i++) x[i] = mixk_fixed16_decode(q[i], step);
}

#ifdef MIXI_CONV_X86
MIXI_AVX2 static float fx_scale_v(size_t n, const float *x)
{
    const __m256 sgn = _mm256_set1_ps(-0.0f);
    __m256 s = _mm256_setzero_ps(), nan = _mm256_setzero_ps();
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 a = _mm256_andnot_ps(sgn, _mm256_loadu_ps(x + i));
        nan = _mm256_or_ps(nan, _mm256_cmp_ps(a, a, _CMP_UNORD_Q));
        s = _mm256_max_ps(s, a);
    }
    float lanes[8];
    _mm256_storeu_ps(lanes, s);
    float r = fx_scale_c(n - i, x + i);
    if (r != r) return r;
    if (_mm256_movemask_ps(nan)) return mixk_bits_f32(0x7fc00000u);
    for (int k = 0; k < 8; k++) r = lanes[k] > r ? lanes[k] : r;
    return r;
}

MIXI_AVX2 static void fx_encode_v(size_t n, const float *x, float inv_step, int16_t *q)
{
    const __m256 inv = _mm256_set1_ps(inv_step);
    const __m256 hi = _mm256_set1_ps((float)MIXK_FIXED16_QMAX), lo = _mm256_set1_ps(-(float)MIXK_FIXED16_QMAX);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 t = _mm256_mul_ps(_mm256_loadu_ps(x + i), inv);
        t = _mm256_andnot_ps(_mm256_cmp_ps(t, t, _CMP_UNORD_Q), t); /* NaN -> 0 */
        t = _mm256_max_ps(_mm256_min_ps(t, hi), lo);
        const __m256i k = _mm256_cvtps_epi32(
            _mm256_round_ps(t, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
        const __m256i p = _mm256_packs_epi32(k, k);
        _mm_storeu_si128((__m128i *)(q + i),
                         _mm256_castsi256_si128(_mm256_permute4x64_epi64(p, 0x08)));
    }
    fx_encode_c(n - i, x + i, inv_step, q + i);
}

MIXI_AVX2 static void fx_decode_v(size_t n, const int16_t *q, float step, float *x)
{
    const __m256 st = _mm256_set1_ps(step);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256i k = _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)(q + i)));
        _mm256_storeu_ps(x + i, _mm256_mul_ps(_mm256_cvtepi32_ps(k), st));
    }
    fx_decode_c(n - i, q + i, step, x + i);
}
#endif

void mixi_cpu_fixed16_encode(size_t n, size_t block, const float *x, int16_t *q, float *scales)
{
    if (n == 0) return;
    if (block == 0 || block > n) block = n;
    const int vec = !force_portable && mixi_cpu_has_f16c();
    const long nb = (long)((n + block - 1) / block);
    MIXI_OMP(omp parallel for schedule(static) if (n >= MIXI_CONV_PAR_MIN))
    for (long k = 0; k < nb; k++) {
        const size_t lo = (size_t)k * block, len = n - lo < block ? n - lo : block;
        const float s = vec ? VEC(fx_scale)(len, x + lo) : fx_scale_c(len, x + lo);
        scales[k] = s;
        if (vec) VEC(fx_encode)(len, x + lo, mixk_fixed16_inv_step(s), q + lo);
        else fx_encode_c(len, x + lo, mixk_fixed16_inv_step(s), q + lo);
    }
}

void mixi_cpu_fixed16_decode(size_t n, size_t block, const int16_t *q, const float *scales,
                             float *x)
{
    if (n == 0) return;
    if (block == 0 || block > n) block = n;
    const int vec = !force_portable && mixi_cpu_has_f16c();
    const long nb = (long)((n + block - 1) / block);
    MIXI_OMP(omp parallel for schedule(static) if (n >= MIXI_CONV_PAR_MIN))
    for (long k = 0; k < nb; k++) {
        const size_t lo = (size_t)k * block, len = n - lo < block ? n - lo : block;
        const float step = mixk_fixed16_step(scales[k]);
        if (vec) VEC(fx_decode)(len, q + lo, step, x + lo);
        else fx_decode_c(len, q + lo, step, x + lo);
    }
}
