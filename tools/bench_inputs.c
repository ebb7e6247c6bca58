/* bench_inputs.c: the matrices of `mixsolve bench`: the files of a folder or of the command line,
 * the bundled set, the generated problems, each loaded when its turn comes. */
#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include "tools/bench_run.h"
#include "matrices/generators.h"
#include "matrices/mmio.h"

#ifndef MIX_SRCDIR
#define MIX_SRCDIR "."
#endif

static int has_suffix(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !strcmp(s + a - b, suf);
}

static int add_problem(bench_input **p, int *n, int *cap, const char *name, const char *path, int kind, int gn)
{
    if (*n == *cap) {
        int c = *cap ? 2 * *cap : 64;
        bench_input *q = realloc(*p, (size_t)c * sizeof *q);
        if (!q) return -1;
        *p = q;
        *cap = c;
    }
    bench_input *e = &(*p)[(*n)++];
    memset(e, 0, sizeof *e);
    snprintf(e->name, sizeof e->name, "%s", name);
    e->path = path ? strdup(path) : NULL;
    e->gen_kind = kind;
    e->gen_n = gn;
    return (path && !e->path) ? -1 : 0;
}

static int name_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void base_name(const char *path, char *out, size_t len)
{
    const char *s = strrchr(path, '/');
    s = s ? s + 1 : path;
    snprintf(out, len, "%s", s);
    char *dot = strstr(out, ".mtx");
    if (dot) *dot = '\0';
}

/* Files of a directory, sorted; 0, or -1 when it cannot be read. */
int bench_add_dir(const char *dir, bench_input **p, int *n, int *cap)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    char **names = NULL;
    int cnt = 0, ncap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!has_suffix(e->d_name, ".mtx") && !has_suffix(e->d_name, ".mtx.gz")) continue;
        if (cnt == ncap) {
            ncap = ncap ? 2 * ncap : 64;
            char **q = realloc(names, (size_t)ncap * sizeof *q);
            if (!q) break;
            names = q;
        }
        names[cnt] = strdup(e->d_name);
        if (names[cnt]) cnt++;
    }
    closedir(d);
    qsort(names, (size_t)cnt, sizeof *names, name_cmp);
    for (int i = 0; i < cnt; i++) {
        char path[4096], nm[64];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        base_name(names[i], nm, sizeof nm);
        add_problem(p, n, cap, nm, path, 0, 0);
        free(names[i]);
    }
    free(names);
    return 0;
}

const char *bench_default_dir(void)
{
    static char buf[4096];
    const char *env = getenv("MIX_MATRIX_DIR");
    const char *cands[] = {env, MIX_DATADIR "/matrices", MIX_SRCDIR "/matrices/data"};
    for (int k = 0; k < 3; k++) {
        struct stat st;
        if (!cands[k]) continue;
        snprintf(buf, sizeof buf, "%s/LF10.mtx", cands[k]);
        if (!stat(cands[k], &st) && S_ISDIR(st.st_mode) && (k == 0 || !stat(buf, &st))) return cands[k];
    }
    return NULL;
}

/* Dense generated matrices go through the same CSR path as files (every entry stored). */
static int dense_to_csr(int n, const double *a, mixm_csr *A)
{
    int st = mixm_csr_alloc(A, n, n, (int64_t)n * n);
    if (st) return st;
    for (int i = 0; i < n; i++) {
        A->rowptr[i] = (int64_t)i * n;
        for (int j = 0; j < n; j++) {
            A->colind[(int64_t)i * n + j] = j;
            A->val[(int64_t)i * n + j] = a[i + (size_t)j * n];
        }
    }
    A->rowptr[n] = (int64_t)n * n;
    return MIX_SUCCESS;
}

