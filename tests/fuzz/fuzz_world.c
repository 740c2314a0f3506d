/* libFuzzer target: the rigid-body world (include/nscd/world.h) under random
 * scenes and random sequences of API calls (issue 25, docs/hostile_input.md).
 *
 * Scene: a closed box [-L, L]^3 of six static half-spaces, up to 8 dynamic
 * spheres, boxes, capsules and cylinders inside it (smallest extent >= 5 cm),
 * ε = 0 (no penetration recovery), random dt <= 2 ms, sweeps, friction,
 * friction law, warm start and Jacobi groups, sleeping (on or off, a
 * threshold up to 0.5 m/s and a time of 1 to 26 steps, so that islands fall
 * asleep and wake within a run). Then up to 32 operations, one byte each:
 * steps, adding and removing bodies, setting velocities (also NaN), getters
 * on live and dead ids, bulk copy-outs with negative, short and exact
 * capacities, materials and pair overrides (also bad ones), waking a body
 * and asking whether it sleeps.
 *
 * Checked after every operation:
 * - statuses: every call returns the documented status (a valid call
 *   NSCD_OK; a dead id NSCD_ERR_STALE_HANDLE; a negative capacity
 *   NSCD_ERR_INVALID_ARGUMENT, a short one NSCD_ERR_BUFFER_TOO_SMALL with the
 *   count; NaN NSCD_ERR_NOT_FINITE and nothing changed), and a failed call
 *   leaves a message;
 * - finiteness: every live body's state is finite after every step;
 * - containment: no body centre leaves the box (per-step travel, at most
 *   |v|max dt < 5 cm, is smaller than any body, so a centre crossing a wall
 *   means a contact was lost);
 * - energy: over steps with only spheres and no load, kinetic plus
 *   potential energy never rises (ε = 0: no stage may create energy; free
 *   flight itself loses m g² dt² / 2 a step), within 1e-9 of its scale,
 *   over steps that converged or started cold (energy_held);
 * - sleeping: a sleeping body has zero velocities and keeps its pose
 *   bitwise while it sleeps; the report's sleeping_bodies counts them; a
 *   woken body is awake; a dead id is a stale handle. */
#include "fuzz_common.h"

#define MAX_BODIES 8
#define MAX_OPS 32
#define L 1.0

typedef struct scene {
    nscd_world *w;
    nscd_body_id ids[64]; /* every id ever made (live or dead) */
    int n_ids;
    int live[64];
    double radius[64];  /* largest distance from the centre to the surface */
    int asleep[64];     /* slept after the last step */
    double pose[64][7]; /* its position and orientation then */
    int spheres_only;   /* energy is checked only then (no gyroscopic term) */
    double dt, g, tolerance;
    int32_t n_materials;
    int warm_start, jacobi_groups, sleep;
} scene;

static void add_walls(nscd_world *w) {
    const double h = 0.70710678118654752440;
    /* position, orientation mapping +z (the outward normal) into the box */
    const double walls[6][7] = {{0, 0, -L, 1, 0, 0, 0},  {0, 0, L, 0, 1, 0, 0},
                                {-L, 0, 0, h, 0, h, 0},  {L, 0, 0, h, 0, -h, 0},
                                {0, -L, 0, h, -h, 0, 0}, {0, L, 0, h, h, 0, 0}};
    for (int k = 0; k < 6; ++k) {
        nscd_body_desc b;
        nscd_body_desc_init(&b, sizeof b);
        b.type = NSCD_BODY_STATIC;
        nscd_shape_desc s;
        nscd_shape_desc_init(&s, sizeof s);
        s.type = NSCD_SHAPE_HALF_SPACE;
        memcpy(s.position, walls[k], 3 * sizeof(double));
        memcpy(s.orientation, walls[k] + 3, 4 * sizeof(double));
        nscd_body_id id = 0;
        nscd_status st = nscd_world_add_body(w, &b, &s, 1, &id);
        FZ_REQUIRE(st == NSCD_OK, "wall %d: status %d (%s)", k, FZ_STATUS_ARGS(st));
    }
}

