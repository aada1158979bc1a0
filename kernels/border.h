/*
 * border.h — the border rule of docs/KERNELS.md, in the centred form Reda's
 * kernels use, plus the switch between a run-time image width and the
 * IMAGE_W build option (the study's section 5).
 *
 * Output W x H, row pitch W. Input (W + 2*HALF_FILTER_SIZE) x
 * (H + 2*HALF_FILTER_SIZE), row pitch at least W + 2*HALF_FILTER_SIZE
 * (kernels take it as inWidth). Output pixel (x, y) is the filter centred on
 * input pixel (x + HALF_FILTER_SIZE, y + HALF_FILTER_SIZE), so no read ever
 * leaves the input and every kernel, whatever its form, computes the same
 * function as AMD's top-left form.
 */
#ifndef CLC_KERNELS_BORDER_H
#define CLC_KERNELS_BORDER_H

#ifdef IMAGE_W
/* Widths and the centre offset become literals; the run-time arguments are
 * still passed (the argument list does not change) but not read. INPUT_W
 * and HALF_FILTER_SIZE_INPUT_W are derived by the manifest. */
#define BORDER_OUT_W(width_arg) IMAGE_W
#define BORDER_IN_PITCH(pitch_arg) INPUT_W
#define BORDER_CENTRE(x, y, pitch) \
    ((y) * INPUT_W + HALF_FILTER_SIZE_INPUT_W + (x) + HALF_FILTER_SIZE)
#else
#define BORDER_OUT_W(width_arg) (width_arg)
#define BORDER_IN_PITCH(pitch_arg) (pitch_arg)
#define BORDER_CENTRE(x, y, pitch) \
    (((y) + HALF_FILTER_SIZE) * (pitch) + (x) + HALF_FILTER_SIZE)
#endif

#endif /* CLC_KERNELS_BORDER_H */
