/* keep.c: the registry of kept originals (keep.h): an address-keyed table with an LRU list under
 * one lock, a memory cap, and a fingerprint of the factors each entry vouches for. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "dropin/keep.h"

struct mixd_kept {
    const double *addr;      /* the caller's factor array */
    int n, lda;
    char uplo;               /* 'N' LU, 'U'/'L' Cholesky */
    mix_prec prec;
    uint64_t hash;           /* of the factors left in addr */
    int *ipiv;               /* LU: the pivots left with them */
    double *a0;              /* the original, ld n */
    size_t bytes;            /* charged to the cap: a0, ipiv, f64, ipiv64 */
    int refs, live;          /* live: in the LRU list, reachable by content */
    int addressed;           /* in the address table too (else an orphan) */
    mixd_kept *hnext, *prev, *next; /* bucket chain; LRU list, most recent first */
    pthread_mutex_t lock;    /* computing f64 once */
    int f64_info;            /* factor's INFO for f64 */
    double *f64;             /* true FP64 factors of a0, ld n, once computed */
    int *ipiv64;
};

enum { BUCKETS = 1024 };
/* Entries whose address was taken by another array (a new dgesv_ there, or other contents)
 * stay reachable by content, the factors still possibly copied elsewhere: LAPACKE's row-major
 * wrappers solve in a buffer they free, and its address, taken by the next caller's buffer
 * (another thread's, or the next dgesv_), dropped the entry before the dgetrs_ of the copy
 * looked it up, which then ran on the FP32 factors (backward error 6e-8, INFO = 0).  At most
 * this many, the least recently used dropped first (all within the cap). */
enum { ORPHANS_MAX = 16 };
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static mixd_kept *buckets[BUCKETS], *lru_head, *lru_tail;
static size_t used, cap, orphans;
static atomic_size_t live_count; /* read without the lock: no entry, no look-up */
static pthread_once_t cap_once = PTHREAD_ONCE_INIT;

size_t mixd_keep_cap_of(const char *s)
{
    const unsigned long long dflt = 1024;
    /* Digits only: strtoull also takes leading blanks, a sign, and negates "-5" into 2^64 - 5. */
    if (!s || *s < '0' || *s > '9') return (size_t)dflt << 20;
    char *end;
    errno = 0;
    const unsigned long long v = strtoull(s, &end, 10);
    const int ok = *end == 0 && errno == 0 && v < (SIZE_MAX >> 21);
    return (size_t)(ok ? v : dflt) << 20;
}

static void read_cap(void) { cap = mixd_keep_cap_of(getenv("MIXSOLVE_LAPACK_KEEP_MB")); }

static size_t bucket_of(const double *a)
{
    uintptr_t p = (uintptr_t)a >> 4;
    return (size_t)((p ^ (p >> 10) ^ (p >> 20)) % BUCKETS);
}

/* Four independent lanes so that hashing runs near memory bandwidth; the column index is mixed
 * in so that moved columns change the fingerprint. */
static uint64_t fingerprint(const double *a, int n, int lda, char uplo)
{
    const uint64_t m = 0x9E3779B97F4A7C15ULL;
    uint64_t h[4] = {1, 2, 3, 4};
    for (int j = 0; j < n; j++) {
        int lo = uplo == 'L' ? j : 0, hi = uplo == 'U' ? j + 1 : n;
        const double *c = a + (size_t)j * lda;
        int i = lo;
        for (; i + 4 <= hi; i += 4)
            for (int l = 0; l < 4; l++) {
                uint64_t w;
                memcpy(&w, c + i + l, sizeof w);
                h[l] = (h[l] ^ w) * m;
            }
        for (; i < hi; i++) {
            uint64_t w;
            memcpy(&w, c + i, sizeof w);
            h[0] = (h[0] ^ w) * m;
        }
        h[1] = (h[1] ^ (uint64_t)j) * m;
    }
    return (h[0] ^ (h[1] << 1) ^ (h[2] << 2) ^ (h[3] << 3)) * m;
}

/* One released original's buffer, still charged to the cap: the next copy of the same order
 * (R's solve() in a loop) reuses it instead of faulting in n^2 fresh pages. */
static double *spare;
static size_t spare_count;

static void destroy(mixd_kept *k)
{
    used -= k->bytes; /* under reg_lock */
    size_t nn = (size_t)k->n * (size_t)k->n;
    if (!spare && k->a0) {
        spare = k->a0, spare_count = nn, k->a0 = NULL;
        used += nn * sizeof(double);
    }
    pthread_mutex_destroy(&k->lock);
    free(k->a0), free(k->ipiv), free(k->f64), free(k->ipiv64), free(k);
}

