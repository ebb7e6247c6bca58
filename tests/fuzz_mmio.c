/* fuzz_mmio.c: libFuzzer harness for the Matrix Market reader (`make fuzz`, see doc/guide.md). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "matrices/mmio.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Inputs that look gzip-compressed also go through a file, so zlib's decoding path is fuzzed;
 * inputs starting with 'D' go (without it) through the dense reader used for right-hand sides. */
static void through_file(const uint8_t *data, size_t size, int dense)
{
    char path[64], err[256];
    snprintf(path, sizeof path, "/tmp/fuzz_mmio_%ld.mtx.gz", (long)getpid());
    FILE *f = fopen(path, "wb");
    if (!f) return;
    fwrite(data, 1, size, f);
    fclose(f);
    int st;
    if (dense) {
        mixm_dense X;
        st = mixm_mtx_read_dense(path, &X, err, sizeof err);
        if (st == MIX_SUCCESS) mixm_dense_free(&X);
    } else {
        mixm_csr A;
        st = mixm_mtx_read(path, &A, NULL, err, sizeof err);
        if (st == MIX_SUCCESS) mixm_csr_free(&A);
    }
    if (st != MIX_SUCCESS && strncmp(err, path, strlen(path)) != 0) abort();
    unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* No memory cap of our own: a lying size line must cost nothing by itself (the reader
     * allocates only for what the file holds); libFuzzer's -rss_limit_mb catches it if not. */
    if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b) through_file(data, size, 0);
    if (size >= 1 && data[0] == 'D') through_file(data + 1, size - 1, 1);
    mixm_csr A;
    mixm_mtx_header h;
    char err[256];
    int st = mixm_mtx_read_mem(data, size, "fuzz", &A, &h, err, sizeof err);
    if (st == MIX_SUCCESS) {
        /* The result must be a well-formed CSR: monotone row pointers, sorted in-range columns. */
        if (A.rowptr[0] != 0 || A.rowptr[A.nrows] != A.nnz) abort();
        for (int i = 0; i < A.nrows; i++) {
            if (A.rowptr[i + 1] < A.rowptr[i]) abort();
            for (int64_t k = A.rowptr[i]; k < A.rowptr[i + 1]; k++) {
                if (A.colind[k] < 0 || A.colind[k] >= A.ncols) abort();
                if (k > A.rowptr[i] && A.colind[k] <= A.colind[k - 1]) abort();
            }
        }
        mixm_csr_free(&A);
    } else if (strncmp(err, "fuzz:", 5) != 0) {
        abort(); /* every failure names the input */
    }
    return 0;
}
