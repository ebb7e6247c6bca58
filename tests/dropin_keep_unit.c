/* dropin_keep_unit.c: the drop-in's registry of kept originals (dropin/keep.c) on its own, so
 * that it runs under AddressSanitizer and ThreadSanitizer (tools/ci-asan.sh, tools/ci-tsan.sh),
 * which cannot preload the drop-in: the cap, the fingerprint, LRU order, the FP64 factors
 * computed once, and many threads keeping, looking up and forgetting at once.
 * MIXSOLVE_LAPACK_KEEP_MB is set to 1 here.  Exit status 1 if a check failed. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dropin/keep.h"

static int failures;

static void check(int ok, const char *what)
{
    printf("%-4s %s\n", ok ? "ok" : "FAIL", what);
    if (!ok) failures++;
}

/* An n x n "factor" array with recognisable contents, and pivots 1..n. */
static double *array(int n, double seed, int **ipiv)
{
    double *a = malloc((size_t)n * n * sizeof *a);
    *ipiv = malloc((size_t)n * sizeof **ipiv);
    if (!a || !*ipiv) exit(2);
    for (size_t k = 0; k < (size_t)n * n; k++) a[k] = seed + (double)k;
    for (int i = 0; i < n; i++) (*ipiv)[i] = i + 1;
    return a;
}

/* Keeps a (as if a routed dgesv_ had just left factors there). */
static int keep(int n, double *a, const int *ipiv)
{
    mixd_kept *k = mixd_keep_begin(n, a, n, 'N');
    if (!k) return 0;
    a[0] += 0.5; /* the "factors" differ from the original */
    mixd_keep_commit(k, a, n, ipiv, MIX_FP32);
    return 1;
}

static int is_kept(int n, const double *a, const int *ipiv)
{
    mixd_kept *k = mixd_keep_lookup(a, n, n, 'N', ipiv);
    if (k) mixd_keep_release(k);
    return k != NULL;
}

static int factor_calls;
static int fake_factor(int n, char uplo, double *f, int *ipiv)
{
    (void)uplo;
    __atomic_add_fetch(&factor_calls, 1, __ATOMIC_RELAXED);
    for (int i = 0; i < n; i++) ipiv[i] = i + 1;
    f[0] = -f[0];
    return 0;
}

static void single_thread(void)
{
    int *p1, *p2, *p[4];
    double *big = array(400, 1, &p1), *a = array(100, 2, &p2); /* 1.28 MB, 80 kB */
    check(!keep(400, big, p1), "cap: 1.28 MB not kept under MIXSOLVE_LAPACK_KEEP_MB=1");
    check(keep(100, a, p2) && is_kept(100, a, p2), "kept, then found by address and contents");
    check(is_kept(100, a, NULL), "no IPIV argument (dgecon): found by the factors alone");
    check(!is_kept(99, a, p2) && !is_kept(100, big, p2),
          "another order, or another address with other contents: not ours");
    /* A copy of the factors at another address and leading dimension (LAPACKE's row-major
     * wrappers transpose them into a buffer of their own for each call): found by content. */
    double *copy = malloc((size_t)101 * 100 * sizeof *copy);
    if (!copy) exit(2);
    for (int j = 0; j < 100; j++) memcpy(copy + (size_t)j * 101, a + (size_t)j * 100, 100 * sizeof *a);
    mixd_kept *kc = mixd_keep_lookup(copy, 100, 101, 'N', p2);
    check(kc != NULL, "a copy of the factors elsewhere: found by content");
    if (kc) mixd_keep_release(kc);
    copy[77] += 1.0;
    kc = mixd_keep_lookup(copy, 100, 101, 'N', p2);
    check(kc == NULL && is_kept(100, a, p2), "a copy that differs: not ours, the original still is");
    if (kc) mixd_keep_release(kc);
    free(copy);
    mixd_kept *k = mixd_keep_lookup(a, 100, 100, 'N', p2);
    int transient = 1, info = -9;
    const int *ipiv64;
    const double *f = k ? mixd_kept_factors(k, fake_factor, &ipiv64, &transient, &info) : NULL;
    check(f && !transient && info == 0 && f[0] == -2.0 && mixd_kept_matrix(k)[0] == 2.0,
          "FP64 factors of the kept original, kept with it");
    if (k) f = mixd_kept_factors(k, fake_factor, &ipiv64, &transient, &info);
    check(factor_calls == 1, "FP64 factors computed once");
    if (k) mixd_keep_release(k);
    p2[3] = 7;
    check(!is_kept(100, a, p2), "IPIV rewritten: not ours");
    p2[3] = 4;
    check(is_kept(100, a, p2), "restored bit for bit: ours again, by content only");
    check(keep(100, a, p2), "kept again");
    a[5000] = -1;
    check(!is_kept(100, a, p2), "one entry rewritten: not ours");
    size_t entries, bytes;
    mixd_keep_stats(&entries, &bytes);
    check(entries == 2, "the two rewritten entries stay, for look-ups by content");
    /* 320 kB each: three fit in 1 MiB, a fourth evicts the least recently used. */
    double *s[4];
    for (int i = 0; i < 4; i++) s[i] = array(200, 10 * i, &p[i]);
    keep(200, s[0], p[0]), keep(200, s[1], p[1]), keep(200, s[2], p[2]);
    is_kept(200, s[0], p[0]);
    keep(200, s[3], p[3]);
    check(is_kept(200, s[0], p[0]) && !is_kept(200, s[1], p[1]) && is_kept(200, s[2], p[2]) &&
              is_kept(200, s[3], p[3]),
          "LRU: the least recently used evicted, a recently looked-up one kept");
    for (int i = 0; i < 4; i++) mixd_keep_forget(s[i]), free(s[i]), free(p[i]);
    mixd_keep_stats(&entries, &bytes);
    check(entries == 0 && bytes == 0, "forget releases everything");
    free(big), free(a), free(p1), free(p2);
}

