/* sparse_portable.c: the CPU sparse kernels of every storage format in portable C (the template
 * sparse_cpu_t.h for the baseline ISA): what runs where no vector instance does, and the
 * reference the others keep the bits of. */
#include "kernels/cpu/sparse_cpu_impl.h"

#define ISA generic
#define ISA_ATTR /* no target attribute: the baseline ISA */
#define ISA_BLK_INLINE MIXI_INLINE
#define T double
#define TACC MIX_FP64
#include "kernels/cpu/sparse_cpu_t.h"
#define T float
#define TACC MIX_FP32
#include "kernels/cpu/sparse_cpu_t.h"
const cpu_svec_kernels *const mixi_cpu_portable_kernels[MIX_NUM_PREC] = {
    MIXK_STORAGE_FORMATS(MIXI_TABLE_ENTRY)};
#undef ISA
#undef ISA_ATTR
#undef ISA_BLK_INLINE