static void add_body(scene *s, fz_reader *r) {
    nscd_body_desc b;
    nscd_body_desc_init(&b, sizeof b);
    nscd_shape_desc sh;
    nscd_shape_desc_init(&sh, sizeof sh);
    int kind = fz_choice(r, 4);
    double radius;
    if (kind == 0) {
        sh.type = NSCD_SHAPE_SPHERE;
        sh.radius = fz_range(r, 0.05, 0.3);
        radius = sh.radius;
    } else if (kind == 1) {
        sh.type = NSCD_SHAPE_BOX;
        for (int k = 0; k < 3; ++k) {
            sh.half_extents[k] = fz_range(r, 0.05, 0.25);
        }
        radius =
            sqrt(sh.half_extents[0] * sh.half_extents[0] + sh.half_extents[1] * sh.half_extents[1] +
                 sh.half_extents[2] * sh.half_extents[2]);
    } else {
        sh.type = kind == 2 ? NSCD_SHAPE_CAPSULE : NSCD_SHAPE_CYLINDER;
        sh.radius = fz_range(r, 0.05, 0.2);
        sh.half_height = fz_range(r, 0.05, 0.25);
        radius = kind == 2 ? sh.radius + sh.half_height
                           : sqrt(sh.radius * sh.radius + sh.half_height * sh.half_height);
    }
    for (int k = 0; k < 3; ++k) { /* the whole body inside the box */
        b.position[k] = fz_sym(r) * (L - radius - 0.01);
        b.velocity[k] = 2.0 * fz_sym(r);
        b.angular_velocity[k] = 5.0 * fz_sym(r);
    }
    double q[4] = {1.0 + fz_unit(r), fz_sym(r), fz_sym(r), fz_sym(r)};
    double nq = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int k = 0; k < 4; ++k) {
        b.orientation[k] = q[k] / nq;
    }
    sh.material = s->n_materials > 1 ? fz_choice(r, s->n_materials) : 0;
    b.user_id = (uint64_t)s->n_ids + 1000;
    nscd_body_id id = 0;
    nscd_status st = nscd_world_add_body(s->w, &b, &sh, 1, &id);
    FZ_REQUIRE(st == NSCD_OK, "add body kind %d: status %d (%s): %s", kind, FZ_STATUS_ARGS(st),
               nscd_world_last_error(s->w));
    if (s->n_ids < 64) {
        s->ids[s->n_ids] = id;
        s->live[s->n_ids] = 1;
        s->radius[s->n_ids] = radius;
        s->n_ids++;
    }
    s->spheres_only &= kind == 0;
}

static int live_count(const scene *s) {
    int n = 0;
    for (int k = 0; k < s->n_ids; ++k) {
        n += s->live[k];
    }
    return n;
}

/* Kinetic plus potential energy (height above the floor). */
static double energy(const scene *s, double *scale) {
    double e = 0.0;
    *scale = 0.0;
    for (int k = 0; k < s->n_ids; ++k) {
        if (!s->live[k]) {
            continue;
        }
        double x[3], v[3], om[3], m = 0.0, I[3];
        FZ_REQUIRE(nscd_world_get_body(s->w, s->ids[k], x, NULL, v, om) == NSCD_OK, "live body");
        FZ_REQUIRE(nscd_world_get_body_mass(s->w, s->ids[k], &m, I) == NSCD_OK, "live body");
        double kinetic = 0.5 * m * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) +
                         0.5 * (I[0] * om[0] * om[0] + I[1] * om[1] * om[1] + I[2] * om[2] * om[2]);
        double potential = m * s->g * (x[2] + L);
        e += kinetic + potential;
        *scale += kinetic + m * s->g * 2.0 * L;
    }
    return e;
}

/* Energy is held on a batch of steps whose impulses are either converged
 * or started cold (docs/fuzzing.md, World 1 and World 2). An exact
 * solution satisfies r·(u + β e_n) <= 0 and dissipates; a cold start's
 * first sweep lowers the contact energy from zero. An impulse short of its
 * solution by a velocity error δ can hold a body up by more than its
 * weight: the body rises by dt δ, potential energy of first order in δ, and
 * its kinetic energy moves by m v δ. So a converged step (merit below the
 * world's tolerance, a velocity) may gain up to Σ m (|v| + g dt) tolerance
 * (lift_bound; the first such find, after 27 924 executions: 6.4e-8 J
 * against a bound of 1.2e-6 J); an unconverged warm-started step is not
 * held (the step reports converged = 0). The warm start itself adds
 * nothing: it is scaled when last step's impulses would (block_gs.c). */
static int energy_held(const scene *s, int all_converged) {
    return FZ_STRICT || !s->warm_start || all_converged;
}

/* Σ m (|v| + g dt) tolerance over the live bodies (see energy_held). */
static double lift_bound(const scene *s) {
    double bound = 0.0;
    for (int k = 0; k < s->n_ids; ++k) {
        if (s->live[k]) {
            double v[3], m = 0.0;
            FZ_REQUIRE(nscd_world_get_body(s->w, s->ids[k], NULL, NULL, v, NULL) == NSCD_OK,
                       "live body");
            FZ_REQUIRE(nscd_world_get_body_mass(s->w, s->ids[k], &m, NULL) == NSCD_OK, "live body");
            bound +=
                m * (sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) + s->g * s->dt) * s->tolerance;
        }
    }
    return bound;
}

