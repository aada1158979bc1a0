/*
 * conv_block_row_unroll.h — the unroll hint for the row loop of the
 * register-blocked kernels (conv_block.h, ROW_UNROLL: 0 fully, else that
 * many times), included on the line before that loop. A plain "#pragma
 * unroll" line, chosen by the preprocessor: not every OpenCL compiler
 * takes _Pragma inside a macro.
 */
#if ROW_UNROLL != 0 && ROW_UNROLL != 1 && ROW_UNROLL != 2 && ROW_UNROLL != 4
#error "ROW_UNROLL must be 0, 1, 2 or 4"
#endif
#if ROW_UNROLL == 0
#pragma unroll
#elif ROW_UNROLL == 1
#pragma unroll 1
#elif ROW_UNROLL == 2
#pragma unroll 2
#else
#pragma unroll 4
#endif
