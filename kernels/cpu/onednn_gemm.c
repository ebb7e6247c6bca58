/* onednn_gemm.c: the gemm_f32 op on oneDNN's matmul (FP32, and BF16 inputs with FP32 output), primitives cached per shape. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <dnnl.h>
#include "lib/core/core.h"
#include "kernels/cpu/convert_cpu.h"
#include "kernels/cpu/onednn_gemm.h"

/* Primitive creation (JIT code generation) costs far more than a small GEMM, and the blocked LU
 * calls with a handful of shapes per factorisation, repeated on every solve of that size: a
 * small least-recently-used cache keyed by everything that is baked into the primitive. */
#define CACHE_SIZE 16

typedef struct {
    int used, bf16, transa, transb, m, n, k, lda, ldb, ldc;
    uint32_t alpha_bits, beta_bits;
    int status;              /* MIX_SUCCESS, or the creation failure remembered for this key */
    dnnl_primitive_t prim;
    dnnl_memory_t src, wei, dst; /* handles set on each call */
    unsigned long stamp;
} entry;

/* One lock over the cache AND the execution: an entry cannot be evicted while another thread
 * runs it, and the library-managed scratchpad of a primitive is not shared by two calls. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static dnnl_engine_t engine;
static dnnl_stream_t stream;
static int engine_status = -1; /* -1: not tried yet */
static entry cache[CACHE_SIZE];
static unsigned long clock_;

static int map_status(dnnl_status_t s)
{
    switch (s) {
    case dnnl_success: return MIX_SUCCESS;
    case dnnl_out_of_memory: return MIX_ERR_ALLOC;
    case dnnl_unimplemented: return MIX_ERR_UNSUPPORTED;
    default: return MIX_ERR_INTERNAL;
    }
}

static uint32_t bits_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static int ensure_engine(void)
{
    if (engine_status >= 0) return engine_status;
    /* The library never prints: this overrides ONEDNN_VERBOSE, which would log every call. */
    if (!getenv("MIXI_ONEDNN_DEBUG")) dnnl_set_verbose(0);
    int rc = map_status(dnnl_engine_create(&engine, dnnl_cpu, 0));
    if (rc == MIX_SUCCESS) {
        rc = map_status(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));
        if (rc != MIX_SUCCESS) dnnl_engine_destroy(engine);
    }
    /* No CPU engine at all: the caller's emulation serves, as for a missing primitive. */
    if (rc == MIX_ERR_INTERNAL) rc = MIX_ERR_UNSUPPORTED;
    /* Out of memory may pass: asked again at the next call, not given up for the process. */
    if (rc != MIX_ERR_ALLOC) engine_status = rc;
    return rc;
}

static void release(entry *e)
{
    if (e->prim) dnnl_primitive_destroy(e->prim);
    if (e->src) dnnl_memory_destroy(e->src);
    if (e->wei) dnnl_memory_destroy(e->wei);
    if (e->dst) dnnl_memory_destroy(e->dst);
    memset(e, 0, sizeof *e);
}

/* rows x cols row-major with row stride ld, or (trans) its transpose read in place: element
 * (i, j) at j * ld + i. */
static int md_2d(dnnl_memory_desc_t *md, int rows, int cols, int ld, int trans, dnnl_data_type_t t)
{
    dnnl_dims_t dims = {rows, cols}, strides = {trans ? 1 : ld, trans ? ld : 1};
    return map_status(dnnl_memory_desc_init_by_strides(md, 2, dims, t, strides));
}

/* Column-major C = alpha A B + beta C is, read row-major, C^T = alpha B^T A^T + beta C^T: B^T
 * (n x k, row stride ldb) is oneDNN's source, A^T (k x m, row stride lda) its weights.  A
 * transposed operand is the same matrix with its strides swapped. */
