/* amg_product.c: the row-by-row (Gustavson) products of the multigrid set-up (FP64 host CSR),
 * one marker array per thread: C = A B, and the Galerkin operator R (A P) with A P held in a
 * reservation instead of CSR. */
#include <string.h>
#include "solvers/amg/amg.h"

/* The product writes blocks of PRODUCT_BLOCK rows, each thread its blocks, into buffers of their
 * own: for C = A B buffers that grow as needed, copied into place at the end (against a
 * symbolic pass that counts each row first, the copy of C costs less than a second sweep over
 * A and B: 3-D Poisson 150^3, A P has 24 million entries from 75 million products); for A P
 * inside the Galerkin product one reservation of the blocks' bounds (its untouched pages cost
 * nothing), the rows left where they are made.  A thread's slot array over B's columns holds
 * column j's place in the row being built, or -1, and is reset from the row's own columns. */
#define PRODUCT_BLOCK 2048

typedef struct {
    int32_t *ci;
    double *v;
    int64_t len, cap;
    int owned; /* grows by reallocation (else a fixed part of a reservation) */
} row_block;

/* B's rows as [bs[j], be[j]): a CSR matrix's (be = rp + 1) or a reservation's; entries: their
 * number. */
typedef struct {
    const mixi_amg_csr *M;
    const int64_t *bs, *be;
    int64_t entries;
} rows_of;

/* One past the last row of block c of a matrix of nr rows. */
static int block_end(int nr, int c)
{
    return nr - c * PRODUCT_BLOCK > PRODUCT_BLOCK ? (c + 1) * PRODUCT_BLOCK : nr;
}

static rows_of csr_rows(const mixi_amg_csr *M)
{
    return (rows_of){M, M->rp, M->rp + 1, M->rp[M->nr]};
}

/* A team for A B where its products are many, not only where A is large: the Galerkin
 * product's R (A P) below the fine level has R of 1.7 million entries but 46 million products
 * (3-D Poisson 150^3, level 1), which ran on one thread (0.25 s on 1 and 2). */
static int product_team(const mixi_amg_csr *A, const rows_of *B)
{
    const double rows = B->M->nr > 0 ? (double)B->M->nr : 1.0;
    const double products = (double)A->rp[A->nr] * ((double)B->entries / rows);
    return MIXI_AMG_TEAM(A) || products >= (double)MIXI_AMG_TEAM_MIN_NNZ;
}

/* Room for n more entries in b's buffer (doubling). */
static int block_reserve(row_block *b, int64_t n)
{
    if (b->len + n <= b->cap) return MIX_SUCCESS;
    if (!b->owned) return MIX_ERR_INTERNAL; /* a reservation's block holds its bound */
    int64_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + n) cap *= 2;
    int32_t *ci = mixi_malloc_scratch((size_t)cap, sizeof *ci);
    double *v = mixi_malloc_scratch((size_t)cap, sizeof *v);
    if (!ci || !v) {
        mixi_free(ci), mixi_free(v);
        return MIX_ERR_ALLOC;
    }
    if (b->len) memcpy(ci, b->ci, (size_t)b->len * sizeof *ci), memcpy(v, b->v, (size_t)b->len * sizeof *v);
    mixi_free(b->ci), mixi_free(b->v);
    b->ci = ci, b->v = v, b->cap = cap;
    return MIX_SUCCESS;
}

/* Row i's products: a bound on its length. */
static int64_t row_candidates(const mixi_amg_csr *A, const rows_of *B, int i)
{
    int64_t cand = 0;
    for (int64_t k = A->rp[i]; k < A->rp[i + 1]; k++) cand += B->be[A->ci[k]] - B->bs[A->ci[k]];
    return cand < B->M->nc ? cand : B->M->nc;
}

/* Row i of A B appended to b (room for its candidates reserved); returns its length. */
static int64_t product_row(const mixi_amg_csr *A, const rows_of *B, int i, int32_t *slot, row_block *b)
{
    int32_t *ci = b->ci + b->len;
    double *cv = b->v + b->len;
    const int32_t *bci = B->M->ci;
    const double *bv = B->M->v;
    int32_t e = 0;
    for (int64_t k = A->rp[i]; k < A->rp[i + 1]; k++) {
        const double a = A->v[k];
        for (int64_t q = B->bs[A->ci[k]]; q < B->be[A->ci[k]]; q++) {
            const int32_t j = bci[q];
            if (slot[j] < 0) slot[j] = e, ci[e] = j, cv[e++] = a * bv[q];
            else cv[slot[j]] += a * bv[q];
        }
    }
    for (int32_t t = 0; t < e; t++) slot[ci[t]] = -1;
    b->len += e;
    return e;
}

