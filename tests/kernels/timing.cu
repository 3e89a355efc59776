// Kernels whose timing on the detailed simulator is known on paper
// (tests/test_simulator_timing.py).  The PTX beside this file is what
// `nvcc -ptx -arch=sm_80 -O3` made of it.

// A chain of dependent FMAs in every thread: each waits for the previous one.
extern "C" __global__ void dep_chain(float *out, int n)
{
    float x = threadIdx.x * 0.5f;
    const float a = 1.0001f, b = 0.25f;
    for (int i = 0; i < n; i++) {
#pragma unroll
        for (int k = 0; k < 16; k++)
            x = x * a + b;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

// Eight independent FMA chains per thread: plenty of work for every warp.
extern "C" __global__ void indep(float *out, int n)
{
    float x0 = threadIdx.x, x1 = x0 + 1, x2 = x0 + 2, x3 = x0 + 3;
    float x4 = x0 + 4, x5 = x0 + 5, x6 = x0 + 6, x7 = x0 + 7;
    const float a = 1.0001f, b = 0.25f;
    for (int i = 0; i < n; i++) {
#pragma unroll
        for (int k = 0; k < 4; k++) {
            x0 = x0 * a + b; x1 = x1 * a + b; x2 = x2 * a + b; x3 = x3 * a + b;
            x4 = x4 * a + b; x5 = x5 * a + b; x6 = x6 * a + b; x7 = x7 * a + b;
        }
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7;
}

// Streaming read: every thread sums a grid-strided slice of float4s.
extern "C" __global__ void stream(const float4 *in, float *out, int n4)
{
    int stride = gridDim.x * blockDim.x;
    float s = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
        float4 v = in[i];
        s += v.x + v.y + v.z + v.w;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// Pointer chase: next[] holds byte offsets, so each load depends on the last.
extern "C" __global__ void chase(const unsigned *next, unsigned *out, int n)
{
    unsigned off = threadIdx.x * 4;
    const char *base = (const char *)next;
    for (int i = 0; i < n; i++)
        off = *(const unsigned *)(base + off);
    out[threadIdx.x] = off;
}

// Every warp reads its own lines_per_warp lines, reps times over, with some
// arithmetic per load: the working set of all warps together exceeds L1,
// that of a few warps does not (cache-sensitive, scheduler-dependent).
extern "C" __global__ void reuse(const float *in, float *out, int lines_per_warp, int reps)
{
    int gtid = blockIdx.x * blockDim.x + threadIdx.x;
    int warp = gtid / 32, lane = gtid % 32;
    const float *base = in + (size_t)warp * lines_per_warp * 32;
    float acc = 0.0f, a = 1.0f;
    for (int r = 0; r < reps; r++) {
        for (int l = 0; l < lines_per_warp; l++) {
            float x = base[l * 32 + lane];
            acc = acc * 0.999f + x;
            a = a * 1.0001f + 0.5f;
            acc = acc + a * 0.001f;
        }
    }
    out[gtid] = acc;
}

// Warp 0 runs a dependent chain before the barrier, the other warps one of
// the same length after it.  With sync = 0 there is no barrier and the chains
// overlap.
extern "C" __global__ void barrier_chain(float *out, int n, int sync)
{
    int warp = threadIdx.x / 32;
    float x = threadIdx.x * 0.5f;
    if (warp == 0)
        for (int i = 0; i < n; i++)
            x = x * 1.0001f + 0.25f;
    if (sync)
        __syncthreads();
    if (warp != 0)
        for (int i = 0; i < n; i++)
            x = x * 1.0001f + 0.25f;
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}