static int create(entry *e, float alpha, float beta)
{
    dnnl_data_type_t it = e->bf16 ? dnnl_bf16 : dnnl_f32;
    dnnl_memory_desc_t src_md, wei_md, dst_md;
    dnnl_matmul_desc_t desc;
    dnnl_primitive_attr_t attr = NULL;
    dnnl_post_ops_t po = NULL;
    dnnl_primitive_desc_t pd = NULL;
    int rc;
    if ((rc = md_2d(&src_md, e->n, e->k, e->ldb, e->transb, it))) goto out;
    if ((rc = md_2d(&wei_md, e->k, e->m, e->lda, e->transa, it))) goto out;
    if ((rc = md_2d(&dst_md, e->n, e->m, e->ldc, 0, dnnl_f32))) goto out;
    if ((rc = map_status(dnnl_matmul_desc_init(&desc, &src_md, &wei_md, NULL, &dst_md)))) goto out;
    if ((rc = map_status(dnnl_primitive_attr_create(&attr)))) goto out;
    /* Strict: ONEDNN_DEFAULT_FPMATH_MODE must not let an FP32 GEMM down-convert its inputs. */
    if ((rc = map_status(dnnl_primitive_attr_set_fpmath_mode(attr, dnnl_fpmath_mode_strict))))
        goto out;
    if (alpha != 1.0f &&
        (rc = map_status(dnnl_primitive_attr_set_output_scales(attr, 1, 0, &alpha))))
        goto out;
    /* beta = 0 overwrites C without reading it (a NaN there does not survive, as in BLAS). */
    if (beta != 0.0f) {
        if ((rc = map_status(dnnl_post_ops_create(&po)))) goto out;
        if ((rc = map_status(dnnl_post_ops_append_sum(po, beta)))) goto out;
        if ((rc = map_status(dnnl_primitive_attr_set_post_ops(attr, po)))) goto out;
    }
    if ((rc = map_status(dnnl_primitive_desc_create(&pd, &desc, attr, engine, NULL)))) goto out;
    if ((rc = map_status(dnnl_primitive_create(&e->prim, pd)))) goto out;
    if ((rc = map_status(dnnl_memory_create(&e->src, &src_md, engine, DNNL_MEMORY_NONE)))) goto out;
    if ((rc = map_status(dnnl_memory_create(&e->wei, &wei_md, engine, DNNL_MEMORY_NONE)))) goto out;
    rc = map_status(dnnl_memory_create(&e->dst, &dst_md, engine, DNNL_MEMORY_NONE));
out:
    if (pd) dnnl_primitive_desc_destroy(pd);
    if (po) dnnl_post_ops_destroy(po);
    if (attr) dnnl_primitive_attr_destroy(attr);
    return rc;
}

/* The entry for this key, created if missing (evicting the least recently used); NULL only
 * when it cannot be stored.  Its status says whether the primitive exists.  Lock held. */
static entry *lookup(int bf16, int transa, int transb, int m, int n, int k, int lda, int ldb,
                     int ldc, float alpha, float beta)
{
    uint32_t ab = bits_of(alpha), bb = bits_of(beta);
    entry *victim = &cache[0];
    for (int i = 0; i < CACHE_SIZE; i++) {
        entry *e = &cache[i];
        if (e->used && e->bf16 == bf16 && e->transa == transa && e->transb == transb &&
            e->m == m && e->n == n && e->k == k && e->lda == lda && e->ldb == ldb &&
            e->ldc == ldc && e->alpha_bits == ab && e->beta_bits == bb) {
            e->stamp = ++clock_;
            return e;
        }
        if (!e->used || (victim->used && e->stamp < victim->stamp)) victim = e;
    }
    release(victim);
    *victim = (entry){.used = 1, .bf16 = bf16, .transa = transa, .transb = transb, .m = m,
                      .n = n, .k = k, .lda = lda, .ldb = ldb, .ldc = ldc, .alpha_bits = ab,
                      .beta_bits = bb, .stamp = ++clock_};
    victim->status = create(victim, alpha, beta);
    if (victim->status != MIX_SUCCESS) {
        /* Keep only the verdict: a failed key is not retried (creation is what costs). */
        int st = victim->status;
        release(victim);
        *victim = (entry){.used = 1, .bf16 = bf16, .transa = transa, .transb = transb,
                          .m = m, .n = n, .k = k, .lda = lda, .ldb = ldb, .ldc = ldc,
                          .alpha_bits = ab, .beta_bits = bb, .stamp = clock_, .status = st};
        /* An allocation failure may pass; do not remember it. */
        if (st == MIX_ERR_ALLOC) victim->used = 0;
    }
    return victim;
}

