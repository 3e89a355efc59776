// Black-Scholes European option pricing (call and put) with the
// Abramowitz-Stegun polynomial for the normal CDF. The host prices the option
// book in many batches, one launch per batch.
__device__ float cnd(float d) {
  const float a1 = 0.31938153f, a2 = -0.356563782f, a3 = 1.781477937f,
              a4 = -1.821255978f, a5 = 1.330274429f;
  float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
  float c = 0.3989422804f * expf(-0.5f * d * d) *
            (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
  return d > 0 ? 1.0f - c : c;
}

extern "C" __global__ void black_scholes(const float *spot, const float *strike,
                                         const float *years, float *call, float *put,
                                         float rate, float vol, int offset, int count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  i += offset;
  float s = spot[i], x = strike[i], t = years[i];
  float sq = sqrtf(t);
  float d1 = (logf(s / x) + (rate + 0.5f * vol * vol) * t) / (vol * sq);
  float d2 = d1 - vol * sq;
  float e = expf(-rate * t);
  float c1 = cnd(d1), c2 = cnd(d2);
  call[i] = s * c1 - x * e * c2;
  put[i] = x * e * (1.0f - c2) - s * (1.0f - c1);
}