/* Finite states, centres inside the box. */
static void check_state(const scene *s, int step) {
    for (int k = 0; k < s->n_ids; ++k) {
        if (!s->live[k]) {
            continue;
        }
        double x[3], q[4], v[3], om[3];
        FZ_REQUIRE(nscd_world_get_body(s->w, s->ids[k], x, q, v, om) == NSCD_OK, "live body");
        double all[13] = {x[0], x[1], x[2], q[0],  q[1],  q[2], q[3],
                          v[0], v[1], v[2], om[0], om[1], om[2]};
        FZ_REQUIRE(fz_all_finite(all, 13), "step %d: body %d not finite", step, k);
        for (int c = 0; c < 3; ++c) {
            FZ_REQUIRE(fabs(x[c]) < L, "step %d: body %d (bounding radius %g) left the box: x = %g",
                       step, k, s->radius[k], x[c]);
        }
    }
}

/* After a step: sleeping bodies are at rest, keep their pose while they
 * sleep, and are what the report counts. */
static void check_sleep(scene *s, const nscd_world_step_report *report, int step) {
    int32_t sleeping = 0;
    for (int k = 0; k < s->n_ids; ++k) {
        int32_t now = -1;
        nscd_status st = nscd_world_body_sleeping(s->w, s->ids[k], &now);
        if (!s->live[k]) {
            FZ_REQUIRE(st == NSCD_ERR_STALE_HANDLE && now == -1, "body_sleeping of a dead id: %d",
                       (int)st);
            continue;
        }
        FZ_REQUIRE(st == NSCD_OK && (now == 0 || (now == 1 && s->sleep)),
                   "step %d: body_sleeping %d (%s), %d", step, FZ_STATUS_ARGS(st), (int)now);
        double x[7], v[3], om[3];
        FZ_REQUIRE(nscd_world_get_body(s->w, s->ids[k], x, x + 3, v, om) == NSCD_OK, "live body");
        if (now) {
            ++sleeping;
            FZ_REQUIRE(v[0] == 0.0 && v[1] == 0.0 && v[2] == 0.0 && om[0] == 0.0 && om[1] == 0.0 &&
                           om[2] == 0.0,
                       "step %d: body %d sleeps with a velocity", step, k);
            FZ_REQUIRE(!s->asleep[k] || memcmp(x, s->pose[k], sizeof x) == 0,
                       "step %d: sleeping body %d moved", step, k);
        }
        s->asleep[k] = now;
        memcpy(s->pose[k], x, sizeof x);
    }
    FZ_REQUIRE(report->sleeping_bodies == sleeping, "step %d: report says %d asleep, %d are", step,
               (int)report->sleeping_bodies, (int)sleeping);
}

static void step(scene *s, int n, int *step_count) {
    double scale = 0.0, before = energy(s, &scale), slack = 0.0;
    int all_converged = 1;
    for (int k = 0; k < n; ++k) {
        slack += lift_bound(s);
        nscd_world_step_report report;
        report.struct_size = sizeof report;
        nscd_status st = nscd_world_step(s->w, &report);
        FZ_REQUIRE(st == NSCD_OK, "step %d: status %d (%s): %s", *step_count, FZ_STATUS_ARGS(st),
                   nscd_world_last_error(s->w));
        FZ_REQUIRE(isfinite(report.merit) && report.contacts >= 0, "step %d: report", *step_count);
        FZ_REQUIRE(report.bodies_removed == 0, "step %d: a body left the domain", *step_count);
        all_converged &= report.converged || report.contacts == 0;
        check_sleep(s, &report, *step_count);
        check_state(s, (*step_count)++);
        slack += lift_bound(s);
    }
    double scale_after = 0.0, after = energy(s, &scale_after);
    if (s->spheres_only && energy_held(s, all_converged)) {
        /* converged: the lift of the tolerance; unconverged (cold, or strict): exact */
        double allowed = all_converged ? slack : 0.0;
        FZ_REQUIRE(after <= before + 1e-9 * fmax(scale, 1e-300) + allowed,
                   "energy rose over %d steps: %.17g -> %.17g (scale %g, lift bound %g)", n, before,
                   after, scale, allowed);
    }
}