int bench_load_problem(const bench_input *p, const bench_opts *o, mixm_csr *A, char *err, size_t errlen)
{
    memset(A, 0, sizeof *A);
    if (p->path) {
        mixm_mtx_header h;
        int st = mixm_mtx_read_header(p->path, &h, err, errlen);
        if (st) return st;
        if (h.entries > o->max_nnz) {
            snprintf(err, errlen, "%lld stored entries exceed --max-nnz %lld", (long long)h.entries, o->max_nnz);
            return MIX_ERR_UNSUPPORTED;
        }
        return mixm_mtx_read(p->path, A, NULL, err, errlen);
    }
    int st;
    switch (p->gen_kind) {
    case 1:
    case 5: {
        double *a = malloc((size_t)p->gen_n * (size_t)p->gen_n * sizeof *a);
        if (!a) return MIX_ERR_ALLOC;
        st = p->gen_kind == 5 ? mixm_gen_random_dense(p->gen_n, 42, a)
                              : mixm_gen_randsvd(p->gen_n, p->gen_kappa > 0 ? p->gen_kappa : 1e6, 3, 42, a);
        if (!st) st = dense_to_csr(p->gen_n, a, A);
        free(a);
        break;
    }
    case 2: st = mixm_gen_poisson2d(p->gen_n, A); break;
    case 3: st = mixm_gen_poisson3d(p->gen_n, A); break;
    /* Unsymmetric (not SPD candidates), so beyond --dense-max they are splu rows.  3-D: bench/
     * bench_sparse_lu's velocity (mesh Peclet 1.4 at 40^3); 2-D: direction (1, 2), Peclet ~1.1
     * at 500^2. */
    case 6: st = mixm_gen_convdiff2d(p->gen_n, 500.0, 1000.0, A); break;
    case 7: st = mixm_gen_convdiff3d(p->gen_n, 100.0, 50.0, 25.0, A); break;
    default: st = mixm_gen_anisotropic2d(p->gen_n, 1e-3, A); break;
    }
    if (st) snprintf(err, errlen, "generator failed: %s", mix_strerror(st));
    return st;
}

/* A DIR (its *.mtx, *.mtx.gz) or a FILE given on the command line: 0, or the message printed. */
int bench_add_input(const char *path, bench_input **probs, int *np, int *pcap)
{
    struct stat st;
    if (stat(path, &st)) return cli_error(CLI_USAGE, "%s: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode)) {
        if (bench_add_dir(path, probs, np, pcap)) return cli_error(CLI_USAGE, "%s: cannot read the directory", path);
        return 0;
    }
    char nm[64];
    base_name(path, nm, sizeof nm);
    add_problem(probs, np, pcap, nm, path, 0, 0);
    return 0;
}

/* The generated problems of the default set, after the bundled matrices. */
void bench_add_generated(const bench_opts *o, bench_input **probs, int *np, int *pcap)
{
    add_problem(probs, np, pcap, o->quick ? "gen_randsvd_500_1e6" : "gen_randsvd_1500_1e6", NULL, 1,
                o->quick ? 500 : 1500);
    if (!o->quick) {
        /* Where mixed precision pays on a CPU: dense n = 4096 (issue 10). */
        add_problem(probs, np, pcap, "gen_randsvd_4096_1e2", NULL, 1, 4096);
        (*probs)[*np - 1].gen_kappa = 1e2;
        add_problem(probs, np, pcap, "gen_randsvd_4096_1e6", NULL, 1, 4096);
        add_problem(probs, np, pcap, "gen_random_4096", NULL, 5, 4096);
    }
    add_problem(probs, np, pcap, o->quick ? "gen_poisson2d_128" : "gen_poisson2d_256", NULL, 2,
                o->quick ? 128 : 256);
    add_problem(probs, np, pcap, o->quick ? "gen_poisson3d_20" : "gen_poisson3d_32", NULL, 3,
                o->quick ? 20 : 32);
    /* n = 10^6: a CG problem larger than the caches, where storage precision can pay. */
    if (!o->quick) add_problem(probs, np, pcap, "gen_poisson3d_100", NULL, 3, 100);
    add_problem(probs, np, pcap, o->quick ? "gen_aniso_64_1e-3" : "gen_aniso_128_1e-3", NULL, 4,
                o->quick ? 64 : 128);
    /* General sparse problems of realistic size for sparse LU-IR against UMFPACK (n beyond
     * --dense-max, also --quick's 2048). */
    add_problem(probs, np, pcap, o->quick ? "gen_convdiff2d_200" : "gen_convdiff2d_500", NULL, 6,
                o->quick ? 200 : 500);
    add_problem(probs, np, pcap, o->quick ? "gen_convdiff3d_20" : "gen_convdiff3d_40", NULL, 7,
                o->quick ? 20 : 40);
}
