/* bench_run.h: the pieces of `mixsolve bench`'s run shared by its files: the options, the inputs
 * (bench_inputs.c), one solve (bench_solve.c) and its child process (bench_child.c); the runner
 * itself is cmd_bench.c, the reports bench_report.c (bench.h). */
#ifndef MIXSOLVE_BENCH_RUN_H
#define MIXSOLVE_BENCH_RUN_H

#include "tools/bench.h"
#include "tools/cli.h"

typedef struct {
    int quick, gen;
    mix_backend backend;
    int dense_max;
    double time_limit;
    long long max_nnz;
    double min_time; /* repeat a solve until this much time is spent (timing noise) */
    int max_reps;
    double max_time; /* whole run; 0 = none */
    double t_end;
} bench_opts;

/* One problem: a file (loaded when its turn comes) or a generated matrix. */
typedef struct {
    char name[64];
    char *path;      /* NULL for generated ones */
    int gen_kind;    /* 0 file, 1 randsvd, 2 poisson2d, 3 poisson3d, 4 anisotropic, 5 uniform random,
                      * 6 convdiff2d, 7 convdiff3d */
    double gen_kappa; /* randsvd: the condition number (0: 1e6) */
    int gen_n;
} bench_input;


/* The inputs: the *.mtx and *.mtx.gz files of a folder, sorted (0, or -1 when it cannot be read);
 * a DIR or FILE of the command line (0, or the message printed); the bundled folder (NULL when
 * none is found); the generated problems of the default set. */
int bench_add_dir(const char *dir, bench_input **p, int *n, int *cap);
int bench_add_input(const char *path, bench_input **probs, int *np, int *pcap);
const char *bench_default_dir(void);
void bench_add_generated(const bench_opts *o, bench_input **probs, int *np, int *pcap);
/* The matrix of p as CSR (a file refused above --max-nnz): 0, or a status with err said. */
int bench_load_problem(const bench_input *p, const bench_opts *o, mixm_csr *A, char *err, size_t errlen);

/* One solve of res's method and precision on A with b = A * ones, filled into res. */
void bench_run_one(const mixm_csr *A, const bench_opts *o, const bench_set *s, bench_result *res);

/* The parent keeps BLAS on one thread from here on (bench_child.c says why); the children get
 * the threads it had. */
void bench_serial_parent(void);
/* bench_run_one in a child process, cut at the time limit; a crash or a hang is the result. */
void bench_run_isolated(const mixm_csr *A, const bench_opts *o, const bench_set *s, bench_result *res);
/* The backend AUTO resolves to, and its description, found in a child: the parent must never
 * initialise CUDA, or no forked solve could use the device. */
typedef struct {
    int status;
    mix_backend used;
    mix_caps caps;
} bench_backend_probe;

void bench_probe_backend(mix_backend want, bench_backend_probe *pr);

#endif
