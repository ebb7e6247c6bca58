/* cmd_solve_mpi.c: `mpirun -np P mixsolve solve FILE.mtx --method cg`: rank 0 reads the system
 * and sends each rank its row block (blocks balanced by nonzeros), CG runs across the ranks
 * (libmixsolve_mpi), rank 0 gathers x, checks it and prints.  Only rank 0 prints; a failure on
 * any rank is agreed, so every rank exits with the same status and none is left waiting.  The
 * default --method auto chooses as the serial command: its LU-IR runs on rank 0 alone.  Built
 * where configure found MPI (the mixsolve binary then links libmixsolve_mpi). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tools/cli.h"
#include "lib/mpi/mixsolve_mpi.h"

int cli_mpi_launched(void)
{
    /* Open MPI's, MPICH's (Hydra) and PMIx launchers set these; a plain run sets none. */
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK");
}

typedef struct {
    int rank, size;
    int64_t *starts;   /* size + 1 row starts */
    int n_local;
    int64_t *rowptr, *colind;
    double *val, *b, *x;
    char msg[512];     /* this rank's failure, for rank 0 to print */
} mpi_part;

/* The largest exit status of all ranks; where the first rank with it is not rank 0, rank 0
 * prints that rank's line (rank 0's own lines are printed where they arise). */
