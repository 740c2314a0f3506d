/* The model problem of seed 003 (Sect. 2.8, eq. 91, Figs. 7-18): the 3-dof
 * mass-spring chain (examples/common/chain_model.h) integrated by every
 * time-stepping scheme of the library, against the exact modal solution.
 *
 * Model (a): mass 3 on a stiff spring k0 = 1e7 N/m (omega dt = 3.16 at
 * dt = 1e-3: explicit schemes diverge). Model (b): mass 3 held at q3 = 0 by
 * a bilateral constraint, whose force is read with
 * nscd_time_stepping_get_contact_force() (the equality entry follows the
 * contacts: index 0 here).
 *
 * For each scheme (moreau_jean theta = 1/2 with implicit forces through the
 * stiffness callback, moreau_midpoint, hets, generalized_alpha with
 * rho_inf = 1, 0.8, 0.5, 0, bathe, ed_alpha with rho_inf = 0 and 0.8,
 * alpha_AR = 1/6) and model, runs from rest at q = 0 to t = 10 s with
 * dt = 1e-2, 5e-3, 2.5e-3, 1.25e-3, 6.25e-4 (the observed order: the
 * least-squares slope of log error against log dt) and 1e-3 (the paper's
 * step). Model (b) is also run with the constraints on the velocity and
 * the acceleration level and with the paper's and the consistent start
 * (the α schemes) at --study-dt (default 1e-2): the oscillation of the
 * constraint force and the drift of q3 (Figs. 17-18). A scheme the library
 * does not have (NSCD_ERR_UNSUPPORTED at creation) is listed under
 * "unsupported" and has no runs.
 *
 * A run is unstable when the stepper reports a state that is not finite
 * (NSCD_ERR_NOT_FINITE) or |q| exceeds 1e3 m (the exact motion stays below
 * 40 m): "stable": false, its errors null; it never stops the program.
 *
 * Spectral radius and relative period error against dt / T (Figs. 7-12),
 * from the library's own trajectories on an undamped oscillator
 * (examples/common/amplification.h), dt / T from 1e-3 to 1e3.
 *
 * Usage: model_problem [--json] [--csv FILE] [--histories] [--quick]
 *                      [--scheme NAME] [--study-dt 1e-2] [--t-end 10]
 *   --histories  adds per-step histories (the dt = 1e-3 runs of model (a),
 *                the level/start runs of model (b)) and the exact ones;
 *   --quick      dt = 1e-2, 5e-3, 2.5e-3 and 1e-3 only, 13 spectral points;
 *   --scheme     runs one scheme only (a JSON name);
 *   --fit-samples reads lines "Omega y..." (two runs of AMPLIFICATION_STEPS + 1
 *                samples (q, v / omega), as amplification_from_samples()
 *                takes them) from stdin and prints the recovered spectral
 *                radius and period error of each: the estimator alone, on
 *                any scheme's trajectories (the pytest feeds it the
 *                reference's).                                               */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "amplification.h"
#include "chain_model.h"
#include "example_cli.h"
#include <nscd/nscd.h>

#define MAX_RUNS 256
#define MAX_DTS 8
#define DIVERGED 1e3 /* m: |q| beyond this is divergence (exact |q| < 40 m) */

/* ------------------------------------------------------------ schemes */

typedef struct scheme_case {
    const char *name; /* the JSON name */
    int32_t scheme;
    double rho_inf; /* NAN: not a parameter of the scheme (JSON null) */
    int alpha;      /* an α scheme: has levels and starts */
} scheme_case;

static const scheme_case CASES[] = {
    {"moreau_jean", NSCD_TS_MOREAU_JEAN, NAN, 0},
    {"moreau_midpoint", NSCD_TS_MOREAU_MIDPOINT, NAN, 0},
    {"hets", NSCD_TS_HALF_EXPLICIT, NAN, 0},
    {"generalized_alpha", NSCD_TS_GENERALIZED_ALPHA, 1.0, 1},
    {"generalized_alpha", NSCD_TS_GENERALIZED_ALPHA, 0.8, 1},
    {"generalized_alpha", NSCD_TS_GENERALIZED_ALPHA, 0.5, 1},
    {"generalized_alpha", NSCD_TS_GENERALIZED_ALPHA, 0.0, 1},
    {"bathe", NSCD_TS_BATHE, NAN, 1},
    {"ed_alpha", NSCD_TS_ED_ALPHA, 0.0, 1},
    {"ed_alpha", NSCD_TS_ED_ALPHA, 0.8, 1},
};
enum { N_CASES = sizeof CASES / sizeof CASES[0] };