/* The rows of block c into b, their lengths into len[i + 1]; 0 or MIX_ERR_ALLOC. */
static int product_block(const mixi_amg_csr *A, const rows_of *B, int c, int32_t *slot,
                         row_block *b, int64_t *len)
{
    const int lo = c * PRODUCT_BLOCK, hi = block_end(A->nr, c);
    for (int i = lo; i < hi; i++) {
        /* A reservation's block holds its rows' bounds (reserve_blocks): no row's to check. */
        const int st = b->owned ? block_reserve(b, row_candidates(A, B, i)) : MIX_SUCCESS;
        if (st) return st;
        len[i + 1] = product_row(A, B, i, slot, b);
    }
    return MIX_SUCCESS;
}

/* An owned block's rows, made in the thread's work buffer w, into a buffer of their size. */
static int keep_block(const row_block *w, row_block *b)
{
    const size_t n = w->len > 0 ? (size_t)w->len : 1;
    b->ci = mixi_malloc_scratch(n, sizeof *b->ci);
    b->v = mixi_malloc_scratch(n, sizeof *b->v);
    if (!b->ci || !b->v) return MIX_ERR_ALLOC; /* blocks_free frees what there is */
    if (w->len) memcpy(b->ci, w->ci, n * sizeof *b->ci), memcpy(b->v, w->v, n * sizeof *b->v);
    b->len = w->len, b->cap = (int64_t)n;
    return MIX_SUCCESS;
}

/* Owned blocks are made in one work buffer per thread, grown by doubling and kept from block to
 * block, then copied out at their size: growing each block's own buffer from 4096 entries
 * reallocated 154 MB in 530 steps for the 76 MB of the Galerkin product on 3-D Poisson 150^3,
 * fresh pages every time. */
static int product_blocks(const mixi_amg_csr *A, const rows_of *B, row_block *blk, int nblk,
                          int64_t *len)
{
    int fail = 0;
    const int team = product_team(A, B);
#pragma omp parallel reduction(| : fail) if (team)
    {
        int32_t *slot = mixi_malloc_scratch((size_t)B->M->nc + 1, sizeof *slot);
        row_block work = {NULL, NULL, 0, 0, 1};
        fail = !slot;
        for (int j = 0; !fail && j < B->M->nc; j++) slot[j] = -1;
        /* Every thread meets the loop, also one whose array failed (it then skips its blocks). */
#pragma omp for schedule(dynamic, 1)
        for (int c = 0; c < nblk; c++) {
            if (fail) continue;
            if (!blk[c].owned) {
                fail = product_block(A, B, c, slot, &blk[c], len) != MIX_SUCCESS;
                continue;
            }
            work.len = 0;
            fail = product_block(A, B, c, slot, &work, len) || keep_block(&work, &blk[c]);
        }
        mixi_free(work.ci), mixi_free(work.v);
        mixi_free(slot);
    }
    return fail ? MIX_ERR_ALLOC : MIX_SUCCESS;
}

static void blocks_free(row_block *blk, int nblk)
{
    for (int c = 0; blk && c < nblk; c++)
        if (blk[c].owned) mixi_free(blk[c].ci), mixi_free(blk[c].v);
    mixi_free(blk);
}

static int product_rows(const mixi_amg_csr *A, const rows_of *B, mixi_amg_csr *C)
{
    const int nblk = (A->nr + PRODUCT_BLOCK - 1) / PRODUCT_BLOCK;
    row_block *blk = mixi_calloc((size_t)nblk + 1, sizeof *blk);
    int64_t *rp = mixi_malloc_scratch((size_t)A->nr + 1, sizeof *rp);
    for (int c = 0; blk && c < nblk; c++) blk[c].owned = 1;
    int st = blk && rp ? product_blocks(A, B, blk, nblk, rp) : MIX_ERR_ALLOC;
    if (!st) {
        rp[0] = 0;
        for (int i = 0; i < A->nr; i++) rp[i + 1] += rp[i];
        st = mixi_amg_csr_alloc(C, A->nr, B->M->nc, rp[A->nr]);
    }
    if (!st) {
        memcpy(C->rp, rp, ((size_t)A->nr + 1) * sizeof *rp);
#pragma omp parallel for schedule(dynamic, 4) if (MIXI_AMG_TEAM(C))
        for (int c = 0; c < nblk; c++) {
            const int64_t at = rp[c * PRODUCT_BLOCK], n = blk[c].len;
            if (n) memcpy(C->ci + at, blk[c].ci, (size_t)n * sizeof *C->ci), memcpy(C->v + at, blk[c].v, (size_t)n * sizeof *C->v);
        }
    }
    blocks_free(blk, nblk);
    mixi_free(rp);
    return st;
}

