/* rng: seeded, reproducible random numbers for the step loop:
 * xoshiro256** (Blackman & Vigna 2018) seeded by splitmix64, and the draws
 * the sim needs. A state is four words; separate states give independent
 * streams. */
#ifndef MLVIZ_RNG_H
#define MLVIZ_RNG_H

#include <stdint.h>

void rng_seed(uint64_t s[4], uint64_t seed);
uint64_t rng_next(uint64_t s[4]);
/* Uniform in (0, 1): never 0, never 1. */
double rng_open01(uint64_t s[4]);
/* The largest of n standard normals, in O(1) whatever n. */
double rng_max_normal(uint64_t s[4], double n);
/* A lognormal factor with mean 1 and coefficient of variation cv. */
double rng_lognormal_mean1(uint64_t s[4], double cv);
/* Exponentially distributed with the given rate (mean 1 / rate). */
double rng_exp(uint64_t s[4], double rate);

#endif
