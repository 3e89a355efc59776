// Kernels that use what the emulator does not support, next to one that it
// does: the module must still load and run `supported`, and each of the
// others must fail with a message naming the instruction (tests/test_errors.py).
#include <cstdio>
#include <cuda_fp16.h>

extern "C" __global__ void supported(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * i;
}

// printf compiles to a call sequence (call.uni vprintf with .param arguments)
extern "C" __global__ void uses_printf(int *out) {
  printf("thread %d\n", threadIdx.x);
  out[threadIdx.x] = 1;
}

// double-precision exp packs and unpacks 32-bit halves with mov.b64 {a, b}
extern "C" __global__ void uses_double_exp(double *out) {
  out[threadIdx.x] = exp(out[threadIdx.x]);
}

extern "C" __global__ void uses_texture(cudaTextureObject_t t, float *out) {
  out[threadIdx.x] = tex1Dfetch<float>(t, threadIdx.x);
}

extern "C" __global__ void uses_half(__half *out) {
  out[threadIdx.x] = __hadd(out[threadIdx.x], out[threadIdx.x + 1]);
}