/* Out of the address table (under reg_lock). */
static void unlink_address(mixd_kept *k)
{
    mixd_kept **p = &buckets[bucket_of(k->addr)];
    while (*p != k) p = &(*p)->hnext;
    *p = k->hnext;
    k->addressed = 0;
}

/* Out of the table and the LRU list (under reg_lock); freed once nobody holds it. */
static void unlink_entry(mixd_kept *k)
{
    if (k->addressed) unlink_address(k);
    else orphans--;
    if (k->prev) k->prev->next = k->next;
    else lru_head = k->next;
    if (k->next) k->next->prev = k->prev;
    else lru_tail = k->prev;
    k->live = 0;
    atomic_fetch_sub(&live_count, 1);
    if (k->refs == 0) destroy(k);
}

/* Under reg_lock: k (live) loses its address and stays reachable by content only; the least
 * recently used orphan beyond ORPHANS_MAX is dropped. */
static void orphan(mixd_kept *k)
{
    if (!k->addressed) return;
    unlink_address(k);
    if (++orphans <= ORPHANS_MAX) return;
    mixd_kept *o = lru_tail;
    while (o->addressed) o = o->prev;
    unlink_entry(o);
}

static mixd_kept *find(const double *a)
{
    for (mixd_kept *k = buckets[bucket_of(a)]; k; k = k->hnext)
        if (k->addr == a) return k;
    return NULL;
}

static void to_front(mixd_kept *k)
{
    if (lru_head == k) return;
    k->prev->next = k->next;
    if (k->next) k->next->prev = k->prev;
    else lru_tail = k->prev;
    k->prev = NULL;
    k->next = lru_head;
    lru_head->prev = k;
    lru_head = k;
}

/* Charges bytes to the cap, evicting least recently used entries (under reg_lock); 0 when they
 * do not fit (entries evicted while in use are charged until released). */
static int reserve(size_t bytes)
{
    while (used + bytes > cap && (spare || lru_tail)) {
        if (spare) { /* before any entry; an evicted entry's buffer may become the spare */
            free(spare);
            used -= spare_count * sizeof(double);
            spare = NULL;
        } else {
            unlink_entry(lru_tail);
        }
    }
    if (used + bytes > cap) return 0;
    used += bytes;
    return 1;
}

mixd_kept *mixd_keep_begin(int n, const double *a, int lda, char uplo)
{
    pthread_once(&cap_once, read_cap);
    if (n <= 0 || (size_t)n > SIZE_MAX / 2 / sizeof(double) / (size_t)n) return NULL;
    size_t nn = (size_t)n * (size_t)n, bytes = nn * sizeof(double) + sizeof(mixd_kept);
    if (uplo == 'N') bytes += (size_t)n * sizeof(int);
    pthread_mutex_lock(&reg_lock);
    mixd_kept *old = find(a);
    if (old) orphan(old);
    int ok = bytes <= cap && reserve(bytes);
    double *a0 = NULL;
    if (ok && spare && spare_count == nn) { /* its charge moves to the new entry */
        a0 = spare, spare = NULL;
        used -= nn * sizeof(double);
    }
    pthread_mutex_unlock(&reg_lock);
    if (!ok) return NULL;
    mixd_kept *k = calloc(1, sizeof *k);
    if (!k) free(a0);
    if (k) {
        k->bytes = bytes;
        k->a0 = a0 ? a0 : malloc(nn * sizeof(double));
        k->ipiv = uplo == 'N' ? malloc((size_t)n * sizeof(int)) : NULL;
    }
    if (!k || !k->a0 || (uplo == 'N' && !k->ipiv)) {
        if (k) free(k->a0), free(k->ipiv), free(k);
        pthread_mutex_lock(&reg_lock);
        used -= bytes;
        pthread_mutex_unlock(&reg_lock);
        return NULL;
    }
    k->addr = a, k->n = n, k->lda = lda, k->uplo = uplo;
    pthread_mutex_init(&k->lock, NULL);
    mixd_copy_matrix(uplo, n, a, lda, k->a0, n);
    return k;
}

void mixd_copy_matrix(char uplo, int n, const double *src, int lds, double *dst, int ldd)
{
    for (int j = 0; j < n; j++) {
        int lo = uplo == 'L' ? j : 0, hi = uplo == 'U' ? j + 1 : n;
        memcpy(dst + (size_t)j * ldd + lo, src + (size_t)j * lds + lo,
               (size_t)(hi - lo) * sizeof *src);
    }
}

