// Kernels that exercise emulator semantics for the tests (not benchmarks).

// Nested divergent branches inside a loop, a divergent loop exit and an
// early return.
extern "C" __global__ void divergence(const int *in, int *out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  int v = in[t];
  if (v < 0) {  // early return inside divergence
    out[t] = -1;
    return;
  }
  int acc = 0;
  for (int i = 0; i < v % 13; ++i) {
    if (i & 1) {
      if (t % 3 == 0) acc += 2 * i;
      else acc -= 1;
    } else {
      acc += t & 7;
    }
    if (acc > 40) break;  // divergent loop exit
  }
  out[t] = acc;
}

// Warp-level primitives.
extern "C" __global__ void warp_ops(const int *in, int *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[t];
  int lane = threadIdx.x & 31;
  out[6 * t + 0] = __shfl_down_sync(0xffffffffu, v, 3);
  out[6 * t + 1] = __shfl_up_sync(0xffffffffu, v, 5);
  out[6 * t + 2] = __shfl_xor_sync(0xffffffffu, v, 9);
  out[6 * t + 3] = __shfl_sync(0xffffffffu, v, (lane * 7) & 31);
  out[6 * t + 4] = __ballot_sync(0xffffffffu, v & 1);
  out[6 * t + 5] = __any_sync(0xffffffffu, v > 1000) + 2 * __all_sync(0xffffffffu, v >= 0);
}

// Barrier exchange through shared memory; the last warp exits before the
// barrier (exited warps count as arrived).
extern "C" __global__ void barrier_reverse(const int *in, int *out) {
  __shared__ int buf[128];
  int t = threadIdx.x;
  if (t >= 96) return;
  buf[t] = in[blockIdx.x * 96 + t] * 2;
  __syncthreads();
  out[blockIdx.x * 96 + t] = buf[95 - t] + 1;
}

// A dynamically indexed per-thread array lives in local memory.
extern "C" __global__ void local_array(const int *in, int *out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  int a[16];
  for (int i = 0; i < 16; ++i) a[(i * 5 + t) & 15] = in[t] + i;
  int s = 0;
  for (int i = 0; i < 16; ++i) s += a[(in[t] + i * 3) & 15] * (i + 1);
  out[t] = s;
}

// Atomics: returned old values reveal the order of application.
extern "C" __global__ void atomics(int *ticket, int *order, unsigned long long *mx,
                                   float *fsum, int *cas_slot, int *cas_won,
                                   unsigned *inc, int *shared_out) {
  __shared__ int s_count;
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0) s_count = 0;
  __syncthreads();
  order[t] = atomicAdd(ticket, 1);
  atomicMax(mx, (unsigned long long)t * 1000003ull % 4093ull);
  atomicAdd(fsum, 0.5f);
  cas_won[t] = atomicCAS(cas_slot, -1, t) == -1;
  atomicInc(inc, 9u);
  atomicAdd(&s_count, threadIdx.x);
  __syncthreads();
  if (threadIdx.x == 0) shared_out[blockIdx.x] = s_count;
}

// Vector, narrow and double-precision memory accesses.
extern "C" __global__ void mem_widths(const float4 *v4, float4 *o4, const unsigned char *u8,
                                      const short *s16, const double *d, double *od,
                                      int *o32, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  float4 x = __ldg(&v4[t]);
  o4[t] = make_float4(x.w, x.z + 1.0f, x.y * 2.0f, x.x - x.y);
  od[t] = d[t] * d[t] + 1.0 / (d[t] + 3.0);
  o32[t] = (int)u8[t] + (int)s16[t];
}
