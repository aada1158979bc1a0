/*
 * sgemm.cl — C = A * B for row-major M x K and K x N matrices, in tiles of
 * TS x TS, each work-item computing WPT elements of a column of C (RTS =
 * TS / WPT work-items per tile column). The axes a pack tunes: TS and WPT
 * (examples/gemm/README.md). M, N and K must be multiples of TS. Launch
 * with a global size of (N, M / WPT) and a local size of (TS, RTS).
 */
#ifndef TS
#error "build with -D TS=... -D WPT=... -D RTS=TS/WPT"
#endif

__kernel __attribute__((reqd_work_group_size(TS, RTS, 1)))
void sgemm(const int M, const int N, const int K, const __global float *A,
           const __global float *B, __global float *C)
{
    const int col = get_local_id(0);
    const int row = get_local_id(1);
    const int tile_row = TS * get_group_id(1);
    const int gcol = TS * get_group_id(0) + col;
    __local float As[TS][TS];
    __local float Bs[TS][TS];
    float acc[WPT];
    for (int w = 0; w < WPT; w++)
        acc[w] = 0.0f;
    for (int t = 0; t < K / TS; t++) {
        for (int w = 0; w < WPT; w++) {
            const int r = row + w * RTS;
            As[r][col] = A[(tile_row + r) * K + t * TS + col];
            Bs[r][col] = B[(t * TS + r) * N + gcol];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TS; k++) {
            const float b = Bs[k][col];
            for (int w = 0; w < WPT; w++)
                acc[w] += As[row + w * RTS][k] * b;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int w = 0; w < WPT; w++)
        C[(tile_row + row + w * RTS) * N + gcol] = acc[w];
}
