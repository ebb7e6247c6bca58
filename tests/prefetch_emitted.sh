#!/bin/sh
# prefetch_emitted.sh: the SpMV bodies' software prefetches are in the built library.
# A helper holding only prefetches has no side effects as GCC sees __builtin_prefetch, so an
# early pass may mark it pure and drop every call to it: until 2026-11-26 the "-pf" variants and
# FP64's csr-pf ran the same instructions as the plain bodies and the tuner compared them.  The
# helpers are now always inlined; this checks the machine code, where the tuner's bit-for-bit
# tests cannot see the difference.
set -u
lib=./lib/.libs/libmixsolve.so
[ -f "$lib" ] || { echo "SKIP: $lib not built"; exit 77; }
command -v objdump >/dev/null 2>&1 || { echo "SKIP: no objdump"; exit 77; }
case $(uname -m) in x86_64 | amd64) ;; *) echo "SKIP: not x86-64"; exit 77 ;; esac
counts=$(objdump -d --no-show-raw-insn "$lib" |
         awk '/^[0-9a-f]+ </ { fn = $2 } /prefetch/ { n[fn]++ } END { for (f in n) print n[f], f }')
status=0
# The AVX-512 slice bodies (contiguous: lookahead of col and the -pf stage; gather: the -pf
# stage), AVX2's SELL SpMV and the FP64 CSR SpMV (csr-pf).
for body in mixi_avx512_slice_c_fixed16 mixi_avx512_slice_g_fixed16 mixi_avx512_slice_c_fp16 avx2_fixed16_spmv \
            avx2_fp64_spmv; do
    if echo "$counts" | grep -q "<$body[.>]"; then
        echo "ok: $body has software prefetches"
    else
        echo "FAIL: no prefetch instruction in $body (or the function was renamed)"
        status=1
    fi
done
exit $status
