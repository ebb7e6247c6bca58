/* fuzz_solve.c: libFuzzer harness of the whole `mixsolve solve` path: reader, checks, LU-IR or CG, FP64 re-check (`make fuzz-solve`). */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tools/cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The first byte picks the options (method, precision, preconditioner, refinement); the rest is
 * the matrix file, plain or gzip.  The invariants of the command: exit 0, 1 or 2; a failure
 * prints exactly one line "mixsolve: ..." on stderr; a success passed the command's own FP64
 * re-check (it exits 1 otherwise). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const methods[] = {"lu", "cg", "auto", "chol"};
    static const char *const precs[] = {"fp64", "fp32", "fp16", "bf16", "fixed16", "tf32", "auto", "fp32"};
    if (size < 1) return 0;
    const unsigned o = data[0];
    char path[64], errpath[64];
    snprintf(path, sizeof path, "/tmp/fuzz_solve_%ld.mtx", (long)getpid());
    snprintf(errpath, sizeof errpath, "/tmp/fuzz_solve_%ld.err", (long)getpid());
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    fwrite(data + 1, 1, size - 1, f);
    fclose(f);

    char *argv[16];
    int argc = 0;
    argv[argc++] = "solve";
    argv[argc++] = path;
    argv[argc++] = "--method";
    argv[argc++] = (char *)methods[o & 3];
    argv[argc++] = "--prec";
    argv[argc++] = (char *)precs[(o >> 2) & 7];
    argv[argc++] = "--precond";
    argv[argc++] = (o & 0x20) ? "none" : "jacobi";
    argv[argc++] = "--refine";
    argv[argc++] = (o & 0x40) ? "gmres" : "auto";
    argv[argc++] = "--max-iter";
    argv[argc++] = "300";
    argv[argc] = NULL;

    /* stdout (the report) is dropped; stderr goes to a file to count its lines. */
    fflush(stdout);
    fflush(stderr);
    int out_fd = dup(1), err_fd = dup(2);
    int null_fd = open("/dev/null", O_WRONLY), e_fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (out_fd < 0 || err_fd < 0 || null_fd < 0 || e_fd < 0) abort();
    dup2(null_fd, 1);
    dup2(e_fd, 2);
    int rc = cmd_solve(argc, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(out_fd, 1);
    dup2(err_fd, 2);
    close(out_fd);
    close(err_fd);
    close(null_fd);
    close(e_fd);

    char msg[4096];
    FILE *e = fopen(errpath, "r");
    size_t len = e ? fread(msg, 1, sizeof msg - 1, e) : 0;
    msg[len] = '\0';
    if (e) fclose(e);
    int lines = 0;
    for (size_t k = 0; k < len; k++) lines += msg[k] == '\n';
    if (rc < 0 || rc > 2) abort();
    if (rc != 0 && (lines != 1 || strncmp(msg, "mixsolve: ", 10) != 0)) abort();
    unlink(path);
    unlink(errpath);
    return 0;
}