static void check_copy_outs(scene *s, fz_reader *r) {
    int live = live_count(s) + 6; /* and the walls */
    int which = fz_choice(r, 4);
    int32_t capacity = which == 0 ? -1 - fz_choice(r, 100) : which == 1 ? 0 : live + which - 2;
    int32_t count = -1;
    nscd_body_id ids[64];
    double x[3 * 64];
    nscd_status st = nscd_world_get_bodies(s->w, capacity, &count, ids, NULL, x, NULL, NULL, NULL);
    nscd_status expected = capacity < 0      ? NSCD_ERR_INVALID_ARGUMENT
                           : live > capacity ? NSCD_ERR_BUFFER_TOO_SMALL
                                             : NSCD_OK;
    FZ_REQUIRE(st == expected && count == live, "get_bodies(%d): %d (%s), count %d of %d",
               (int)capacity, FZ_STATUS_ARGS(st), (int)count, live);
    FZ_REQUIRE((st == NSCD_OK) == (nscd_world_last_error(s->w)[0] == '\0'), "message");
    int32_t contacts = -1;
    st = nscd_world_get_contacts(s->w, capacity < 0 ? capacity : 0, &contacts, NULL, NULL, NULL,
                                 NULL, NULL, NULL);
    FZ_REQUIRE(capacity < 0 ? st == NSCD_ERR_INVALID_ARGUMENT
                            : st == (contacts > 0 ? NSCD_ERR_BUFFER_TOO_SMALL : NSCD_OK),
               "get_contacts: %d (%s)", FZ_STATUS_ARGS(st));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_reader r = fz_make(data, size);
    nscd_world_desc d;
    nscd_world_desc_init(&d, sizeof d);
    d.dt = fz_decade(&r, -4.0, log10(2e-3));
    d.max_sweeps = 1 + fz_choice(&r, 30);
    d.default_friction = fz_range(&r, 0.0, 1.0);
    d.friction_law = fz_choice(&r, 2);
    d.warm_start = fz_choice(&r, 2);
    d.jacobi_groups = 1 + fz_choice(&r, 4);
    d.relaxation = fz_range(&r, 0.2, 1.0);
    d.error_reduction = 0.0;
    d.contact_margin = fz_range(&r, 0.0, 0.01);
    d.friction_combine = fz_choice(&r, 4);
    d.sleep = fz_choice(&r, 2);
    d.sleep_speed = fz_range(&r, 0.0, 0.5);
    /* longer than a step: an island woken in a step cannot fall asleep again
     * in the same step, so "asleep before and after" means "did not move" */
    d.sleep_time = d.dt * (1.01 + fz_range(&r, 0.0, 25.0));
    if (fz_verbose()) {
        fprintf(stderr, "dt %g sweeps %d mu %g law %d warm %d groups %d relax %g margin %g\n", d.dt,
                (int)d.max_sweeps, d.default_friction, (int)d.friction_law, (int)d.warm_start,
                (int)d.jacobi_groups, d.relaxation, d.contact_margin);
    }
    scene s;
    memset(&s, 0, sizeof s);
    s.dt = d.dt;
    s.tolerance = d.tolerance;
    s.g = 9.81;
    s.spheres_only = 1;
    s.n_materials = 1;
    s.warm_start = d.warm_start;
    s.jacobi_groups = d.jacobi_groups;
    s.sleep = d.sleep;
    nscd_status st = nscd_world_create(&d, &s.w);
    FZ_REQUIRE(st == NSCD_OK, "create: %d (%s)", FZ_STATUS_ARGS(st));
    add_walls(s.w);
    int n = 1 + fz_choice(&r, MAX_BODIES);
    for (int k = 0; k < n; ++k) {
        add_body(&s, &r);
    }
    int steps = 0, loaded = 0;
    for (int op = 0; op < MAX_OPS && r.n > 0; ++op) {
        int code = fz_choice(&r, 11);
        int pick = s.n_ids > 0 ? fz_choice(&r, s.n_ids) : 0;
        nscd_body_id id = s.n_ids > 0 ? s.ids[pick] : NSCD_BODY_NULL;
        int alive = s.n_ids > 0 && s.live[pick];
        if (code >= 3) { /* any change through the API may wake islands */
            memset(s.asleep, 0, sizeof s.asleep);
        }
        switch (code) {
        case 0:
        case 1:
        case 2: step(&s, 1 + fz_choice(&r, 4), &steps); break;
        case 3:
            if (live_count(&s) < MAX_BODIES && s.n_ids < 64) {
                add_body(&s, &r);
            }
            break;
        case 4:
            st = nscd_world_remove_body(s.w, id);
            FZ_REQUIRE(st == (alive ? NSCD_OK : NSCD_ERR_STALE_HANDLE), "remove: %d (%s)",
                       FZ_STATUS_ARGS(st));
            if (alive) {
                s.live[pick] = 0;
            }
            break;
        case 5: { /* a new velocity, or a NaN one that must change nothing */
            int bad = fz_choice(&r, 4) == 0;
            double v[3] = {2.0 * fz_sym(&r), 2.0 * fz_sym(&r), bad ? NAN : 2.0 * fz_sym(&r)};
            double before[3] = {0, 0, 0}, after[3] = {0, 0, 0};
            if (alive) {
                nscd_world_get_body(s.w, id, NULL, NULL, before, NULL);
            }
            st = nscd_world_set_body(s.w, id, NULL, NULL, v, NULL);
            nscd_status want = !alive ? NSCD_ERR_STALE_HANDLE : bad ? NSCD_ERR_NOT_FINITE : NSCD_OK;
            FZ_REQUIRE(st == want, "set_body: %d (%s), want %d", FZ_STATUS_ARGS(st), (int)want);
            FZ_REQUIRE((st == NSCD_OK) == (nscd_world_last_error(s.w)[0] == '\0'), "message");
            if (alive && bad) {
                nscd_world_get_body(s.w, id, NULL, NULL, after, NULL);
                FZ_REQUIRE(memcmp(before, after, sizeof before) == 0, "a NaN set changed v");
            }
            break;
        }
        case 6: {
            double x[3];
            st = nscd_world_get_body(s.w, id, x, NULL, NULL, NULL);
            FZ_REQUIRE(st == (alive ? NSCD_OK : NSCD_ERR_STALE_HANDLE), "get_body: %d (%s)",
                       FZ_STATUS_ARGS(st));
            FZ_REQUIRE((st == NSCD_OK) == (nscd_world_last_error(s.w)[0] == '\0'), "message");
            FZ_REQUIRE(nscd_world_body_valid(s.w, id) == alive, "body_valid");
            break;
        }
        case 7: check_copy_outs(&s, &r); break;
        case 8: { /* materials and pair overrides, also bad ones */
            int32_t m = 0;
            if (s.n_materials < 8) {
                st = nscd_world_add_material(s.w, fz_range(&r, 0.0, 1.0), &m);
                FZ_REQUIRE(st == NSCD_OK && m == s.n_materials, "add_material");
                s.n_materials++;
            }
            int32_t a = fz_choice(&r, 10) - 1, b = fz_choice(&r, 10) - 1;
            double mu = fz_range(&r, -0.5, 1.0);
            st = nscd_world_set_pair_friction(s.w, a, b, mu);
            nscd_status want = (a < 0 || b < 0 || a >= s.n_materials || b >= s.n_materials)
                                   ? NSCD_ERR_INDEX
                               : mu < 0.0 ? NSCD_ERR_OUT_OF_RANGE
                                          : NSCD_OK;
            FZ_REQUIRE(st == want, "set_pair_friction(%d, %d, %g): %d (%s)", (int)a, (int)b, mu,
                       FZ_STATUS_ARGS(st));
            break;
        }
        case 9: { /* wake a body (any id); afterwards it is awake */
            st = nscd_world_wake_body(s.w, id);
            FZ_REQUIRE(st == (alive ? NSCD_OK : NSCD_ERR_STALE_HANDLE), "wake: %d (%s)",
                       FZ_STATUS_ARGS(st));
            FZ_REQUIRE((st == NSCD_OK) == (nscd_world_last_error(s.w)[0] == '\0'), "message");
            int32_t now = -1;
            st = nscd_world_body_sleeping(s.w, id, &now);
            FZ_REQUIRE(alive ? st == NSCD_OK && now == 0 : st == NSCD_ERR_STALE_HANDLE,
                       "woken body: %d (%s), sleeping %d", FZ_STATUS_ARGS(st), (int)now);
            break;
        }
        default: { /* a load: energy is no longer conserved */
            double f[3] = {2.0 * fz_sym(&r), 2.0 * fz_sym(&r), 2.0 * fz_sym(&r)};
            st = nscd_world_set_applied_force(s.w, id, f, NULL);
            FZ_REQUIRE(st == (alive ? NSCD_OK : NSCD_ERR_STALE_HANDLE), "applied force: %d (%s)",
                       FZ_STATUS_ARGS(st));
            loaded |= alive;
            s.spheres_only &= !loaded;
            break;
        }
        }
    }
    nscd_world_destroy(s.w);
    return 0;
}
