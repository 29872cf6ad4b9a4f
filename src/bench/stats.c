/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * stats.c - sample statistics for the bench harness: min / avg / median / max and the population
 * standard deviation (Welford's one-pass update, numerically stable for samples that differ only
 * in their last digits), ratios of a variant to the baseline round by round, and the rules
 * that flag a variant's samples as noisy or bimodal (bench_int.h states them).
 *
 * NAN samples (a backend that could not measure) are skipped; with no finite sample every
 * statistic is NAN.  The median of an even count is the mean of the two middle values.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_int.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Copy the finite values of x into a fresh sorted array; returns its length (0: *out = NULL). */
static size_t sorted_finite(const double *x, size_t n, double **out)
{
	double *c = n ? malloc(n * sizeof(*c)) : NULL;
	size_t k = 0;
	*out = NULL;
	if (!c)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (isfinite(x[i]))
			c[k++] = x[i];
	if (!k) {
		free(c);
		return 0;
	}
	qsort(c, k, sizeof(*c), cmp_double);
	*out = c;
	return k;
}

static double median_sorted(const double *c, size_t k)
{
	return k % 2 ? c[k / 2] : (c[k / 2 - 1] + c[k / 2]) / 2;
}

double bench_median(const double *x, size_t n)
{
	double *c;
	size_t k = sorted_finite(x, n, &c);
	if (!k)
		return NAN;
	double m = median_sorted(c, k);
	free(c);
	return m;
}

void bench_stats_compute(const double *x, size_t n, struct bench_stats *st)
{
	double mean = 0, m2 = 0;
	size_t k = 0;

	st->n = 0;
	st->min = st->avg = st->median = st->max = st->pstdev = NAN;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(x[i]))
			continue;
		k++;
		double d = x[i] - mean;
		mean += d / (double)k;
		m2 += d * (x[i] - mean);
		if (k == 1 || x[i] < st->min)
			st->min = x[i];
		if (k == 1 || x[i] > st->max)
			st->max = x[i];
	}
	if (!k)
		return;
	st->n = k;
	st->avg = mean;
	st->pstdev = sqrt(m2 / (double)k);
	st->median = bench_median(x, n);
}

void bench_ratio_compute(const double *v, const double *base, size_t n, struct bench_ratio *r)
{
	double mv = bench_median(v, n), mb = bench_median(base, n);
	int any = 0;

	r->median = (isfinite(mv) && isfinite(mb) && mb != 0) ? mv / mb : NAN;
	r->min = r->max = NAN;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(v[i]) || !isfinite(base[i]) || base[i] == 0)
			continue;
		double q = v[i] / base[i];
		if (!any || q < r->min)
			r->min = q;
		if (!any || q > r->max)
			r->max = q;
		any = 1;
	}
}

double bench_stats_pct(const struct bench_stats *st)
{
	return st->avg > 0 ? 100 * st->pstdev / st->avg : NAN;
}

int bench_stats_noisy(const struct bench_stats *st)
{
	return bench_stats_pct(st) > BENCH_NOISY_PCT;
}

int bench_stats_bimodal(const struct bench_stats *st)
{
	return st->n >= 3 && bench_stats_pct(st) > BENCH_BIMODAL_PCT &&
	       st->min * BENCH_BIMODAL_GAP < st->median;
}
