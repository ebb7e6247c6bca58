/* test_core.c: contexts, backends, status sentences, capabilities and allocation failure. */
#include <stdio.h>
#include <string.h>
#include "tests/mixt.h"
#include "lib/api/mix_internal.h"
#ifdef MIX_HAVE_CUDA
#define MIXI_CUDA_LIBS_LOADER /* the table's members by their own names */
#include "kernels/cuda/cuda_libs.h"
#endif

static void test_strerror_every_code(void)
{
    for (int s = 0; s < MIX_ERR_COUNT_; s++) {
        const char *m = mix_strerror(s);
        CU_ASSERT_PTR_NOT_NULL_FATAL(m);
        CU_ASSERT(strlen(m) > 5);
        CU_ASSERT(strcmp(m, "Unknown mixsolve status code.") != 0);
        CU_ASSERT(m[strlen(m) - 1] == '.');
    }
    CU_ASSERT_STRING_EQUAL(mix_strerror(MIX_ERR_COUNT_), "Unknown mixsolve status code.");
    CU_ASSERT_STRING_EQUAL(mix_strerror(-100000), "Unknown mixsolve status code.");
    /* The library's own negative returns: -i for argument i, the simple drivers' -1010, -1011. */
    CU_ASSERT_PTR_NOT_NULL(strstr(mix_strerror(-1), "Argument 1 of the call is illegal"));
    CU_ASSERT_PTR_NOT_NULL(strstr(mix_strerror(-13), "Argument 13 of the call is illegal"));
    CU_ASSERT_PTR_NOT_NULL(strstr(mix_strerror(-1010), "memory"));
    CU_ASSERT_PTR_NOT_NULL(strstr(mix_strerror(-1011), "another reason"));
    /* Not SPD is found by the dense Cholesky as well as by CG: the sentence fits both. */
    CU_ASSERT_PTR_NOT_NULL(strstr(mix_strerror(MIX_ERR_NOT_SPD), "Cholesky"));
}

static void test_version_and_names(void)
{
    CU_ASSERT_STRING_EQUAL(mix_version(), PACKAGE_VERSION);
    CU_ASSERT_STRING_EQUAL(mix_prec_name(MIX_FP16), "fp16");
    CU_ASSERT_STRING_EQUAL(mix_prec_name(MIX_FIXED16), "fixed16");
    CU_ASSERT_STRING_EQUAL(mix_prec_name((mix_prec)99), "?");
    CU_ASSERT_STRING_EQUAL(mix_backend_name(MIX_BACKEND_CUDA), "cuda");
    CU_ASSERT_STRING_EQUAL(mix_backend_name((mix_backend)-3), "?");
}

static void test_context_cpu(void)
{
    mix_context *ctx = NULL;
    CU_ASSERT_EQUAL_FATAL(mix_context_create(&ctx, MIX_BACKEND_CPU), MIX_SUCCESS);
    CU_ASSERT_EQUAL(mix_context_backend(ctx), MIX_BACKEND_CPU);
    mix_context_destroy(ctx);
    mix_context_destroy(NULL); /* allowed, like free */
}

