/* SPDX-License-Identifier: GPL-2.0 */
/*
 * X-macro list of the test modules: UC_IDX1024(d) for every three-digit
 * hexadecimal d from 000 to 3ff, in order, made of four uc_idx256.h.
 * Define UC_IDX1024() and include this file (it has no include guard);
 * UC_IDX1024() must paste a prefix onto d to make it a number, as in
 * "#define UC_IDX1024(d) uc_fn(0x##d)".  Uses and undefines UC_IDX().
 */
#define UC_IDX(d)	UC_IDX1024(0##d)
#include "uc_idx256.h"
#undef UC_IDX
#define UC_IDX(d)	UC_IDX1024(1##d)
#include "uc_idx256.h"
#undef UC_IDX
#define UC_IDX(d)	UC_IDX1024(2##d)
#include "uc_idx256.h"
#undef UC_IDX
#define UC_IDX(d)	UC_IDX1024(3##d)
#include "uc_idx256.h"
#undef UC_IDX
