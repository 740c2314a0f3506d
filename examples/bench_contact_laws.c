/* Cost per call of the compliant-contact kernels of seed 001 (c_opt closed
 * form and exact, Hunt-Crossley factors, Kelvin-Voigt restitution, impact
 * simulation). Inputs are drawn at random over the paper's ranges (Sect. 5.1).
 *
 *   bench_contact_laws [--json] [--calls N] */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "example_cli.h"
#include "nscd/nscd.h"

enum { SAMPLES = 1024 };

typedef struct inputs {
    double m[SAMPLES], k[SAMPLES], n[SAMPLES], v[SAMPLES], e[SAMPLES], xi[SAMPLES];
} inputs;

static double uniform(unsigned *state) {
    *state = *state * 1664525u + 1013904223u;
    return (*state >> 8) / 16777216.0;
}

static void draw(inputs *in) {
    unsigned s = 12345u;
    for (int i = 0; i < SAMPLES; ++i) {
        in->m[i] = pow(10.0, -5.0 + 7.0 * uniform(&s));
        in->k[i] = pow(10.0, 5.0 + 5.0 * uniform(&s));
        in->v[i] = pow(10.0, -3.0 + 5.0 * uniform(&s));
        in->n[i] = 1.0 + uniform(&s);
        in->e[i] = fmax(1e-4, uniform(&s));
        in->xi[i] = 3.0 * uniform(&s);
    }
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

typedef struct result {
    const char *name;
    double ns;
} result;

static volatile double sink;

static double bench_copt(const inputs *in, long calls, int exact) {
    double sum = 0.0, t0 = now();
    for (long c = 0; c < calls; ++c) {
        int i = (int)(c % SAMPLES);
        double out = 0.0;
        if (exact) {
            nscd_copt_exact(in->m[i], in->k[i], in->n[i], in->v[i], in->e[i], &out);
        } else {
            nscd_copt_closed_form(in->m[i], in->k[i], in->n[i], in->v[i], in->e[i], &out);
        }
        sum += out;
    }
    sink = sum;
    return 1e9 * (now() - t0) / calls;
}

static double bench_hc(const inputs *in, long calls, int model) {
    double sum = 0.0, t0 = now();
    for (long c = 0; c < calls; ++c) {
        int i = (int)(c % SAMPLES);
        double mu = 0.0;
        nscd_hunt_crossley_factor(model, in->k[i], in->e[i], in->v[i], &mu);
        sum += mu;
    }
    sink = sum;
    return 1e9 * (now() - t0) / calls;
}

static double bench_kv(const inputs *in, long calls, int unused) {
    (void)unused;
    double sum = 0.0, t0 = now();
    for (long c = 0; c < calls; ++c) {
        double e = 0.0;
        nscd_kelvin_voigt_restitution(in->xi[c % SAMPLES], &e);
        sum += e;
    }
    sink = sum;
    return 1e9 * (now() - t0) / calls;
}

/* One law per sample (its own k, n, e), simulated at the sample's m and v. */
static double bench_impact(const inputs *in, long calls, int which) {
    double sum = 0.0, elapsed = 0.0;
    for (long c = 0; c < calls; ++c) {
        int i = (int)(c % SAMPLES);
        nscd_contact_law *law = NULL;
        if (which == 0) {
            nscd_contact_law_create_hertz_damper(in->k[i], in->n[i], in->e[i], NSCD_COPT_EXACT,
                                                 NSCD_INDENTATION_TEMPORARY, NULL, &law);
        } else if (which == 1) {
            nscd_contact_law_create_hunt_crossley(in->k[i], in->n[i], in->e[i], NSCD_HC_GONTHIER,
                                                  NULL, &law);
        } else {
            double c_kv = 2.0 * in->xi[i] * sqrt(in->k[i] * in->m[i]);
            nscd_contact_law_create_kelvin_voigt(in->k[i], c_kv, NSCD_INDENTATION_TEMPORARY, NULL,
                                                 &law);
        }
        nscd_central_impact_result r = {.struct_size = sizeof r};
        double t0 = now();
        nscd_central_impact(law, in->m[i], in->v[i], &r);
        elapsed += now() - t0;
        sum += r.e_out;
        nscd_contact_law_destroy(law);
    }
    sink = sum;
    return 1e9 * elapsed / calls;
}

typedef double (*bench_fn)(const inputs *in, long calls, int arg);

/* Best of several repetitions: the machine may be shared, and the fastest
 * run is the one least disturbed by other processes. */
static double best_of(bench_fn fn, const inputs *in, long calls, int arg) {
    double best = INFINITY;
    for (int rep = 0; rep < 5; ++rep) {
        double ns = fn(in, calls, arg);
        best = ns < best ? ns : best;
    }
    return best;
}

static const char usage_text[] = "usage: bench_contact_laws [--json] [--calls N]";

int main(int argc, char **argv) {
    cli_check(argc, argv, usage_text);
    long calls = (long)cli_double(argc, argv, "--calls", 4e5);
    long sims = calls / 200 > 10 ? calls / 200 : 10;
    static inputs in;
    draw(&in);
    result r[] = {
        {"nscd_copt_closed_form", best_of(bench_copt, &in, calls, 0)},
        {"nscd_copt_exact", best_of(bench_copt, &in, calls, 1)},
        {"nscd_hunt_crossley_factor(HUNT_CROSSLEY)",
         best_of(bench_hc, &in, calls, NSCD_HC_HUNT_CROSSLEY)},
        {"nscd_hunt_crossley_factor(LANKARANI_NIKRAVESH)",
         best_of(bench_hc, &in, calls, NSCD_HC_LANKARANI_NIKRAVESH)},
        {"nscd_hunt_crossley_factor(HU_GUO)", best_of(bench_hc, &in, calls, NSCD_HC_HU_GUO)},
        {"nscd_hunt_crossley_factor(FLORES)", best_of(bench_hc, &in, calls, NSCD_HC_FLORES)},
        {"nscd_hunt_crossley_factor(GONTHIER)",
         best_of(bench_hc, &in, calls / 10, NSCD_HC_GONTHIER)},
        {"nscd_kelvin_voigt_restitution", best_of(bench_kv, &in, calls, 0)},
        {"nscd_central_impact(hertz_damper exact)", bench_impact(&in, sims, 0)},
        {"nscd_central_impact(hunt_crossley gonthier)", bench_impact(&in, sims, 1)},
        {"nscd_central_impact(kelvin_voigt)", bench_impact(&in, sims, 2)},
    };
    int count = (int)(sizeof r / sizeof r[0]);
    double ratio = r[1].ns / r[0].ns;
    if (cli_has_flag(argc, argv, "--json")) {
        printf("{\"calls\":%ld,\"functions\":[", calls);
        for (int i = 0; i < count; ++i) {
            printf("%s{\"name\":\"%s\",\"ns_per_call\":", i ? "," : "", r[i].name);
            json_number(stdout, r[i].ns);
            printf("}");
        }
        printf("],\"exact_over_closed_form\":");
        json_number(stdout, ratio);
        printf("}\n");
        return 0;
    }
    for (int i = 0; i < count; ++i) {
        printf("%-50s %12.1f ns/call\n", r[i].name, r[i].ns);
    }
    printf("cost of nscd_copt_exact / nscd_copt_closed_form: %.2f\n", ratio);
    return 0;
}
