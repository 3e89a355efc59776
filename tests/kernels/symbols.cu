// Module variables written and read by the host (Device.copy_to_symbol and
// copy_from_symbol, as cudaMemcpyToSymbol / FromSymbol), and dynamic shared
// memory sized at launch (tests/test_device_api.py).
__constant__ float coeff[4];
__device__ int total;

extern "C" __global__ void poly(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    y[i] = coeff[0] + v * (coeff[1] + v * (coeff[2] + v * coeff[3]));
    atomicAdd(&total, 1);
  }
}

// reverses each block's slice through dynamic shared memory
extern "C" __global__ void reverse_block(const int *in, int *out) {
  extern __shared__ int buf[];
  int t = threadIdx.x, base = blockIdx.x * blockDim.x;
  buf[t] = in[base + t];
  __syncthreads();
  out[base + t] = buf[blockDim.x - 1 - t];
}