static void test_context_illegal(void)
{
    mix_context *ctx = (mix_context *)&ctx;
    CU_ASSERT_EQUAL(mix_context_create(NULL, MIX_BACKEND_CPU), MIX_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(mix_context_create(&ctx, (mix_backend)7), MIX_ERR_INVALID_ARG);
    CU_ASSERT_PTR_NULL(ctx); /* cleared on failure */
    CU_ASSERT_EQUAL(mix_context_create(&ctx, (mix_backend)-1), MIX_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(mix_context_backend(NULL), MIX_BACKEND_AUTO);
}

static void test_context_auto(void)
{
    mix_context *ctx = NULL;
    CU_ASSERT_EQUAL_FATAL(mix_context_create(&ctx, MIX_BACKEND_AUTO), MIX_SUCCESS);
    /* AUTO takes the first backend of the list that answers (a GPU exactly when one does). */
    mix_backend all[MIX_NUM_BACKENDS];
    const int n = mix_backend_list(all, MIX_NUM_BACKENDS);
    mix_backend first = MIX_BACKEND_AUTO;
    for (int k = n - 1; k >= 0; k--) {
        mix_caps caps;
        CU_ASSERT_EQUAL(mix_backend_caps(all[k], &caps), MIX_SUCCESS);
        if (caps.available) first = all[k];
    }
    CU_ASSERT_EQUAL(mix_context_backend(ctx), first);
    mix_context_destroy(ctx);
}

static void test_context_cuda_without_device(void)
{
    mix_caps caps;
    CU_ASSERT_EQUAL_FATAL(mix_backend_caps(MIX_BACKEND_CUDA, &caps), MIX_SUCCESS);
    mix_context *ctx = NULL;
    int st = mix_context_create(&ctx, MIX_BACKEND_CUDA);
    if (caps.available) {
        CU_ASSERT_EQUAL(st, MIX_SUCCESS);
        mix_context_destroy(ctx);
    } else {
        CU_ASSERT_EQUAL(st, MIX_ERR_BACKEND);
        CU_ASSERT_PTR_NULL(ctx);
        CU_ASSERT(strstr(mix_strerror(st), "backend") != NULL);
    }
}

static void test_caps(void)
{
    mix_caps caps;
    CU_ASSERT_EQUAL(mix_backend_caps(MIX_BACKEND_CPU, NULL), MIX_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(mix_backend_caps(MIX_BACKEND_AUTO, &caps), MIX_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL(mix_backend_caps((mix_backend)9, &caps), MIX_ERR_INVALID_ARG);
    CU_ASSERT_EQUAL_FATAL(mix_backend_caps(MIX_BACKEND_CPU, &caps), MIX_SUCCESS);
    CU_ASSERT_EQUAL(caps.compiled, 1);
    CU_ASSERT_EQUAL(caps.available, 1);
    CU_ASSERT_EQUAL(caps.gemm[MIX_FP64], MIX_PREC_NATIVE);
    CU_ASSERT_EQUAL(caps.gemm[MIX_FP32], MIX_PREC_NATIVE);
    CU_ASSERT(caps.gemm[MIX_FP16] >= MIX_PREC_EMULATED);
    CU_ASSERT(caps.gemm[MIX_TF32] >= MIX_PREC_EMULATED);
    CU_ASSERT(caps.gemm[MIX_BF16] >= MIX_PREC_EMULATED);
    CU_ASSERT_EQUAL(caps.storage[MIX_FIXED16], MIX_PREC_NATIVE);
    CU_ASSERT(strlen(caps.device) > 0);
#ifndef MIX_HAVE_CUDA
    CU_ASSERT_EQUAL(mix_backend_caps(MIX_BACKEND_CUDA, &caps), MIX_SUCCESS);
    CU_ASSERT_EQUAL(caps.compiled, 0);
    CU_ASSERT_EQUAL(caps.available, 0);
#endif
}

#ifdef MIX_HAVE_CUDA
/* Whether the process has a file whose name contains `name` mapped (/proc/self/maps). */
static int mapped(const char *name)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[1024];
    int found = 0;
    while (f && !found && fgets(line, sizeof line, f)) found = strstr(line, name) != NULL;
    if (f) fclose(f);
    return found;
}
#endif

/* cuBLAS, cuSOLVER and cuSPARSE are opened by the first CUDA context, not at load: linked, they
 * cost every process 0.2-0.3 s and 210-270 MB before main, GPU or not.  A CPU solve leaves them
 * unmapped; the loader then finds every function the backend calls (its names and types are
 * checked here, where no GPU runs them). */
static void test_cuda_libs_on_demand(void)
{
#ifdef MIX_HAVE_CUDA
    mix_caps caps;
    CU_ASSERT_EQUAL_FATAL(mix_backend_caps(MIX_BACKEND_CUDA, &caps), MIX_SUCCESS);
    if (!caps.available) { /* else a CUDA suite may have opened them already */
        mix_context *ctx = NULL;
        double a[4] = {4.0, 1.0, 1.0, 3.0}, b[2] = {1.0, 2.0}, x[2];
        int ipiv[2];
        CU_ASSERT_EQUAL_FATAL(mix_context_create(&ctx, MIX_BACKEND_AUTO), MIX_SUCCESS);
        CU_ASSERT_EQUAL(mix_dgesv_ir(ctx, NULL, MIX_COL_MAJOR, 2, 1, a, 2, ipiv, b, 2, x, 2, NULL), 0);
        mix_context_destroy(ctx);
        CU_ASSERT(mapped("libcudart"));
        CU_ASSERT(!mapped("libcublas"));
        CU_ASSERT(!mapped("libcusolver"));
        CU_ASSERT(!mapped("libcusparse"));
    }
    CU_ASSERT_EQUAL_FATAL(mixi_cuda_libs_load(), MIX_SUCCESS);
    CU_ASSERT_STRING_EQUAL(mixi_cuda_libs_missing(), "");
#define MIXT_LOADED(name) CU_ASSERT_PTR_NOT_NULL(mixi_cuda_fn.p_##name);
    MIXI_CUBLAS_FUNCS(MIXT_LOADED)
    MIXI_CUSOLVER_FUNCS(MIXT_LOADED)
    MIXI_CUSPARSE_FUNCS(MIXT_LOADED)
    CU_ASSERT(mapped("libcublas") && mapped("libcusolver") && mapped("libcusparse"));
#endif
}

/* The registry: names, order and AUTO agree; every compiled table is complete and says what
 * its memory is; a table missing a required operation is refused. */
static void test_registry(void)
{
    mix_backend list[16];
    const int n = mix_backend_list(list, 16);
    CU_ASSERT_FATAL(n >= 2 && n <= 16);
    CU_ASSERT_EQUAL(mix_backend_list(NULL, 0), n);
    CU_ASSERT_EQUAL(list[n - 1], MIX_BACKEND_CPU); /* the fallback, always compiled */
    mix_backend first_available = MIX_BACKEND_AUTO;
    for (int k = 0; k < n; k++) {
        mix_backend b = MIX_BACKEND_AUTO;
        CU_ASSERT_STRING_NOT_EQUAL(mix_backend_name(list[k]), "?");
        CU_ASSERT(mixi_backend_by_name(mix_backend_name(list[k]), &b) && b == list[k]);
        for (int j = 0; j < k; j++) CU_ASSERT(list[j] != list[k]);
        mix_caps caps;
        CU_ASSERT_EQUAL_FATAL(mix_backend_caps(list[k], &caps), MIX_SUCCESS);
        const mixi_backend_ops *ops = mixi_backend_lookup(list[k]);
        CU_ASSERT_EQUAL(ops != NULL, caps.compiled);
        if (!ops) continue;
        CU_ASSERT(mixi_backend_valid(ops));
        /* Backend memory is host memory, or callers hand in device pointers: one or the other. */
        CU_ASSERT(!(ops->flags & MIXI_BACKEND_HOST_MEMORY) != !(ops->flags & MIXI_BACKEND_DEVICE_POINTERS));
        if (caps.available && first_available == MIX_BACKEND_AUTO) first_available = list[k];
    }
    CU_ASSERT(mixi_backend_lookup(MIX_BACKEND_CPU)->flags & MIXI_BACKEND_HOST_MEMORY);
    mix_context *ctx = NULL;
    CU_ASSERT_EQUAL_FATAL(mix_context_create(&ctx, MIX_BACKEND_AUTO), MIX_SUCCESS);
    CU_ASSERT_EQUAL(mix_context_backend(ctx), first_available);
    mix_context_destroy(ctx);
    mix_backend b = MIX_BACKEND_CPU;
    CU_ASSERT(mixi_backend_by_name("auto", &b) && b == MIX_BACKEND_AUTO);
    CU_ASSERT(!mixi_backend_by_name("no-such-backend", &b) && !mixi_backend_by_name(NULL, &b));
    mixi_backend_ops broken = *mixi_backend_lookup(MIX_BACKEND_CPU);
    CU_ASSERT(mixi_backend_valid(&broken));
    broken.memset0 = NULL;
    CU_ASSERT(!mixi_backend_valid(&broken));
    CU_ASSERT(!mixi_backend_valid(NULL));
}

static void test_context_alloc_failure(void)
{
    long live = mixi_alloc_live();
    void *one = mixi_malloc(8); /* the count the leak tests read is kept (runner.c) */
    CU_ASSERT_EQUAL(mixi_alloc_live(), live + 1);
    mixi_free(one);
    CU_ASSERT_EQUAL(mixi_alloc_live(), live);
    mix_context *ctx = NULL;
    mixi_alloc_fail_after(0);
    CU_ASSERT_EQUAL(mix_context_create(&ctx, MIX_BACKEND_CPU), MIX_ERR_ALLOC);
    mixi_alloc_fail_after(-1);
    CU_ASSERT_PTR_NULL(ctx);
    CU_ASSERT_EQUAL(mixi_alloc_live(), live);
}

static void test_alloc_overflow(void)
{
    size_t out = 0;
    CU_ASSERT_EQUAL(mixi_mul_size((size_t)1 << 40, (size_t)1 << 40, &out), MIX_ERR_ALLOC);
    CU_ASSERT_EQUAL(mixi_mul_size(3, 5, &out), MIX_SUCCESS);
    CU_ASSERT_EQUAL(out, 15);
    CU_ASSERT_PTR_NULL(mixi_calloc(SIZE_MAX / 2, 4));
    void *p = mixi_malloc(100);
    CU_ASSERT_PTR_NOT_NULL(p);
    CU_ASSERT_EQUAL(((uintptr_t)p) % 64, 0);
    mixi_free(p);
}

/* The spare block: kept from MIXI_SPARE_MIN, the larger of two stays, handed to a request it
 * fits within a factor 2, out of the live count while kept, failable as any allocation. */
static void test_spare_block(void)
{
    const long live = mixi_alloc_live();
    mixi_spare *s = mixi_spare_create();
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    void *small = mixi_malloc(MIXI_SPARE_MIN / 2), *a = mixi_malloc(MIXI_SPARE_MIN),
         *b = mixi_malloc(3 * MIXI_SPARE_MIN), *got = &got;
    CU_ASSERT_FATAL(small && a && b);
    CU_ASSERT_EQUAL(mixi_block_bytes(b), 3 * MIXI_SPARE_MIN);
    CU_ASSERT_EQUAL(mixi_spare_keep(s, small), 0); /* below the minimum: the caller frees it */
    mixi_free(small);
    CU_ASSERT_EQUAL(mixi_spare_keep(s, a), 1);
    CU_ASSERT_EQUAL(mixi_spare_keep(s, b), 1); /* replaces a, which is freed */
    CU_ASSERT_EQUAL(mixi_alloc_live(), live + 1); /* s itself */
    CU_ASSERT_EQUAL(mixi_spare_take(s, MIXI_SPARE_MIN, &got), MIX_SUCCESS);
    CU_ASSERT_PTR_NULL(got); /* b is more than twice that */
    CU_ASSERT_EQUAL(mixi_spare_take(s, 4 * MIXI_SPARE_MIN, &got), MIX_SUCCESS);
    CU_ASSERT_PTR_NULL(got); /* too small for that */
    mixi_alloc_fail_after(0);
    CU_ASSERT_EQUAL(mixi_spare_take(s, 2 * MIXI_SPARE_MIN, &got), MIX_ERR_ALLOC);
    mixi_alloc_fail_after(-1);
    CU_ASSERT_EQUAL(mixi_spare_take(s, 2 * MIXI_SPARE_MIN, &got), MIX_SUCCESS);
    CU_ASSERT_PTR_EQUAL(got, b);
    CU_ASSERT_EQUAL(mixi_alloc_live(), live + 2);
    memset(got, 1, 2 * MIXI_SPARE_MIN); /* all of it the caller's */
    CU_ASSERT_EQUAL(mixi_spare_take(s, 2 * MIXI_SPARE_MIN, &got), MIX_SUCCESS);
    CU_ASSERT_PTR_NULL(got); /* taken once */
    CU_ASSERT_EQUAL(mixi_spare_keep(s, b), 1);
    mixi_spare_destroy(s); /* frees b */
    CU_ASSERT_EQUAL(mixi_alloc_live(), live);
    CU_ASSERT_EQUAL(mixi_spare_take(NULL, 2 * MIXI_SPARE_MIN, &got), MIX_SUCCESS);
    CU_ASSERT_PTR_NULL(got);
}

void mixt_register_core(void)
{
    static const mixt_test tests[] = {
        {"strerror has a sentence for every code", test_strerror_every_code},
        {"version and enum names", test_version_and_names},
        {"CPU context create/destroy", test_context_cpu},
        {"context illegal arguments", test_context_illegal},
        {"AUTO picks the GPU exactly when one answers", test_context_auto},
        {"CUDA context without a device is MIX_ERR_BACKEND", test_context_cuda_without_device},
        {"backend capabilities", test_caps},
        {"CUDA libraries opened by the first CUDA context, not at load", test_cuda_libs_on_demand},
        {"registry: names, order, AUTO, complete tables", test_registry},
        {"context creation survives allocation failure", test_context_alloc_failure},
        {"allocation size overflow is refused", test_alloc_overflow},
        {"spare block: kept, handed on, counted, failable", test_spare_block},
        {NULL, NULL}};
    mixt_add_suite("core", tests);
}