void mixd_keep_commit(mixd_kept *k, const double *a, int lda, const int *ipiv, mix_prec prec)
{
    k->hash = fingerprint(a, k->n, lda, k->uplo);
    if (k->ipiv) memcpy(k->ipiv, ipiv, (size_t)k->n * sizeof *ipiv);
    k->prec = prec;
    pthread_mutex_lock(&reg_lock);
    mixd_kept *old = find(a); /* another thread's dgesv_ on the same array meanwhile */
    if (old) orphan(old);
    k->live = k->addressed = 1;
    k->hnext = buckets[bucket_of(a)];
    buckets[bucket_of(a)] = k;
    k->prev = NULL;
    k->next = lru_head;
    if (lru_head) lru_head->prev = k;
    else lru_tail = k;
    lru_head = k;
    atomic_fetch_add(&live_count, 1);
    pthread_mutex_unlock(&reg_lock);
}

static int order_kept(int n, char uplo);

/* The originals' uplo triangles (ld n) equal. */
static int same_original(const mixd_kept *x, const mixd_kept *y)
{
    for (int j = 0; j < x->n; j++) {
        const int lo = x->uplo == 'L' ? j : 0, hi = x->uplo == 'U' ? j + 1 : x->n;
        const size_t at = (size_t)j * x->n + lo;
        if (memcmp(x->a0 + at, y->a0 + at, (size_t)(hi - lo) * sizeof *x->a0)) return 0;
    }
    return 1;
}

int mixd_keep_twin(const mixd_kept *k, const double *a, int lda, const int *ipiv)
{
    pthread_mutex_lock(&reg_lock);
    const int candidates = order_kept(k->n, k->uplo);
    pthread_mutex_unlock(&reg_lock);
    if (!candidates) return 0;
    const uint64_t h = fingerprint(a, k->n, lda, k->uplo); /* outside the lock: O(n^2) reads */
    int twin = 0;
    pthread_mutex_lock(&reg_lock);
    for (const mixd_kept *o = lru_head; o && !twin; o = o->next)
        twin = o != k && o->n == k->n && o->uplo == k->uplo && o->hash == h &&
               (!o->ipiv || !ipiv || memcmp(ipiv, o->ipiv, (size_t)k->n * sizeof *ipiv) == 0) &&
               !same_original(o, k);
    pthread_mutex_unlock(&reg_lock);
    return twin;
}

void mixd_keep_abort(mixd_kept *k)
{
    if (!k) return;
    pthread_mutex_lock(&reg_lock);
    destroy(k);
    pthread_mutex_unlock(&reg_lock);
}

void mixd_keep_release(mixd_kept *k)
{
    pthread_mutex_lock(&reg_lock);
    if (--k->refs == 0 && !k->live) destroy(k);
    pthread_mutex_unlock(&reg_lock);
}

/* Under reg_lock: is an entry of order n and triangle uplo kept (a fingerprint worth taking)? */
static int order_kept(int n, char uplo)
{
    for (const mixd_kept *k = lru_head; k; k = k->next)
        if (k->n == n && k->uplo == uplo) return 1;
    return 0;
}

/* Under reg_lock: a live entry of order n and triangle uplo whose factors hash to h (and whose
 * pivots are ipiv), with a reference taken; NULL if none. */
static mixd_kept *find_content(int n, char uplo, uint64_t h, const int *ipiv)
{
    for (mixd_kept *k = lru_head; k; k = k->next) {
        if (k->n != n || k->uplo != uplo) continue;
        if (k->hash == h && (!k->ipiv || !ipiv || memcmp(ipiv, k->ipiv, (size_t)n * sizeof *ipiv) == 0)) {
            k->refs++;
            to_front(k);
            return k;
        }
    }
    return NULL;
}

/* No entry at a's address: our factors, bit for bit, at another address.  LAPACKE's row-major
 * wrappers transpose A into a buffer of their own for dgesv_ and transpose the factors back,
 * then do the same for dgetrs_ (the probe: forward error 1.9e-5 instead of LAPACK's 7.5e-14,
 * FP32 factors, n = 400); a program may copy them too.  One fingerprint of a, only where an
 * entry of that order exists. */
