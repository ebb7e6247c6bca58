/* lapack.h: LAPACK's Fortran interface as the drop-in sees it: the routines it exports, and the
 * real ones after it (dlsym RTLD_NEXT).  Fortran's hidden character lengths come last. */
#ifndef MIX_DROPIN_LAPACK_H
#define MIX_DROPIN_LAPACK_H

#include <stddef.h>

/* The drivers (lapack_drivers.c). */
void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b,
            const int *ldb, int *info);
void dsgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, const double *b,
             const int *ldb, double *x, const int *ldx, double *work, float *swork, int *iter,
             int *info);
void dposv_(const char *uplo, const int *n, const int *nrhs, double *a, const int *lda, double *b,
            const int *ldb, int *info, size_t uplo_len);
void dsposv_(const char *uplo, const int *n, const int *nrhs, double *a, const int *lda,
             const double *b, const int *ldb, double *x, const int *ldx, double *work,
             float *swork, int *iter, int *info, size_t uplo_len);

/* The consumers of the factors the drivers leave (lapack_reuse.c). */
void dgetrs_(const char *trans, const int *n, const int *nrhs, const double *a, const int *lda,
             const int *ipiv, double *b, const int *ldb, int *info, size_t trans_len);
void dpotrs_(const char *uplo, const int *n, const int *nrhs, const double *a, const int *lda,
             double *b, const int *ldb, int *info, size_t uplo_len);
void dgetri_(const int *n, double *a, const int *lda, const int *ipiv, double *work,
             const int *lwork, int *info);
void dpotri_(const char *uplo, const int *n, double *a, const int *lda, int *info, size_t uplo_len);
void dgecon_(const char *norm, const int *n, const double *a, const int *lda, const double *anorm,
             double *rcond, double *work, int *iwork, int *info, size_t norm_len);
void dpocon_(const char *uplo, const int *n, const double *a, const int *lda, const double *anorm,
             double *rcond, double *work, int *iwork, int *info, size_t uplo_len);
void dgerfs_(const char *trans, const int *n, const int *nrhs, const double *a, const int *lda,
             const double *af, const int *ldaf, const int *ipiv, const double *b, const int *ldb,
             double *x, const int *ldx, double *ferr, double *berr, double *work, int *iwork,
             int *info, size_t trans_len);
void dporfs_(const char *uplo, const int *n, const int *nrhs, const double *a, const int *lda,
             const double *af, const int *ldaf, const double *b, const int *ldb, double *x,
             const int *ldx, double *ferr, double *berr, double *work, int *iwork, int *info,
             size_t uplo_len);
void dgesvx_(const char *fact, const char *trans, const int *n, const int *nrhs, double *a,
             const int *lda, double *af, const int *ldaf, int *ipiv, char *equed, double *r,
             double *c, double *b, const int *ldb, double *x, const int *ldx, double *rcond,
             double *ferr, double *berr, double *work, int *iwork, int *info, size_t fact_len,
             size_t trans_len, size_t equed_len);
void dposvx_(const char *fact, const char *uplo, const int *n, const int *nrhs, double *a,
             const int *lda, double *af, const int *ldaf, char *equed, double *s, double *b,
             const int *ldb, double *x, const int *ldx, double *rcond, double *ferr, double *berr,
             double *work, int *iwork, int *info, size_t fact_len, size_t uplo_len,
             size_t equed_len);

/* The real routines, each NULL where no library after this one defines it: the exported ones
 * by their prototypes above, and those the drop-in calls for its own work. */
#define MIXD_REAL(name) __typeof__(name##_) *name
typedef struct {
    MIXD_REAL(dgesv); MIXD_REAL(dsgesv); MIXD_REAL(dposv); MIXD_REAL(dsposv);
    MIXD_REAL(dgetrs); MIXD_REAL(dpotrs); MIXD_REAL(dgetri); MIXD_REAL(dpotri);
    MIXD_REAL(dgecon); MIXD_REAL(dpocon); MIXD_REAL(dgerfs); MIXD_REAL(dporfs);
    MIXD_REAL(dgesvx); MIXD_REAL(dposvx);
    void (*dgetrf)(const int *, const int *, double *, const int *, int *, int *);
    void (*dpotrf)(const char *, const int *, double *, const int *, int *, size_t);
    void (*dgemm)(const char *, const char *, const int *, const int *, const int *,
                  const double *, const double *, const int *, const double *, const int *,
                  const double *, double *, const int *, size_t, size_t);
    void (*dsymm)(const char *, const char *, const int *, const int *, const double *,
                  const double *, const int *, const double *, const int *, const double *,
                  double *, const int *, size_t, size_t);
    void (*dlacn2)(const int *, double *, double *, int *, double *, int *, int *);
} mixd_real_lapack;
#undef MIXD_REAL

/* The table, looked up once per process (thread-safe). */
const mixd_real_lapack *mixd_real(void);

#endif