static const char *LEVELS[] = {"velocity", "acceleration"};
static const char *STARTS[] = {"consistent", "paper"};

/* The stepper's options of a case: theta = 1/2 and implicit forces (AUTO
 * with the stiffness callback) for Moreau–Jean, alpha_AR = 1/6 for ED-α. */
static void case_options(const scheme_case *sc, double dt, int32_t level, int32_t start,
                         nscd_time_stepping_options *opt) {
    nscd_time_stepping_options_init(opt, sizeof *opt);
    opt->scheme = sc->scheme;
    opt->dt = dt;
    opt->theta = 0.5;
    opt->forces = NSCD_TS_FORCES_AUTO;
    opt->rho_infinity = isnan(sc->rho_inf) ? 1.0 : sc->rho_inf;
    opt->alpha_ar = 1.0 / 6.0;
    opt->level = level;
    opt->start = start;
}

/* The impulse schemes' force is the step's mean, P / dt: compared with the
 * exact force at the step's middle; the α schemes' at its end. */
static int impulse_scheme(const scheme_case *sc) { return !sc->alpha; }

/* ------------------------------------------------------------ one run */

typedef struct sample {
    double t, q[3], v[3], lambda;
} sample;

typedef struct history {
    int count, capacity;
    sample *s;
    double every_step_until; /* every step up to this time, then every `stride` s */
    double stride, next;
} history;

typedef struct run_spec {
    char model;
    const scheme_case *sc;
    double dt, t_end;
    int32_t level, start;
    int record; /* keep a history */
} run_spec;

/* What the observer accumulates over a run (model (b): the constraint). */
typedef struct run_stats {
    double max_abs_q;
    int diverged;
    int64_t steps;
    double err[3]; /* the last three lambda errors (oscillation) */
    int n_err;
    double lambda_end, lambda_error_max, oscillation, oscillation_late;
    double q3_max, v3_max;
    double st, sq, stt, stq, n; /* least-squares slope of q3(t) */
} run_stats;

typedef struct run_result {
    run_spec spec;
    nscd_status status;
    int stable;
    double t_reached, q_end[3], v_end[3];
    double sample_t[3], sample_q[3][3], sample_v[3][3];
    int n_samples;
    run_stats stats;
    history hist;
    double seconds;
} run_result;

typedef struct observer {
    nscd_system *sys;
    nscd_time_stepping *ts;
    const chain_exact *exact;
    const run_spec *spec;
    run_stats *stats;
    history *hist;
} observer;

static void history_add(history *h, const sample *s) {
    if (h->count == h->capacity) {
        int cap = h->capacity ? 2 * h->capacity : 1024;
        sample *grown = realloc(h->s, (size_t)cap * sizeof *grown);
        if (grown == NULL) {
            return; /* the history is an extra: a short one is still valid */
        }
        h->s = grown;
        h->capacity = cap;
    }
    h->s[h->count++] = *s;
}

/* The constraint's force and drift of model (b) after a step at t. */
static void observe_constraint(observer *o, double t, const double *q, const double *v,
                               double lambda) {
    run_stats *st = o->stats;
    double t_ref = impulse_scheme(o->spec->sc) ? t - 0.5 * o->spec->dt : t;
    double e = lambda - chain_exact_lambda(o->exact, t_ref);
    st->lambda_end = lambda;
    st->lambda_error_max = fmax(st->lambda_error_max, fabs(e));
    st->err[0] = st->err[1];
    st->err[1] = st->err[2];
    st->err[2] = e;
    if (++st->n_err >= 3) { /* an alternating e_n = +-A has |second difference| / 4 = A */
        double osc = fabs(st->err[2] - 2.0 * st->err[1] + st->err[0]) / 4.0;
        st->oscillation = fmax(st->oscillation, osc);
        if (t >= o->spec->t_end - 1.0) {
            st->oscillation_late = fmax(st->oscillation_late, osc);
        }
    }
    st->q3_max = fmax(st->q3_max, fabs(q[2]));
    st->v3_max = fmax(st->v3_max, fabs(v[2]));
    st->n += 1.0;
    st->st += t;
    st->sq += q[2];
    st->stt += t * t;
    st->stq += t * q[2];
}

