// N-body: all-pairs gravitational accelerations with softening, bodies
// staged through shared memory in tiles of one block (compute-bound:
// 20 flops and an rsqrt per pair), then a leapfrog update of velocities and
// positions. Two launches per time step.
#define B 128
extern "C" __global__ void nbody_accel(const float *px, const float *py, const float *pz, const float *m,
                                       float *ax, float *ay, float *az, int n, float eps2) {
  __shared__ float sx[B], sy[B], sz[B], sm[B];
  int t = threadIdx.x, i = blockIdx.x * B + t;
  float xi = i < n ? px[i] : 0.0f, yi = i < n ? py[i] : 0.0f, zi = i < n ? pz[i] : 0.0f;
  float accx = 0.0f, accy = 0.0f, accz = 0.0f;
  for (int tile = 0; tile < n; tile += B) {
    int j = tile + t;
    sx[t] = j < n ? px[j] : 0.0f;
    sy[t] = j < n ? py[j] : 0.0f;
    sz[t] = j < n ? pz[j] : 0.0f;
    sm[t] = j < n ? m[j] : 0.0f;
    __syncthreads();
    for (int k = 0; k < B; ++k) {
      float dx = sx[k] - xi, dy = sy[k] - yi, dz = sz[k] - zi;
      float inv = rsqrtf(dx * dx + dy * dy + dz * dz + eps2);
      float s = sm[k] * inv * inv * inv;
      accx += dx * s;
      accy += dy * s;
      accz += dz * s;
    }
    __syncthreads();
  }
  if (i < n) {
    ax[i] = accx;
    ay[i] = accy;
    az[i] = accz;
  }
}

extern "C" __global__ void nbody_update(float *px, float *py, float *pz, float *vx, float *vy, float *vz,
                                        const float *ax, const float *ay, const float *az, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  vx[i] += dt * ax[i];
  vy[i] += dt * ay[i];
  vz[i] += dt * az[i];
  px[i] += dt * vx[i];
  py[i] += dt * vy[i];
  pz[i] += dt * vz[i];
}