/* An entry whose address the next dgesv_ takes stays reachable by content: LAPACKE's row-major
 * wrappers solve in a buffer they free, and the next caller's buffer (another thread's, or the
 * next dgesv_) at that address dropped the entry before the dgetrs_ on the transposed copy
 * looked it up (FP32 factors, backward error 6e-8, INFO = 0).  At most 16 such orphans. */
static void address_reused(void)
{
    int *p1, *p2;
    double *buf = array(100, 3, &p1), *other = array(100, 4, &p2);
    double *copy = malloc((size_t)100 * 100 * sizeof *copy);
    if (!copy) exit(2);
    keep(100, buf, p1);
    memcpy(copy, buf, (size_t)100 * 100 * sizeof *copy); /* the caller's copy of the factors */
    memcpy(buf, other, (size_t)100 * 100 * sizeof *buf);  /* the buffer reused: a new dgesv_ */
    mixd_keep_orphan(buf);
    keep(100, buf, p2);
    check(is_kept(100, copy, p1) && is_kept(100, buf, p2),
          "address reused by another dgesv_: the copy of the first factors still ours");
    int *p3;
    double *u = array(30, 5, &p3); /* 7 kB each: the cap is not what bounds them */
    for (int r = 0; r < 40; r++) { /* orphans bounded: one address, 40 systems */
        u[1] = r;
        mixd_keep_orphan(u);
        keep(30, u, p3);
    }
    size_t entries, bytes;
    mixd_keep_stats(&entries, &bytes);
    check(entries <= 16 + 2, "at most 16 orphans kept, the rest dropped");
    check(is_kept(30, u, p3), "the last one found at its address");
    mixd_keep_forget(buf), mixd_keep_forget(u);
    free(buf), free(other), free(copy), free(u), free(p1), free(p2), free(p3);
}

/* Threads keep their own arrays and look up a shared one, past the cap (evictions while others
 * hold references). */
static double *shared;
static int *shared_ipiv;

static void *worker(void *arg)
{
    int id = (int)(size_t)arg, *ipiv, bad = 0;
    for (int round = 0; round < 200; round++) {
        double *a = array(60 + id, id + round, &ipiv);
        if (keep(60 + id, a, ipiv) && round % 3 == 0) {
            mixd_kept *k = mixd_keep_lookup(a, 60 + id, 60 + id, 'N', ipiv);
            int transient, info;
            const int *p64;
            const double *f = k ? mixd_kept_factors(k, fake_factor, &p64, &transient, &info) : NULL;
            if (f && f[0] != -mixd_kept_matrix(k)[0]) bad = 1;
            if (f && transient) free((void *)f), free((void *)p64);
            if (k) mixd_keep_release(k);
        }
        is_kept(80, shared, shared_ipiv);
        if (round % 2) mixd_keep_forget(a);
        free(a), free(ipiv);
    }
    return (void *)(size_t)bad;
}

/* MIXSOLVE_LAPACK_KEEP_MB's parse: digits only; signs, blanks, suffixes and overflow take the
 * default. */
static void cap_parse(void)
{
    const size_t mib = (size_t)1 << 20, dflt = 1024 * mib;
    check(mixd_keep_cap_of("1") == mib && mixd_keep_cap_of("0") == 0 && mixd_keep_cap_of("007") == 7 * mib,
          "KEEP_MB: digits read as MiB");
    const char *bad[] = {NULL, "", "-0", "-5", "+5", " 5", "5 ", "5x", "0x10", "1e3",
                         "99999999999999999999", "18446744073709551615"};
    int all = 1;
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) all &= mixd_keep_cap_of(bad[k]) == dflt;
    check(all, "KEEP_MB: signs, blanks, suffixes and overflow take the default 1024");
}

int main(void)
{
    cap_parse();
    setenv("MIXSOLVE_LAPACK_KEEP_MB", "1", 1);
    single_thread();
    address_reused();
    shared = array(80, 3, &shared_ipiv);
    keep(80, shared, shared_ipiv);
    enum { T = 6 };
    pthread_t th[T];
    for (int t = 0; t < T; t++) pthread_create(&th[t], NULL, worker, (void *)(size_t)t);
    int bad = 0;
    for (int t = 0; t < T; t++) {
        void *r;
        pthread_join(th[t], &r);
        bad |= r != NULL;
    }
    check(!bad, "6 threads keeping, looking up, evicting and forgetting: FP64 factors consistent");
    /* Arrays freed while kept stay in the registry until evicted or forgotten: clean up. */
    mixd_keep_forget(shared);
    size_t entries, bytes;
    mixd_keep_stats(&entries, &bytes);
    printf("(%zu entries, %zu bytes still kept for freed arrays)\n", entries, bytes);
    free(shared), free(shared_ipiv);
    printf("%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