static int32_t on_step(void *user, const nscd_time_stepping_report *report) {
    observer *o = user;
    sample s = {.t = report->t, .lambda = NAN};
    nscd_system_get_state(o->sys, NULL, s.q, s.v);
    o->stats->steps++;
    for (int i = 0; i < 3; ++i) {
        o->stats->max_abs_q = fmax(o->stats->max_abs_q, fabs(s.q[i]));
    }
    if (o->spec->model == 'b') {
        nscd_time_stepping_get_contact_force(o->ts, 0, &s.lambda, NULL);
        observe_constraint(o, s.t, s.q, s.v, s.lambda);
    }
    history *h = o->hist;
    if (h != NULL && (s.t <= h->every_step_until + 1e-12 || s.t >= h->next - 1e-12)) {
        history_add(h, &s);
        while (h->next <= s.t + 1e-12) {
            h->next += h->stride;
        }
    }
    if (!(o->stats->max_abs_q <= DIVERGED)) { /* growing: unstable, stop here */
        o->stats->diverged = 1;
        return 1;
    }
    return 0;
}

static double seconds_now(void) {
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Advances through the sample times 1, 5 and t_end (those below t_end). */
static nscd_status advance_with_samples(nscd_time_stepping *ts, nscd_system *sys, run_result *r) {
    const double marks[3] = {1.0, 5.0, r->spec.t_end};
    nscd_status rc = NSCD_OK;
    for (int k = 0; k < 3 && rc == NSCD_OK && !r->stats.diverged; ++k) {
        if (marks[k] > r->spec.t_end || (k < 2 && marks[k] == r->spec.t_end)) {
            continue;
        }
        rc = nscd_time_stepping_advance(ts, marks[k], NULL);
        if (rc == NSCD_OK && !r->stats.diverged) {
            int i = r->n_samples++;
            r->sample_t[i] = marks[k];
            nscd_system_get_state(sys, NULL, r->sample_q[i], r->sample_v[i]);
        }
    }
    return rc;
}

/* One run; its status is the stepper's (UNSUPPORTED: the scheme is missing). */
static void run_one(const run_spec *spec, const chain_exact *exact, run_result *r) {
    memset(r, 0, sizeof *r);
    r->spec = *spec;
    r->stats.lambda_end = NAN;
    nscd_system *sys = NULL;
    nscd_time_stepping *ts = NULL;
    observer o = {.exact = exact, .spec = &r->spec, .stats = &r->stats};
    if (spec->record) {
        int fine_b = spec->model == 'b';
        r->hist.every_step_until = fine_b ? 1.0 : 0.02;
        r->hist.stride = fine_b ? 0.1 : 0.01;
        r->hist.next = r->hist.every_step_until;
        o.hist = &r->hist;
    }
    nscd_time_stepping_options opt;
    case_options(spec->sc, spec->dt, spec->level, spec->start, &opt);
    opt.on_step = on_step;
    opt.on_step_user = &o;
    double t0 = seconds_now();
    r->status = chain_model_create(exact->c, &sys);
    if (r->status == NSCD_OK) {
        r->status = nscd_time_stepping_create(sys, &opt, &ts);
    }
    o.sys = sys;
    o.ts = ts;
    if (r->status == NSCD_OK) {
        r->status = advance_with_samples(ts, sys, r);
    }
    r->seconds = seconds_now() - t0;
    if (sys != NULL) {
        nscd_system_get_state(sys, &r->t_reached, r->q_end, r->v_end);
    }
    r->stable = r->status == NSCD_OK && !r->stats.diverged;
    nscd_time_stepping_destroy(ts);
    nscd_system_destroy(sys);
}

/* max |q_i - q_i exact| over i in [from, to) at t_end; NAN for an unstable run. */
static double run_error(const run_result *r, const chain_exact *exact, int from, int to) {
    if (!r->stable) {
        return NAN;
    }
    double q[3], err = 0.0;
    chain_exact_state(exact, r->t_reached, q, NULL, NULL);
    for (int i = from; i < to; ++i) {
        err = fmax(err, fabs(r->q_end[i] - q[i]));
    }
    return err;
}

/* ------------------------------------------------------------ the plan */

typedef struct plan {
    double dts[MAX_DTS]; /* the convergence study */
    int n_dts;
    double paper_dt, study_dt, t_end;
    int spectral_points;
    int histories;
    const char *only; /* one scheme, or NULL */
} plan;

typedef struct results {
    run_result runs[MAX_RUNS];
    int n_runs;
    /* refused at creation: (case, level, start) */
    int unsupported[N_CASES][2][2];
} results;

static int dt_in_list(const plan *p, double dt) {
    for (int i = 0; i < p->n_dts; ++i) {
        if (p->dts[i] == dt) {
            return 1;
        }
    }
    return 0;
}

/* Runs one spec; a scheme the library refuses is noted, not kept. */
static void plan_run(results *res, const run_spec *spec, const chain_exact *exact) {
    if (res->n_runs == MAX_RUNS) {
        return;
    }
    run_result *r = &res->runs[res->n_runs];
    run_one(spec, exact, r);
    if (r->status == NSCD_ERR_UNSUPPORTED && r->t_reached == 0.0) {
        res->unsupported[spec->sc - CASES][spec->level][spec->start] = 1;
        free(r->hist.s);
        return;
    }
    res->n_runs++;
}

static void run_all(const plan *p, const chain_exact exact[2], results *res) {
    for (int ci = 0; ci < N_CASES; ++ci) {
        const scheme_case *sc = &CASES[ci];
        if (p->only != NULL && strcmp(p->only, sc->name) != 0) {
            continue;
        }
        for (int m = 0; m < 2; ++m) {
            char model = (char)('a' + m);
            for (int i = 0; i <= p->n_dts; ++i) { /* the study's steps, then the paper's */
                double dt = i < p->n_dts ? p->dts[i] : p->paper_dt;
                if (i == p->n_dts && dt_in_list(p, dt)) {
                    continue;
                }
                int record = p->histories && ((model == 'a' && dt == p->paper_dt) ||
                                              (model == 'b' && dt == p->study_dt));
                run_spec spec = {
                    model, sc, dt, p->t_end, NSCD_TS_LEVEL_VELOCITY, NSCD_TS_START_CONSISTENT,
                    record};
                plan_run(res, &spec, &exact[m]);
            }
        }
        for (int combo = 1; sc->alpha && combo < 4; ++combo) { /* model (b): levels, starts */
            run_spec spec = {'b', sc, p->study_dt, p->t_end, combo & 1, combo >> 1, p->histories};
            plan_run(res, &spec, &exact[1]);
        }
    }
}

/* ------------------------------------------------------------ JSON */

static void json_rho(double rho_inf) { json_number(stdout, rho_inf); }

/* A stable identifier of a status for the JSON ("ok", "not_finite", ...). */
static const char *status_name(nscd_status rc) {
    switch (rc) {
    case NSCD_OK: return "ok";
    case NSCD_ERR_NOT_FINITE: return "not_finite";
    case NSCD_ERR_NOT_CONVERGED: return "not_converged";
    case NSCD_ERR_UNSUPPORTED: return "unsupported";
    case NSCD_ERR_SINGULAR: return "singular";
    default: return "error";
    }
}

static void json_case_head(const scheme_case *sc) {
    printf("\"scheme\":\"%s\",\"rho_inf\":", sc->name);
    json_rho(sc->rho_inf);
}

static void json_constraint(const run_result *r) {
    const run_stats *s = &r->stats;
    double den = s->n * s->stt - s->st * s->st;
    double slope = den > 0.0 ? (s->n * s->stq - s->st * s->sq) / den : NAN;
    printf(",\"constraint\":{\"lambda_end\":");
    json_number(stdout, s->lambda_end);
    printf(",\"lambda_error_max\":");
    json_number(stdout, r->stable ? s->lambda_error_max : NAN);
    printf(",\"lambda_oscillation\":");
    json_number(stdout, r->stable ? s->oscillation : NAN);
    printf(",\"lambda_oscillation_late\":");
    json_number(stdout, r->stable ? s->oscillation_late : NAN);
    printf(",\"q3_end\":");
    json_number(stdout, r->q_end[2]);
    printf(",\"v3_end\":");
    json_number(stdout, r->v_end[2]);
    printf(",\"q3_max\":");
    json_number(stdout, s->q3_max);
    printf(",\"v3_max\":");
    json_number(stdout, s->v3_max);
    printf(",\"q3_slope\":");
    json_number(stdout, slope);
    printf("}");
}

static void json_history(const history *h) {
    printf(",\"history\":{\"t\":[");
    for (int i = 0; i < h->count; ++i) {
        printf(i ? "," : "");
        json_number(stdout, h->s[i].t);
    }
    printf("],\"q\":[");
    for (int i = 0; i < h->count; ++i) {
        printf(i ? "," : "");
        json_array(stdout, h->s[i].q, 3);
    }
    printf("],\"v\":[");
    for (int i = 0; i < h->count; ++i) {
        printf(i ? "," : "");
        json_array(stdout, h->s[i].v, 3);
    }
    printf("],\"lambda\":[");
    for (int i = 0; i < h->count; ++i) {
        printf(i ? "," : "");
        json_number(stdout, h->s[i].lambda);
    }
    printf("]}");
}

static void json_samples(const run_result *r, const chain_exact *exact) {
    printf(",\"samples\":[");
    for (int i = 0; i < r->n_samples; ++i) {
        double q[3], err = 0.0;
        chain_exact_state(exact, r->sample_t[i], q, NULL, NULL);
        for (int k = 0; k < 2; ++k) {
            err = fmax(err, fabs(r->sample_q[i][k] - q[k]));
        }
        printf("%s{\"t\":", i ? "," : "");
        json_number(stdout, r->sample_t[i]);
        printf(",\"q\":");
        json_array(stdout, r->sample_q[i], 3);
        printf(",\"v\":");
        json_array(stdout, r->sample_v[i], 3);
        printf(",\"error_q\":");
        json_number(stdout, r->stable || i + 1 < r->n_samples ? err : NAN);
        printf("}");
    }
    printf("]");
}

static void json_run(const run_result *r, const chain_exact *exact) {
    const run_spec *s = &r->spec;
    printf("{\"model\":\"%c\",", s->model);
    json_case_head(s->sc);
    printf(",\"dt\":%.17g,\"level\":\"%s\",\"start\":\"%s\",\"stable\":%s,\"status\":\"%s\"", s->dt,
           LEVELS[s->level], STARTS[s->start], r->stable ? "true" : "false",
           status_name(r->status));
    if (r->status != NSCD_OK) {
        printf(",\"error\":\"%s\"", nscd_status_string(r->status));
    }
    printf(",\"t_end\":%.17g,\"t_reached\":%.17g,\"steps\":%lld,\"q_end\":", s->t_end, r->t_reached,
           (long long)r->stats.steps);
    json_array(stdout, r->q_end, 3);
    printf(",\"v_end\":");
    json_array(stdout, r->v_end, 3);
    printf(",\"error_q\":");
    json_number(stdout, run_error(r, exact, 0, 2));
    printf(",\"error_q1\":");
    json_number(stdout, run_error(r, exact, 0, 1));
    printf(",\"error_q3\":");
    json_number(stdout, run_error(r, exact, 2, 3));
    printf(",\"lambda_end\":");
    json_number(stdout, s->model == 'b' && r->stable ? r->stats.lambda_end : NAN);
    json_samples(r, exact);
    if (s->model == 'b') {
        json_constraint(r);
    }
    if (s->record) {
        json_history(&r->hist);
    }
    printf(",\"cpu_seconds\":%.6g}", r->seconds);
}

/* Least-squares slope of log error against log dt over the stable runs of
 * the convergence study (at least two). */
static void json_orders(const plan *p, const results *res, const chain_exact exact[2]) {
    int first = 1;
    for (int m = 0; m < 2; ++m) {
        for (int ci = 0; ci < N_CASES; ++ci) {
            double x[MAX_DTS], y[MAX_DTS];
            int n = 0;
            for (int i = 0; i < res->n_runs; ++i) {
                const run_result *r = &res->runs[i];
                double err = run_error(r, &exact[m], 0, 2);
                if (r->spec.sc == &CASES[ci] && r->spec.model == 'a' + m &&
                    r->spec.level == NSCD_TS_LEVEL_VELOCITY &&
                    r->spec.start == NSCD_TS_START_CONSISTENT && dt_in_list(p, r->spec.dt) &&
                    err > 0.0) {
                    x[n] = log(r->spec.dt);
                    y[n++] = log(err);
                }
            }
            if (n < 2) {
                continue;
            }
            double sx = 0, sy = 0, sxx = 0, sxy = 0;
            for (int i = 0; i < n; ++i) {
                sx += x[i], sy += y[i], sxx += x[i] * x[i], sxy += x[i] * y[i];
            }
            printf("%s{", first ? "" : ",");
            first = 0;
            json_case_head(&CASES[ci]);
            printf(",\"model\":\"%c\",\"points\":%d,\"order\":", 'a' + m, n);
            json_number(stdout, (n * sxy - sx * sy) / (n * sxx - sx * sx));
            printf("}");
        }
    }
}

static void json_spectral(const plan *p, results *res) {
    int first = 1;
    for (int ci = 0; ci < N_CASES; ++ci) {
        const scheme_case *sc = &CASES[ci];
        if (p->only != NULL && strcmp(p->only, sc->name) != 0) {
            continue;
        }
        nscd_time_stepping_options opt;
        case_options(sc, 1.0, NSCD_TS_LEVEL_VELOCITY, NSCD_TS_START_CONSISTENT, &opt);
        int n = p->spectral_points;
        double ratio[64], rho[64], period[64], order[64], residual[64];
        nscd_status rc = NSCD_OK;
        for (int k = 0; k < n && rc == NSCD_OK; ++k) {
            ratio[k] = pow(10.0, -3.0 + 6.0 * k / (n - 1));
            amplification a;
            rc = amplification_estimate(&opt, ratio[k], &a);
            rho[k] = rc == NSCD_OK ? a.rho : NAN;
            period[k] = rc == NSCD_OK ? a.period_error : NAN;
            order[k] = rc == NSCD_OK ? a.order : NAN;
            residual[k] = rc != NSCD_OK ? NAN : a.order == 2 ? a.map_residual : a.fit_residual;
        }
        if (rc == NSCD_ERR_UNSUPPORTED) {
            res->unsupported[ci][0][0] = 1;
            continue;
        }
        printf("%s{", first ? "" : ",");
        first = 0;
        json_case_head(sc);
        printf(",\"status\":\"%s\",\"dt_over_T\":", status_name(rc));
        json_array(stdout, ratio, n);
        printf(",\"rho\":");
        json_array(stdout, rho, n);
        printf(",\"period_error\":");
        json_array(stdout, period, n);
        printf(",\"fit_order\":");
        json_array(stdout, order, n);
        printf(",\"residual\":");
        json_array(stdout, residual, n);
        printf("}");
    }
}

static void json_unsupported(const results *res) {
    int first = 1;
    for (int ci = 0; ci < N_CASES; ++ci) {
        for (int l = 0; l < 2; ++l) {
            for (int s = 0; s < 2; ++s) {
                if (res->unsupported[ci][l][s]) {
                    printf("%s{", first ? "" : ",");
                    first = 0;
                    json_case_head(&CASES[ci]);
                    printf(",\"level\":\"%s\",\"start\":\"%s\",\"reason\":\"unsupported\"}",
                           LEVELS[l], STARTS[s]);
                }
            }
        }
    }
}

/* The exact solution at 1, 5, 10 s (model (a) in "q", model (b) in "q_b"),
 * and with --histories on a fine grid (every 1e-4 s to 0.02 s, then 0.01 s). */
static void json_exact(const plan *p, const chain_exact exact[2]) {
    const double times[3] = {1.0, 5.0, 10.0};
    printf("\"exact\":{\"t\":[1,5,10],\"q\":[");
    for (int k = 0; k < 3; ++k) {
        double q[3];
        chain_exact_state(&exact[0], times[k], q, NULL, NULL);
        printf(k ? "," : "");
        json_array(stdout, q, 3);
    }
    printf("],\"q_b\":[");
    for (int k = 0; k < 3; ++k) {
        double q[3];
        chain_exact_state(&exact[1], times[k], q, NULL, NULL);
        printf(k ? "," : "");
        json_array(stdout, q, 3);
    }
    printf("],\"lambda_b\":[");
    for (int k = 0; k < 3; ++k) {
        printf(k ? "," : "");
        json_number(stdout, chain_exact_lambda(&exact[1], times[k]));
    }
    printf("],\"omega_a\":");
    json_array(stdout, exact[0].omega, 3);
    printf(",\"omega_b\":");
    json_array(stdout, exact[1].omega, 2);
    if (p->histories) {
        for (int m = 0; m < 2; ++m) {
            printf(",\"history_%c\":{\"t\":[", 'a' + m);
            int n = 0;
            for (double t = 0.0; t <= p->t_end + 1e-9; t += t < 0.02 - 1e-12 ? 1e-4 : 1e-2) {
                printf(n++ ? "," : "");
                json_number(stdout, t);
            }
            printf("],\"q\":[");
            n = 0;
            for (double t = 0.0; t <= p->t_end + 1e-9; t += t < 0.02 - 1e-12 ? 1e-4 : 1e-2) {
                double q[3];
                chain_exact_state(&exact[m], t, q, NULL, NULL);
                printf(n++ ? "," : "");
                json_array(stdout, q, 3);
            }
            printf("],\"lambda\":[");
            n = 0;
            for (double t = 0.0; t <= p->t_end + 1e-9; t += t < 0.02 - 1e-12 ? 1e-4 : 1e-2) {
                printf(n++ ? "," : "");
                json_number(stdout, m == 1 ? chain_exact_lambda(&exact[1], t) : NAN);
            }
            printf("]}");
        }
    }
    printf("}");
}

static void print_json(const plan *p, results *res, const chain_exact exact[2]) {
    printf("{\"parameters\":{\"k0\":1e7,\"k\":[1,1,1],\"m\":[1,1,1],\"gamma\":9.81,\"t_end\":");
    json_number(stdout, p->t_end);
    printf(",\"dts\":");
    json_array(stdout, p->dts, p->n_dts);
    printf(",\"paper_dt\":%.17g,\"study_dt\":%.17g,\"theta\":0.5,\"alpha_ar\":", p->paper_dt,
           p->study_dt);
    json_number(stdout, 1.0 / 6.0);
    printf("},");
    json_exact(p, exact);
    printf(",\"runs\":[");
    for (int i = 0; i < res->n_runs; ++i) {
        const run_result *r = &res->runs[i];
        printf(i ? "," : "");
        json_run(r, &exact[r->spec.model - 'a']);
    }
    printf("],\"orders\":[");
    json_orders(p, res, exact);
    printf("],\"spectral\":[");
    json_spectral(p, res);
    printf("],\"unsupported\":[");
    json_unsupported(res);
    printf("]}\n");
}

/* ------------------------------------------------------------ text, CSV */

static void print_text(const results *res, const chain_exact exact[2]) {
    printf("%-18s %-5s %-5s %-9s %-12s %-10s %-6s %-12s %s\n", "scheme", "rho", "model", "dt",
           "level", "start", "stable", "error_q", "lambda_osc");
    for (int i = 0; i < res->n_runs; ++i) {
        const run_result *r = &res->runs[i];
        const run_spec *s = &r->spec;
        printf("%-18s %-5.2g %-5c %-9.3g %-12s %-10s %-6s %-12.4e %.3e\n", s->sc->name,
               s->sc->rho_inf, s->model, s->dt, LEVELS[s->level], STARTS[s->start],
               r->stable ? "yes" : "NO", run_error(r, &exact[s->model - 'a'], 0, 2),
               s->model == 'b' ? r->stats.oscillation : NAN);
    }
    for (int ci = 0; ci < N_CASES; ++ci) {
        if (res->unsupported[ci][0][0]) {
            printf("%s (rho_inf %g): not in this build\n", CASES[ci].name, CASES[ci].rho_inf);
        }
    }
}

static int write_csv(const char *path, const results *res) {
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        fprintf(stderr, "model_problem: cannot write %s\n", path);
        return 1;
    }
    fprintf(f, "model,scheme,rho_inf,dt,level,start,t,q1,q2,q3,v1,v2,v3,lambda\n");
    for (int i = 0; i < res->n_runs; ++i) {
        const run_result *r = &res->runs[i];
        const run_spec *s = &r->spec;
        for (int k = 0; k < r->hist.count; ++k) {
            const sample *x = &r->hist.s[k];
            fprintf(f, "%c,%s,%.17g,%.17g,%s,%s,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n",
                    s->model, s->sc->name, s->sc->rho_inf, s->dt, LEVELS[s->level],
                    STARTS[s->start], x->t, x->q[0], x->q[1], x->q[2], x->v[0], x->v[1], x->v[2],
                    x->lambda);
        }
    }
    return fclose(f) == 0 ? 0 : 1;
}

