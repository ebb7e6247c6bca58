/* cmd_info.c: `mixsolve info`: version, backends compiled and available, precisions, libraries. */
#include <stdio.h>
#include <string.h>
#include "tools/cli.h"

static const char *support_name(mix_prec_support s)
{
    return s == MIX_PREC_NATIVE ? "native" : s == MIX_PREC_EMULATED ? "emulated" : "-";
}

static void print_precs(const char *what, const mix_prec_support *s)
{
    printf("  %-20s", what);
    for (int k = 0; k < MIX_NUM_PREC; k++) printf(" %s:%s", mix_prec_name((mix_prec)k), support_name(s[k]));
    printf("\n");
}

int cmd_info(int argc, char **argv)
{
    static const struct option longopts[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    cli_args args;
    cli_args_init(&args, argc, argv, "h", longopts);
    const char *v = "";
    const int c = cli_next(&args, &v);
    if (c == 'h') {
        printf("Usage: mixsolve info\n"
               "Prints the library version, which backends are compiled in and answer on this\n"
               "machine, the device, the BLAS/oneDNN/CUDA libraries in use and, per precision,\n"
               "whether the dense update (gemm) and the CG storage run natively or emulated.\n");
        return CLI_OK;
    }
    if (c != CLI_ARGS_END) return cli_error(CLI_USAGE, "info takes no arguments, got '%s'", v);
    printf("mixsolve %s\n", mix_version());
    mix_backend all[16];
    const int nb = mix_backend_list(all, 16);
    mix_backend dflt = MIX_BACKEND_AUTO; /* the first available in the registry's order */
    for (int k = 0; k < nb && k < 16; k++) {
        mix_caps c;
        memset(&c, 0, sizeof c);
        int st = mix_backend_caps(all[k], &c);
        if (st) {
            printf("backend %-5s: %s\n", mix_backend_name(all[k]), mix_strerror(st));
            continue;
        }
        if (!c.compiled) {
            printf("backend %-5s: not compiled in this build\n", mix_backend_name(all[k]));
            continue;
        }
        printf("backend %-5s: compiled, %s\n", mix_backend_name(all[k]),
               c.available ? "available" : "not available (no device answers)");
        if (c.available && dflt == MIX_BACKEND_AUTO) dflt = all[k];
        printf("  device              %s\n", c.device[0] ? c.device : "-");
        printf("  libraries           %s\n", c.libraries[0] ? c.libraries : "-");
        print_precs("gemm (LU update)", c.gemm);
        print_precs("storage (CG)", c.storage);
    }
    printf("default backend (auto): %s\n", mix_backend_name(dflt));
    return CLI_OK;
}