int mixi_amg_csr_product(const mixi_amg_csr *A, const mixi_amg_csr *B, mixi_amg_csr *C)
{
    const rows_of b = csr_rows(B);
    return product_rows(A, &b, C);
}

/* A reservation holding A B: each block's part sized by its rows' bounds (off[c], the first
 * entry of block c), the rows where product_blocks leaves them, [rs[i], re[i]). */
typedef struct {
    int32_t *ci;
    double *v;
    int64_t *rs, *re, *off;
    int64_t entries;
} reserved;

static void reserved_free(reserved *R)
{
    mixi_free(R->ci), mixi_free(R->v), mixi_free(R->rs), mixi_free(R->re), mixi_free(R->off);
}

/* The blocks' bounds and the reservation; blk[c] set over its part. */
static int reserve_blocks(const mixi_amg_csr *A, const rows_of *B, int nblk, row_block *blk,
                          reserved *R)
{
    if (!(R->off = mixi_malloc_scratch((size_t)nblk + 1, sizeof *R->off))) return MIX_ERR_ALLOC;
#pragma omp parallel for schedule(dynamic, 8) if (MIXI_AMG_TEAM(A))
    for (int c = 0; c < nblk; c++) {
        const int lo = c * PRODUCT_BLOCK, hi = block_end(A->nr, c);
        int64_t bound = 0;
        for (int i = lo; i < hi; i++) bound += row_candidates(A, B, i);
        R->off[c + 1] = bound;
    }
    R->off[0] = 0;
    for (int c = 0; c < nblk; c++) R->off[c + 1] += R->off[c];
    const size_t total = (size_t)(R->off[nblk] > 0 ? R->off[nblk] : 1);
    R->ci = mixi_malloc_scratch(total, sizeof *R->ci);
    R->v = mixi_malloc_scratch(total, sizeof *R->v);
    if (!R->ci || !R->v) return MIX_ERR_ALLOC;
    for (int c = 0; c < nblk; c++)
        blk[c] = (row_block){R->ci + R->off[c], R->v + R->off[c], 0, R->off[c + 1] - R->off[c], 0};
    return MIX_SUCCESS;
}

/* A P into a reservation (R->rs, R->re: each row's entries). */
static int product_reserved(const mixi_amg_csr *A, const mixi_amg_csr *P, reserved *R)
{
    const int nblk = (A->nr + PRODUCT_BLOCK - 1) / PRODUCT_BLOCK;
    const rows_of b = csr_rows(P);
    row_block *blk = mixi_calloc((size_t)nblk + 1, sizeof *blk);
    R->rs = mixi_malloc_scratch((size_t)A->nr + 1, sizeof *R->rs);
    R->re = mixi_malloc_scratch((size_t)A->nr + 1, sizeof *R->re);
    int st = blk && R->rs && R->re ? reserve_blocks(A, &b, nblk, blk, R) : MIX_ERR_ALLOC;
    if (!st) st = product_blocks(A, &b, blk, nblk, R->re); /* row i's length into re[i + 1] */
    mixi_free(blk); /* its parts belong to the reservation */
    if (st) return st;
#pragma omp parallel for schedule(static) if (MIXI_AMG_TEAM(A))
    for (int c = 0; c < nblk; c++) {
        const int lo = c * PRODUCT_BLOCK, hi = block_end(A->nr, c);
        int64_t at = R->off[c];
        for (int i = lo; i < hi; i++) R->rs[i] = at, at += R->re[i + 1];
    }
    R->entries = 0;
    for (int i = 0; i < A->nr; i++) R->re[i] = R->rs[i] + R->re[i + 1], R->entries += R->re[i + 1];
    return MIX_SUCCESS;
}

int mixi_amg_csr_galerkin(const mixi_amg_csr *R, const mixi_amg_csr *A, const mixi_amg_csr *P,
                          mixi_amg_csr *Ac)
{
    reserved AP = {0};
    int st = product_reserved(A, P, &AP);
    if (!st) {
        const mixi_amg_csr M = {A->nr, P->nc, NULL, AP.ci, AP.v};
        const rows_of b = {&M, AP.rs, AP.re, AP.entries};
        st = product_rows(R, &b, Ac);
    }
    reserved_free(&AP);
    if (st != MIX_ERR_ALLOC) return st;
    /* No room for the bounds (3x A P's entries, if untouched; a strict overcommit policy counts
     * them): A P in CSR. */
    mixi_amg_csr Q = {0};
    st = mixi_amg_csr_product(A, P, &Q);
    if (!st) st = mixi_amg_csr_product(R, &Q, Ac);
    mixi_amg_csr_free(&Q);
    return st;
}