static int parse_plan(int argc, char **argv, plan *p) {
    memset(p, 0, sizeof *p);
    int quick = cli_has_flag(argc, argv, "--quick");
    const double dts[] = {1e-2, 5e-3, 2.5e-3, 1.25e-3, 6.25e-4};
    p->n_dts = quick ? 3 : 5;
    memcpy(p->dts, dts, (size_t)p->n_dts * sizeof dts[0]);
    p->paper_dt = 1e-3;
    p->study_dt = cli_double(argc, argv, "--study-dt", 1e-2);
    p->t_end = cli_double(argc, argv, "--t-end", 10.0);
    p->spectral_points = quick ? 13 : 25;
    p->histories = cli_has_flag(argc, argv, "--histories") || cli_string(argc, argv, "--csv", NULL);
    p->only = cli_string(argc, argv, "--scheme", NULL);
    if (!(p->study_dt > 0.0) || !(p->t_end >= 1.0) || p->t_end > 1e4) {
        fprintf(stderr, "model_problem: --study-dt must be > 0 and --t-end in [1, 1e4]\n");
        return 2;
    }
    for (int ci = 0; p->only != NULL && ci < N_CASES; ++ci) {
        if (strcmp(p->only, CASES[ci].name) == 0) {
            return 0;
        }
    }
    if (p->only != NULL) {
        fprintf(stderr, "model_problem: unknown scheme %s\n", p->only);
        return 2;
    }
    return 0;
}

