// Backprop: one training step of a two-layer perceptron's input layer, after
// Rodinia's backprop. bp_forward: each 16 x 16 block multiplies a tile of
// inputs by the weights and reduces the columns in shared memory (a
// per-block partial sum of each hidden unit, summed by the host);
// bp_adjust: the weight update with momentum, one thread per weight.
#define TB 16
extern "C" __global__ void bp_forward(const float *input, const float *w, float *partial, int in, int hid) {
  __shared__ float node[TB];
  __shared__ float m[TB][TB];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TB + ty;       // input unit
  int col = blockIdx.x * TB + tx;       // hidden unit
  if (tx == 0) node[ty] = input[row];
  __syncthreads();
  m[ty][tx] = w[row * hid + col] * node[ty];
  __syncthreads();
  for (int s = 1; s < TB; s <<= 1) {
    if (ty % (2 * s) == 0) m[ty][tx] += m[ty + s][tx];
    __syncthreads();
  }
  if (ty == 0) partial[blockIdx.y * hid + col] = m[0][tx];
}

extern "C" __global__ void bp_adjust(float *w, float *oldw, const float *delta, const float *input, int in, int hid,
                                     float eta, float momentum) {
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TB + ty, col = blockIdx.x * TB + tx;
  int i = row * hid + col;
  float dw = eta * delta[col] * input[row] + momentum * oldw[i];
  w[i] += dw;
  oldw[i] = dw;
}