static int run(int bf16, int transa, int transb, int m, int n, int k, float alpha, const void *a,
               int lda, const void *b, int ldb, float beta, float *c, int ldc)
{
    pthread_mutex_lock(&lock);
    int rc = ensure_engine();
    if (rc) goto out;
    entry *e = lookup(bf16, transa, transb, m, n, k, lda, ldb, ldc, alpha, beta);
    if ((rc = e->status)) goto out;
    /* oneDNN takes non-const handles; it only reads the source and the weights. */
    if ((rc = map_status(dnnl_memory_set_data_handle(e->src, (void *)(uintptr_t)b)))) goto out;
    if ((rc = map_status(dnnl_memory_set_data_handle(e->wei, (void *)(uintptr_t)a)))) goto out;
    if ((rc = map_status(dnnl_memory_set_data_handle(e->dst, c)))) goto out;
    dnnl_exec_arg_t args[3] = {
        {DNNL_ARG_SRC, e->src}, {DNNL_ARG_WEIGHTS, e->wei}, {DNNL_ARG_DST, e->dst}};
    if ((rc = map_status(dnnl_primitive_execute(e->prim, stream, 3, args)))) goto out;
    rc = map_status(dnnl_stream_wait(stream));
    /* A primitive created but refusing to run is a library failure, not a missing feature. */
    if (rc == MIX_ERR_UNSUPPORTED) rc = MIX_ERR_INTERNAL;
out:
    pthread_mutex_unlock(&lock);
    return rc;
}

int mixi_onednn_supports(mix_prec compute)
{
    static int verdict[2] = {-1, -1};
    if (compute != MIX_FP32 && compute != MIX_BF16) return 0;
    int bf16 = compute == MIX_BF16;
    pthread_mutex_lock(&lock);
    if (verdict[bf16] < 0 && ensure_engine() == MIX_SUCCESS) {
        /* A small square problem; the answer depends on the CPU's ISA, not on the shape. */
        entry *e = lookup(bf16, 0, 0, 16, 16, 16, 16, 16, 16, 1.0f, 0.0f);
        if (e->status != MIX_ERR_ALLOC) verdict[bf16] = e->status == MIX_SUCCESS;
    }
    int ok = verdict[bf16] > 0;
    pthread_mutex_unlock(&lock);
    return ok;
}

static void flip_sign_bf16(size_t count, uint16_t *x)
{
    for (size_t i = 0; i < count; i++) x[i] ^= 0x8000u;
}

/* BLAS semantics where no product is formed (k = 0 or alpha = 0): C := beta C, beta = 0 writing
 * zeros whatever C held. */
static void scale_c(int m, int n, float beta, float *c, int ldc)
{
    for (int j = 0; j < n; j++) {
        float *cj = c + (size_t)j * (size_t)ldc;
        for (int i = 0; i < m; i++) cj[i] = beta == 0.0f ? 0.0f : beta * cj[i];
    }
}

int mixi_onednn_gemm_f32(mix_prec compute, int transa, int transb, int m, int n, int k,
                         float alpha, const float *a, int lda, const float *b, int ldb, float beta,
                         float *c, int ldc, void *work, size_t *overflow)
{
    if (overflow) *overflow = 0;
    if (compute != MIX_FP32 && compute != MIX_BF16) return MIX_ERR_UNSUPPORTED;
    if (m == 0 || n == 0) return MIX_SUCCESS;
    if (compute == MIX_FP32) {
        if (k == 0 || alpha == 0.0f) {
            scale_c(m, n, beta, c, ldc);
            return MIX_SUCCESS;
        }
        return run(0, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    }
    /* BF16: rounded copies, compact (ld = stored rows) in the stored orientation, in the
     * workspace; B starts on a 64-byte boundary when the workspace (twice what the copies need)
     * leaves room for it. */
    const int rows_a = transa ? k : m, cols_a = transa ? m : k;
    const int rows_b = transb ? n : k, cols_b = transb ? k : n;
    size_t na = (size_t)m * (size_t)k, nb = (size_t)k * (size_t)n;
    uint16_t *ra = work, *rb = ra + na;
    size_t pad = (32 - (na & 31)) & 31;
    if (na + pad + nb <= 2 * (na + nb)) rb += pad;
    size_t bad = 0;
    bad += mixi_cpu_f32_to_bf16_matrix(rows_a, cols_a, a, lda, ra, rows_a);
    bad += mixi_cpu_f32_to_bf16_matrix(rows_b, cols_b, b, ldb, rb, rows_b);
    if (k == 0 || alpha == 0.0f) {
        scale_c(m, n, beta, c, ldc);
        if (overflow) *overflow = bad;
        return MIX_SUCCESS;
    }
    if (alpha == -1.0f) {
        /* oneDNN 2.6 has no AMX/brgemm matmul with an output scale and falls back to its older
         * GEMM at a third of the speed (ONEDNN_VERBOSE: gemm:jit instead of
         * brg:avx512_core_amx_bf16): the LU's -1 goes into the copy of A instead, exactly. */
        flip_sign_bf16(na, ra);
        alpha = 1.0f;
    }
    int rc = run(1, transa, transb, m, n, k, alpha, ra, rows_a, rb, rows_b, beta, c, ldc);
    if (rc == MIX_SUCCESS && overflow) *overflow = bad;
    return rc;
}
