/* dropin_autoprec.c: prints the precision mixsolve's AUTO takes for `n nrhs` on the backend the
 * drop-in would use (MIXSOLVE_BACKEND), so the drop-in tests know whether a call must be routed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mixsolve.h"

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: dropin_autoprec N NRHS\n");
        return 2;
    }
    const char *env = getenv("MIXSOLVE_BACKEND");
    mix_backend b = MIX_BACKEND_AUTO, all[MIX_NUM_BACKENDS]; /* the library's, by name */
    const int nb = mix_backend_list(all, MIX_NUM_BACKENDS);
    for (int k = 0; env && k < nb && k < MIX_NUM_BACKENDS; k++)
        if (strcmp(env, mix_backend_name(all[k])) == 0) b = all[k];
    mix_context *ctx;
    mix_prec p;
    int st = mix_context_create(&ctx, b);
    if (st || (st = mix_gesv_auto_prec(ctx, atoi(argv[1]), atoi(argv[2]), &p))) {
        fprintf(stderr, "dropin_autoprec: %s\n", st > 0 ? mix_strerror(st) : "illegal argument");
        return 1;
    }
    printf("%s\n", mix_prec_name(p));
    mix_context_destroy(ctx);
    return 0;
}
