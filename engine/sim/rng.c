/* rng: the random numbers of the step loop (see rng.h). */
#include "rng.h"

#include <math.h>

#include "model.h"

/* ---- random numbers: xoshiro256** seeded by splitmix64 (Blackman & Vigna 2018) -- */

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void rng_seed(uint64_t s[4], uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        s[i] = splitmix64(&x);
}

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t rng_next(uint64_t s[4])
{
    uint64_t r = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return r;
}

/* Uniform in (0, 1): never 0, never 1. */
double rng_open01(uint64_t s[4])
{
    return ((double)(rng_next(s) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

/* The largest of n standard normals, drawn exactly in O(1): P(max <= x) =
 * Phi(x)^n, so with U uniform, max = Phi^-1(U^(1/n)); the upper tail
 * 1 - U^(1/n) = -expm1(ln U / n) keeps its precision for n up to millions. */
double rng_max_normal(uint64_t s[4], double n)
{
    double u = rng_open01(s);
    double q = -expm1(log(u) / (n > 1.0 ? n : 1.0));
    return model_normal_upper_quantile(q);
}

/* A lognormal factor with mean 1 and coefficient of variation cv. */
double rng_lognormal_mean1(uint64_t s[4], double cv)
{
    if (cv <= 0)
        return 1.0;
    double sigma2 = log1p(cv * cv);
    double z = model_normal_upper_quantile(rng_open01(s));
    return exp(sqrt(sigma2) * z - 0.5 * sigma2);
}

double rng_exp(uint64_t s[4], double rate)
{
    return -log(rng_open01(s)) / rate;
}
