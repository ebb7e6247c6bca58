/* formats.h: all host+device number formats of mixsolve (FP16, BF16, TF32, FIXED16) in one include. */
#ifndef MIXK_FORMATS_H
#define MIXK_FORMATS_H

#include "kernels/common/mix_hd.h"
#include "kernels/common/fpbits.h"
#include "kernels/common/fp16.h"
#include "kernels/common/bf16.h"
#include "kernels/common/tf32.h"
#include "kernels/common/fixed16.h"

#endif