static int agree_rc(mpi_part *m, int rc)
{
    int in[2] = {rc, m->rank}, out[2];
    if (MPI_Allreduce(in, out, 1, MPI_2INT, MPI_MAXLOC, MPI_COMM_WORLD) != MPI_SUCCESS)
        return CLI_SOLVER_FAILED;
    if (out[0] && out[1] != 0) {
        if (m->rank == out[1]) MPI_Send(m->msg, (int)sizeof m->msg, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
        if (m->rank == 0) {
            MPI_Recv(m->msg, (int)sizeof m->msg, MPI_CHAR, out[1], 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            m->msg[sizeof m->msg - 1] = '\0';
            cli_error(out[0], "rank %d: %s", out[1], m->msg);
        }
    }
    return out[0];
}

/* A failure on this rank: printed here on rank 0, kept for agree_rc elsewhere. */
static int fail(mpi_part *m, int code, const char *what, int st)
{
    snprintf(m->msg, sizeof m->msg, "%s: %s", what, mix_strerror(st));
    return m->rank == 0 ? cli_error(code, "%s", m->msg) : code;
}

/* Row starts with about nnz / P entries a block. */
static void balance(const mixm_csr *A, int size, int64_t *starts)
{
    int i = 0;
    starts[0] = 0;
    for (int q = 1; q < size; q++) {
        const int64_t target = (int64_t)((double)A->nnz * q / size);
        while (i < A->nrows && A->rowptr[i] < target) i++;
        starts[q] = i;
    }
    starts[size] = A->nrows;
}

/* This rank's block arrays, allocated before any entry travels (so that a failure is agreed
 * while no rank waits for a message). */
static int alloc_block(mpi_part *m, int64_t nnz)
{
    const size_t n = (size_t)m->n_local + 1, z = (size_t)nnz + 1;
    m->rowptr = malloc(n * sizeof *m->rowptr);
    m->colind = malloc(z * sizeof *m->colind);
    m->val = malloc(z * sizeof *m->val);
    m->b = malloc(n * sizeof *m->b);
    m->x = calloc(n, sizeof *m->x);
    return m->rowptr && m->colind && m->val && m->b && m->x ? MIX_SUCCESS : MIX_ERR_ALLOC;
}

/* Rank 0: block q straight from A and b (rows as in A, columns int32). */
static void send_block(mpi_part *m, const solve_problem *p, int q)
{
    const int64_t r0 = m->starts[q], r1 = m->starts[q + 1], k0 = p->A.rowptr[r0];
    const int n = (int)(r1 - r0), nnz = (int)(p->A.rowptr[r1] - k0);
    MPI_Send(p->A.rowptr + r0, n + 1, MPI_INT64_T, q, 2, MPI_COMM_WORLD);
    MPI_Send(p->A.colind + k0, nnz, MPI_INT32_T, q, 3, MPI_COMM_WORLD);
    MPI_Send(p->A.val + k0, nnz, MPI_DOUBLE, q, 4, MPI_COMM_WORLD);
    MPI_Send(p->b + r0, n, MPI_DOUBLE, q, 5, MPI_COMM_WORLD);
}

/* Receives (or, on rank 0, copies) this rank's block: rowptr from 0, columns widened to int64. */
static void take_block(mpi_part *m, const solve_problem *p, int64_t nnz)
{
    const int n = m->n_local;
    int32_t *c32 = (int32_t *)(void *)m->colind; /* the first half, widened in place below */
    if (m->rank == 0) {
        memcpy(m->rowptr, p->A.rowptr, ((size_t)n + 1) * sizeof *m->rowptr);
        memcpy(c32, p->A.colind, (size_t)nnz * sizeof *c32);
        memcpy(m->val, p->A.val, (size_t)nnz * sizeof *m->val);
        memcpy(m->b, p->b, (size_t)n * sizeof *m->b);
    } else {
        MPI_Recv(m->rowptr, n + 1, MPI_INT64_T, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(c32, (int)nnz, MPI_INT32_T, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(m->val, (int)nnz, MPI_DOUBLE, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(m->b, n, MPI_DOUBLE, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    for (int64_t k = nnz - 1; k >= 0; k--) m->colind[k] = c32[k]; /* from the end: no overlap */
    const int64_t k0 = m->rowptr[0];
    for (int i = 0; i <= n; i++) m->rowptr[i] -= k0;
}

/* Rank 0 reads and checks the system; then every rank gets its block: 0 or the exit status.
 * --method auto on a matrix that is no SPD candidate: *lu set on every rank, no block sent (auto
 * takes LU-IR there, as the serial command does, and only CG spans the ranks). */
static int distribute(mpi_part *m, const solve_opts *o, solve_problem *p, int *lu)
{
    int rc = CLI_OK;
    char names[256];
    if (m->rank == 0 && !(rc = cli_solve_load_matrix(o, p))) rc = cli_solve_load_rhs(o, p);
    if (!rc && m->rank == 0 && o->method == 0 && !(*lu = !cli_spd_candidate(&p->A)) &&
        !cli_prec_has(MIX_ROLE_STORAGE, o->prec)) /* auto takes CG: the serial command's refusal */
        rc = cli_error(CLI_USAGE, "--prec %s is for lu only (cg: %s)", mix_prec_name(o->prec),
                       cli_prec_choices(MIX_ROLE_STORAGE, names, sizeof names));
    m->starts = calloc(2 * ((size_t)m->size + 1), sizeof *m->starts);
    if (!rc && !m->starts) rc = fail(m, CLI_SOLVER_FAILED, "row starts", MIX_ERR_ALLOC);
    int64_t *kst = m->starts ? m->starts + m->size + 1 : NULL; /* first entry of each block */
    if (!rc && m->rank == 0) {
        balance(&p->A, m->size, m->starts);
        for (int q = 0; q <= m->size; q++) kst[q] = p->A.rowptr[m->starts[q]];
        for (int q = 0; q < m->size && !rc; q++) /* one message of int counts a block */
            if (kst[q + 1] - kst[q] > INT32_MAX)
                rc = cli_error(CLI_USAGE, "%s: a block of %d ranks exceeds 2^31 entries", o->file, m->size);
    }
    if ((rc = agree_rc(m, rc))) return rc;
    MPI_Bcast(lu, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (*lu) return CLI_OK;
    MPI_Bcast(m->starts, 2 * (m->size + 1), MPI_INT64_T, 0, MPI_COMM_WORLD);
    m->n_local = (int)(m->starts[m->rank + 1] - m->starts[m->rank]);
    const int64_t nnz = kst[m->rank + 1] - kst[m->rank];
    const int st = alloc_block(m, nnz);
    if ((rc = agree_rc(m, st ? fail(m, CLI_SOLVER_FAILED, "the row blocks", st) : CLI_OK))) return rc;
    if (m->rank == 0)
        for (int q = 1; q < m->size; q++) send_block(m, p, q);
    take_block(m, p, nnz);
    return CLI_OK;
}

/* Rank 0's verdict on the CG across the ranks, its lines printed: the exit status. */
static int cg_verdict(mix_context *ctx, const solve_opts *o, solve_problem *p,
                      const mix_cg_params *prm, mix_sparse *S, int st, const mix_cg_info *info,
                      double t)
{
    double res = NAN;
    mixm_csr_recheck(&p->A, p->b, p->x, NULL, &res);
    cli_report_cg(ctx, prm, S, st, info, res, t);
    if (st) return cli_error(CLI_SOLVER_FAILED, "%s: CG failed: %s", o->file, mix_strerror(st));
    if (!(res <= 10 * prm->tol))
        return cli_error(CLI_SOLVER_FAILED, "%s: recomputed residual %.3e exceeds the tolerance", o->file, res);
    return CLI_OK;
}

/* auto, once CG across the ranks found A not positive definite: LU-IR on rank 0 alone, as the
 * serial command falls back (it exited 1 here). */
static int lu_instead(const solve_opts *o, solve_problem *p)
{
    mix_context *c = NULL;
    const int st = mix_context_create(&c, o->backend);
    if (st)
        return cli_error(CLI_SOLVER_FAILED, "cannot use backend %s: %s", mix_backend_name(o->backend),
                         mix_strerror(st));
    const int rc = cli_solve_lu_instead(c, o, p);
    mix_context_destroy(c);
    return rc;
}

/* x gathered on rank 0 (p->x), checked and reported; the exit status there. */
static int finish(mpi_part *m, mix_context *ctx, const solve_opts *o, solve_problem *p,
                  const mix_cg_params *prm, mix_sparse *S, int st, const mix_cg_info *info, double t)
{
    int *cnt = malloc((size_t)m->size * sizeof *cnt), *dsp = malloc((size_t)m->size * sizeof *dsp);
    for (int q = 0; cnt && dsp && q < m->size; q++) {
        cnt[q] = (int)(m->starts[q + 1] - m->starts[q]);
        dsp[q] = (int)m->starts[q];
    }
    int rc = CLI_OK;
    if (cnt && dsp)
        MPI_Gatherv(m->x, m->n_local, MPI_DOUBLE, p->x, cnt, dsp, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    free(cnt);
    free(dsp);
    if (m->rank != 0) return CLI_OK;
    const int n = p->A.nrows;
    printf("matrix          : %s (%d x %d, %lld entries), read in %.3f s\n", o->file, n, n,
           (long long)p->A.nnz, p->t_read);
    printf("right-hand side : %s\n", o->rhs ? o->rhs : "b = A * ones");
    printf("ranks           : %d (row blocks balanced by nonzeros, libmixsolve_mpi)\n", m->size);
    const int not_spd = st == MIX_ERR_NOT_SPD || info->reason == MIX_CG_BREAKDOWN_NOT_SPD;
    rc = not_spd && cli_solve_auto_falls_back(o, n) ? lu_instead(o, p)
                                                    : cg_verdict(ctx, o, p, prm, S, st, info, t);
    return rc ? rc : cli_solve_write_x(o, p);
}

/* auto on a matrix that is no SPD candidate: rank 0 runs the serial command's LU-IR alone. */
static int rank0_lu(const mpi_part *m, const solve_opts *o, solve_problem *p)
{
    char note[160];
    if (m->rank != 0) return CLI_OK;
    snprintf(note, sizeof note, "auto takes LU-IR (A is no SPD candidate): it runs on rank 0 alone, "
             "only CG spans the %d ranks", m->size);
    return cli_solve_serial(o, p, note);
}

/* The collective part: context, distributed matrix, mix_dcg; every status agreed. */
static int solve(mpi_part *m, const solve_opts *o, solve_problem *p)
{
    mix_context *ctx = NULL;
    mix_sparse *S = NULL;
    mix_cg_params prm;
    mix_cg_info info;
    memset(&info, 0, sizeof info);
    cli_cg_params(o, &prm);
    int st = mix_context_create_mpi(&ctx, o->backend, MPI_COMM_WORLD); /* the same everywhere */
    if (st) return fail(m, CLI_SOLVER_FAILED, "cannot make a context across the ranks", st);
    const double t0 = MPI_Wtime();
    st = mix_sparse_create_dist_csr(ctx, m->n_local, m->rowptr, m->colind, m->val, &S);
    int rc = st ? fail(m, CLI_SOLVER_FAILED, "cannot set up the distributed matrix", st) : CLI_OK;
    if (!st) {
        st = mix_dcg(ctx, &prm, S, m->b, m->x, &info);
        rc = finish(m, ctx, o, p, &prm, S, st, &info, MPI_Wtime() - t0);
    }
    mix_sparse_destroy(S);
    mix_context_destroy(ctx);
    return rc;
}

int cmd_solve_mpi(int argc, char **argv)
{
    mpi_part m;
    memset(&m, 0, sizeof m);
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return cli_error(CLI_SOLVER_FAILED, "MPI_Init failed");
    MPI_Comm_rank(MPI_COMM_WORLD, &m.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &m.size);
    /* Only rank 0 prints: the others' lines go nowhere (their failures reach rank 0). */
    if (m.rank != 0) {
        FILE *out = freopen("/dev/null", "w", stdout), *err = freopen("/dev/null", "w", stderr);
        (void)out, (void)err; /* nowhere to say that saying nothing failed */
    }
    solve_opts o = CLI_SOLVE_DEFAULTS;
    solve_problem p;
    memset(&p, 0, sizeof p);
    int rc = cli_solve_args(argc, argv, &o); /* the same arguments, the same answer everywhere */
    if (rc < 0 && o.method != 0 && o.method != 2)
        rc = cli_error(CLI_USAGE, "solve: across %d MPI ranks only --method cg runs", m.size);
    char choices[128];
    if (rc < 0 && o.method == 2 && !cli_prec_has(MIX_ROLE_STORAGE, o.prec)) /* auto: distribute's */
        rc = cli_error(CLI_USAGE, "--prec %s is for lu only (cg: %s)", mix_prec_name(o.prec),
                       cli_prec_choices(MIX_ROLE_STORAGE, choices, sizeof choices));
    int lu = 0;
    if (rc < 0 && !(rc = distribute(&m, &o, &p, &lu))) rc = lu ? rank0_lu(&m, &o, &p) : solve(&m, &o, &p);
    if (rc < 0) rc = CLI_OK;
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD); /* rank 0's verdict is every rank's */
    mixm_csr_free(&p.A);
    free(p.b), free(p.x), free(m.starts), free(m.rowptr), free(m.colind), free(m.val), free(m.b), free(m.x);
    MPI_Finalize();
    return rc;
}