static mixd_kept *lookup_copy(const double *a, int n, int lda, char uplo, const int *ipiv)
{
    pthread_mutex_lock(&reg_lock);
    const int candidates = order_kept(n, uplo);
    pthread_mutex_unlock(&reg_lock);
    if (!candidates) return NULL;
    const uint64_t h = fingerprint(a, n, lda, uplo); /* outside the lock: O(n^2) reads */
    pthread_mutex_lock(&reg_lock);
    mixd_kept *k = find_content(n, uplo, h, ipiv);
    pthread_mutex_unlock(&reg_lock);
    return k;
}

mixd_kept *mixd_keep_lookup(const double *a, int n, int lda, char uplo, const int *ipiv)
{
    if (atomic_load(&live_count) == 0) return NULL;
    pthread_mutex_lock(&reg_lock);
    mixd_kept *k = find(a);
    if (k && (k->n != n || k->lda != lda || k->uplo != uplo)) k = NULL;
    if (k) k->refs++;
    pthread_mutex_unlock(&reg_lock);
    if (!k) return lookup_copy(a, n, lda, uplo, ipiv);
    /* Outside the lock: O(n^2) reads of the caller's array. */
    int same = fingerprint(a, n, lda, uplo) == k->hash &&
               (!k->ipiv || !ipiv || memcmp(ipiv, k->ipiv, (size_t)n * sizeof *ipiv) == 0);
    pthread_mutex_lock(&reg_lock);
    if (same && k->live) to_front(k);
    else if (k->live) orphan(k); /* rewritten: not at this address any more */
    pthread_mutex_unlock(&reg_lock);
    if (same) return k;
    mixd_keep_release(k);
    return lookup_copy(a, n, lda, uplo, ipiv);
}

/* act on a's entry, if any, under reg_lock (nothing kept: no lock taken). */
static void with_entry(const double *a, void (*act)(mixd_kept *))
{
    if (atomic_load(&live_count) == 0) return;
    pthread_mutex_lock(&reg_lock);
    mixd_kept *k = find(a);
    if (k) act(k);
    pthread_mutex_unlock(&reg_lock);
}

void mixd_keep_orphan(const double *a) { with_entry(a, orphan); }

void mixd_keep_forget(const double *a) { with_entry(a, unlink_entry); }

const double *mixd_kept_matrix(const mixd_kept *k)
{
    return k->a0;
}

mix_prec mixd_kept_prec(const mixd_kept *k)
{
    return k->prec;
}

const int *mixd_kept_ipiv(const mixd_kept *k)
{
    return k->ipiv;
}

/* f64 and ipiv64 for k: kept within the cap, else transient (*transient set); NULL if no memory. */
static double *alloc_factors(mixd_kept *k, int **ipiv64, int *transient)
{
    size_t nn = (size_t)k->n * (size_t)k->n, extra = nn * sizeof(double) + (size_t)k->n * sizeof(int);
    double *f = malloc(nn * sizeof *f);
    *ipiv64 = malloc((size_t)k->n * sizeof(int));
    *transient = 1;
    if (!f || !*ipiv64) {
        free(f), free(*ipiv64);
        return NULL;
    }
    /* Never evicts another original for them: only free room under the cap holds them. */
    pthread_mutex_lock(&reg_lock);
    if (used + extra <= cap) {
        used += extra;
        k->bytes += extra; /* released with the entry */
        *transient = 0;
    }
    pthread_mutex_unlock(&reg_lock);
    return f;
}

const double *mixd_kept_factors(mixd_kept *k, mixd_factor_fn factor, const int **ipiv,
                                int *transient, int *info)
{
    pthread_mutex_lock(&k->lock);
    *transient = 0;
    if (k->f64) {
        *info = k->f64_info;
        *ipiv = k->ipiv64;
        pthread_mutex_unlock(&k->lock);
        return k->f64;
    }
    int *p64 = NULL;
    double *f = alloc_factors(k, &p64, transient);
    if (!f) {
        *info = -1;
        pthread_mutex_unlock(&k->lock);
        return NULL;
    }
    memcpy(f, k->a0, (size_t)k->n * (size_t)k->n * sizeof *f);
    *info = factor(k->n, k->uplo, f, p64);
    *ipiv = p64;
    if (!*transient) k->f64 = f, k->ipiv64 = p64, k->f64_info = *info;
    pthread_mutex_unlock(&k->lock);
    return f;
}

void mixd_keep_stats(size_t *entries, size_t *bytes)
{
    pthread_mutex_lock(&reg_lock);
    *entries = atomic_load(&live_count);
    *bytes = used - (spare ? spare_count * sizeof(double) : 0);
    pthread_mutex_unlock(&reg_lock);
}