/* --fit-samples: the estimator on trajectories read from stdin. */
static int fit_samples(void) {
    printf("{\"fits\":[");
    double Omega;
    int count = 0;
    while (scanf("%lf", &Omega) == 1) {
        double y[2][AMPLIFICATION_STEPS + 1][2];
        for (int r = 0; r < 2; ++r) {
            for (int n = 0; n <= AMPLIFICATION_STEPS; ++n) {
                if (scanf("%lf %lf", &y[r][n][0], &y[r][n][1]) != 2) {
                    fprintf(stderr, "model_problem: --fit-samples: short line %d\n", count + 1);
                    return 2;
                }
            }
        }
        amplification a;
        nscd_status rc = amplification_from_samples(y, Omega, &a);
        printf("%s{\"status\":\"%s\",\"order\":%d,\"rho\":", count++ ? "," : "", status_name(rc),
               a.order);
        json_number(stdout, a.rho);
        printf(",\"period_error\":");
        json_number(stdout, a.period_error);
        printf(",\"residual\":");
        json_number(stdout, a.order == 2 ? a.map_residual : a.fit_residual);
        printf("}");
    }
    printf("]}\n");
    return 0;
}

static const char usage_text[] =
    "usage: model_problem [--json] [--csv FILE] [--scheme S] [--study-dt "
    "DT] [--t-end T] [--histories] [--quick] [--fit-samples]";

int main(int argc, char **argv) {
    cli_check(argc, argv, usage_text);
    if (cli_has_flag(argc, argv, "--fit-samples")) {
        return fit_samples();
    }
    plan p;
    int code = parse_plan(argc, argv, &p);
    if (code != 0) {
        return code;
    }
    static chain_model models[2];
    chain_exact exact[2];
    for (int m = 0; m < 2; ++m) {
        chain_model_init(&models[m], (char)('a' + m));
        chain_exact_init(&models[m], &exact[m]);
    }
    static results res;
    run_all(&p, exact, &res);
    if (cli_has_flag(argc, argv, "--json")) {
        print_json(&p, &res, exact);
    } else {
        print_text(&res, exact);
    }
    const char *csv = cli_string(argc, argv, "--csv", NULL);
    if (csv != NULL) {
        code = write_csv(csv, &res);
    }
    for (int i = 0; i < res.n_runs; ++i) {
        free(res.runs[i].hist.s);
    }
    return code;
}
