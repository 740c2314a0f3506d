/* Statistics of the granular channel (see granular_stats.h). */
#include "granular_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double pi = 3.14159265358979323846;

/* The bed region (x) and the region of the radial distribution (x), m. */
static const double bed_x0 = 0.08, bed_x1 = 0.14;
static const double rdf_x0 = 0.12, rdf_x1 = 0.14;
/* Where the speed peak is looked for (x), m. */
static const double peak_x0 = 0.03, peak_x1 = 0.07;

void channel_stats_init(channel_stats *st, double warmup) {
    memset(st, 0, sizeof *st);
    st->warmup = warmup;
    st->window_start = NAN;
}

void channel_stats_free(channel_stats *st) {
    free(st->user_ids);
    free(st->positions);
    free(st->velocities);
    free(st->omegas);
    free(st->body_a);
    free(st->body_b);
    free(st->gaps);
    free(st->impulses);
    free(st->cell_start);
    free(st->cell_items);
    memset(st, 0, sizeof *st);
}

static int grow(void **buffer, size_t n, size_t size) {
    void *p = realloc(*buffer, n * size);
    if (p == NULL) {
        return 0;
    }
    *buffer = p;
    return 1;
}

static nscd_status copy_bodies(channel_stats *st, const channel_scene *scene, int32_t *count) {
    int32_t n = scene->ops->body_count(scene->world);
    if (n > st->body_capacity) {
        size_t cap = (size_t)n + (size_t)n / 2 + 64;
        if (!grow((void **)&st->user_ids, cap, sizeof(uint64_t)) ||
            !grow((void **)&st->positions, 3 * cap, sizeof(double)) ||
            !grow((void **)&st->velocities, 3 * cap, sizeof(double)) ||
            !grow((void **)&st->omegas, 3 * cap, sizeof(double))) {
            return NSCD_ERR_OUT_OF_MEMORY;
        }
        st->body_capacity = (int32_t)cap;
    }
    return scene->ops->get_bodies(scene->world, st->body_capacity, count, st->user_ids,
                                  st->positions, st->velocities, st->omegas);
}

static nscd_status copy_contacts(channel_stats *st, const channel_scene *scene, int32_t *count) {
    nscd_status s = scene->ops->get_contacts(scene->world, st->contact_capacity, count, st->body_a,
                                             st->body_b, st->gaps, st->impulses);
    if (s != NSCD_ERR_BUFFER_TOO_SMALL) {
        return s;
    }
    size_t cap = (size_t)*count + (size_t)*count / 2 + 64;
    if (!grow((void **)&st->body_a, cap, sizeof(uint64_t)) ||
        !grow((void **)&st->body_b, cap, sizeof(uint64_t)) ||
        !grow((void **)&st->gaps, cap, sizeof(double)) ||
        !grow((void **)&st->impulses, 3 * cap, sizeof(double))) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    st->contact_capacity = (int32_t)cap;
    return scene->ops->get_contacts(scene->world, st->contact_capacity, count, st->body_a,
                                    st->body_b, st->gaps, st->impulses);
}

void channel_stats_step(channel_stats *st, const channel_scene *scene,
                        const nscd_world_step_report *report) {
    double pen = report->max_penetration;
    st->max_penetration_run = fmax(st->max_penetration_run, pen);
    if (scene->ops->time(scene->world) >= st->warmup) {
        st->max_penetration = fmax(st->max_penetration, pen);
    }
}

static int is_fixed(const channel_scene *scene, uint64_t id) {
    for (int32_t i = 0; i < scene->fixed_bodies; ++i) {
        if (scene->fixed_ids[i] == id) {
            return 1;
        }
    }
    return 0;
}

static void sample_contacts(channel_stats *st, const channel_scene *scene, int32_t n) {
    double threshold = CHANNEL_CONTACT_THRESHOLD * scene->p.diameter;
    for (int32_t i = 0; i < n; ++i) {
        st->contacts += st->gaps[i] < threshold;
        st->active += st->impulses[3 * i] > 0.0;
        st->particle_pairs += !is_fixed(scene, st->body_a[i]) && !is_fixed(scene, st->body_b[i]);
    }
    st->detected += n;
}

/* A particle outside the channel or inside the obstacle has escaped. */
static int escaped(const channel_scene *scene, const double x[3]) {
    double r = 0.5 * scene->p.diameter;
    return x[1] < -r || x[1] > CHANNEL_WIDTH + r || x[2] < -r || x[2] > CHANNEL_HEIGHT + r ||
           channel_obstacle_distance(x[0], x[1]) <= 0.0;
}

/* Volume of a sphere of radius r centred at height zc below the plane z:
 * a spherical cap of height t = clamp(z - (zc - r), 0, 2 r), pi t^2 (3 r - t) / 3. */
static double sphere_volume_below(double z, double zc, double r) {
    double t = fmin(fmax(z - (zc - r), 0.0), 2.0 * r);
    return pi * t * t * (3.0 * r - t) / 3.0;
}

/* Index floor(u / width) of a row of n cells, clamped to [0, n - 1] as a
 * double (a coordinate far outside, or NaN, must not overflow the
 * conversion to int). */
static int32_t cell_index(double u, double width, int32_t n) {
    double b = floor(u / width);
    return !(b > 0.0) ? 0 : b >= n ? n - 1 : (int32_t)b;
}

/* The sphere's volume inside each slab of the profile it crosses. */
static void add_to_profile(channel_stats *st, double zc, double r) {
    double dz = CHANNEL_HEIGHT / CHANNEL_PROFILE_BINS;
    int32_t b0 = cell_index(zc - r, dz, CHANNEL_PROFILE_BINS);
    int32_t b1 = cell_index(zc + r, dz, CHANNEL_PROFILE_BINS);
    for (int32_t b = b0; b <= b1; ++b) {
        st->bed_profile[b] +=
            sphere_volume_below((b + 1) * dz, zc, r) - sphere_volume_below(b * dz, zc, r);
    }
}

static void sample_particle(channel_stats *st, const channel_scene *scene, const double x[3],
                            const double v[3], const double w[3]) {
    for (int c = 0; c < 3; ++c) {
        st->not_finite_seen += !isfinite(x[c]) || !isfinite(v[c]) || !isfinite(w[c]);
    }
    st->escaped_seen += escaped(scene, x);
    st->particles += 1.0;
    int32_t ix = (int32_t)floor(x[0] / CHANNEL_LENGTH * CHANNEL_MAP_NX);
    int32_t iy = (int32_t)floor(x[1] / CHANNEL_WIDTH * CHANNEL_MAP_NY);
    if (ix >= 0 && ix < CHANNEL_MAP_NX && iy >= 0 && iy < CHANNEL_MAP_NY) {
        int32_t cell = ix * CHANNEL_MAP_NY + iy;
        st->speed_sum[cell] += sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        st->omega_sum[cell] += sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
        st->map_count[cell] += 1.0;
    }
    if (x[0] >= bed_x0 && x[0] < bed_x1) {
        st->bed_count += 1.0;
        st->bed_z_sum += x[2];
        add_to_profile(st, x[2], 0.5 * scene->p.diameter);
    }
}

/* Cell grid of the radial distribution: cells of the cut-off size over the
 * region extended by the cut-off in x, the channel's cross-section in y, z. */
typedef struct rdf_grid {
    double x0, h;
    int32_t nx, ny, nz;
} rdf_grid;

static int32_t rdf_cell(const rdf_grid *g, const double x[3], int32_t c[3]) {
    c[0] = cell_index(x[0] - g->x0, g->h, g->nx);
    c[1] = cell_index(x[1], g->h, g->ny);
    c[2] = cell_index(x[2], g->h, g->nz);
    return (c[0] * g->ny + c[1]) * g->nz + c[2];
}

static nscd_status rdf_bin_particles(channel_stats *st, const rdf_grid *g, int32_t n) {
    int32_t cells = g->nx * g->ny * g->nz;
    if (cells + 1 > st->cell_capacity) {
        if (!grow((void **)&st->cell_start, (size_t)cells + 1, sizeof(int32_t))) {
            return NSCD_ERR_OUT_OF_MEMORY;
        }
        st->cell_capacity = cells + 1;
    }
    if (n > st->item_capacity) {
        if (!grow((void **)&st->cell_items, (size_t)n, sizeof(int32_t))) {
            return NSCD_ERR_OUT_OF_MEMORY;
        }
        st->item_capacity = n;
    }
    memset(st->cell_start, 0, ((size_t)cells + 1) * sizeof(int32_t));
    int32_t c[3];
    double reach = g->x0 + g->nx * g->h;
    for (int32_t i = 0; i < n; ++i) { /* counting sort, stable: deterministic */
        const double *x = &st->positions[3 * i];
        if (st->user_ids[i] != 0 && x[0] >= g->x0 && x[0] < reach) {
            ++st->cell_start[rdf_cell(g, x, c) + 1];
        }
    }
    for (int32_t k = 0; k < cells; ++k) {
        st->cell_start[k + 1] += st->cell_start[k];
    }
    for (int32_t i = 0; i < n; ++i) {
        const double *x = &st->positions[3 * i];
        if (st->user_ids[i] != 0 && x[0] >= g->x0 && x[0] < reach) {
            st->cell_items[st->cell_start[rdf_cell(g, x, c)]++] = i;
        }
    }
    for (int32_t k = cells; k > 0; --k) { /* shift back: start of each cell */
        st->cell_start[k] = st->cell_start[k - 1];
    }
    st->cell_start[0] = 0;
    return NSCD_OK;
}

static void rdf_pairs_of(channel_stats *st, const rdf_grid *g, int32_t i, double cutoff) {
    const double *xi = &st->positions[3 * i];
    int32_t c[3];
    rdf_cell(g, xi, c);
    for (int32_t a = c[0] - 1; a <= c[0] + 1; ++a) {
        for (int32_t b = c[1] - 1; b <= c[1] + 1; ++b) {
            for (int32_t d = c[2] - 1; d <= c[2] + 1; ++d) {
                if (a < 0 || a >= g->nx || b < 0 || b >= g->ny || d < 0 || d >= g->nz) {
                    continue;
                }
                int32_t cell = (a * g->ny + b) * g->nz + d;
                for (int32_t k = st->cell_start[cell]; k < st->cell_start[cell + 1]; ++k) {
                    int32_t j = st->cell_items[k];
                    const double *xj = &st->positions[3 * j];
                    double dx = xj[0] - xi[0], dy = xj[1] - xi[1], dz = xj[2] - xi[2];
                    double r = sqrt(dx * dx + dy * dy + dz * dz);
                    if (j != i && r < cutoff) {
                        int32_t bin = (int32_t)(r / cutoff * CHANNEL_RDF_BINS);
                        st->rdf_hist[bin < CHANNEL_RDF_BINS ? bin : CHANNEL_RDF_BINS - 1] += 1.0;
                    }
                }
            }
        }
    }
}

static nscd_status sample_rdf(channel_stats *st, const channel_scene *scene, int32_t n) {
    double cutoff = CHANNEL_RDF_RANGE * scene->p.diameter;
    rdf_grid g = {rdf_x0 - cutoff, cutoff, 0, 0, 0};
    g.nx = (int32_t)ceil((rdf_x1 - rdf_x0 + 2.0 * cutoff) / cutoff);
    g.ny = (int32_t)ceil(CHANNEL_WIDTH / cutoff);
    g.nz = (int32_t)ceil(CHANNEL_HEIGHT / cutoff);
    nscd_status s = rdf_bin_particles(st, &g, n);
    if (s != NSCD_OK) {
        return s;
    }
    for (int32_t i = 0; i < n; ++i) {
        double x = st->positions[3 * i];
        if (st->user_ids[i] != 0 && x >= rdf_x0 && x < rdf_x1) {
            rdf_pairs_of(st, &g, i, cutoff);
            st->rdf_centres += 1.0;
        }
    }
    ++st->rdf_samples;
    return NSCD_OK;
}

nscd_status channel_stats_sample(channel_stats *st, const channel_scene *scene, int rdf) {
    double t = scene->ops->time(scene->world);
    if (t < st->warmup) {
        return NSCD_OK;
    }
    int32_t n = 0, nc = 0;
    nscd_status s = copy_bodies(st, scene, &n);
    if (s == NSCD_OK) {
        s = copy_contacts(st, scene, &nc);
    }
    if (s != NSCD_OK) {
        return s;
    }
    for (int32_t i = 0; i < n; ++i) {
        if (st->user_ids[i] != 0) {
            sample_particle(st, scene, &st->positions[3 * i], &st->velocities[3 * i],
                            &st->omegas[3 * i]);
        }
    }
    sample_contacts(st, scene, nc);
    if (st->samples == 0) {
        st->window_start = t;
        st->spawned_start = scene->spawned;
        st->removed_start = scene->removed;
    }
    st->window_end = t;
    st->spawned_end = scene->spawned;
    st->removed_end = scene->removed;
    ++st->samples;
    return rdf ? sample_rdf(st, scene, n) : NSCD_OK;
}

nscd_status channel_stats_history(channel_stats *st, const channel_scene *scene) {
    channel_history *h = &st->history;
    if (h->n >= CHANNEL_HISTORY_MAX) {
        return NSCD_OK; /* full: the history is a plot aid, the averages go on */
    }
    int32_t nc = 0;
    nscd_status s = copy_contacts(st, scene, &nc);
    if (s != NSCD_OK) {
        return s;
    }
    double threshold = CHANNEL_CONTACT_THRESHOLD * scene->p.diameter, contacts = 0.0;
    for (int32_t i = 0; i < nc; ++i) {
        contacts += st->gaps[i] < threshold;
    }
    h->t[h->n] = scene->ops->time(scene->world);
    h->particles[h->n] = (double)(scene->spawned - scene->removed);
    h->contacts[h->n] = contacts;
    h->spawned[h->n] = (double)scene->spawned;
    h->removed[h->n] = (double)scene->removed;
    ++h->n;
    return NSCD_OK;
}

double channel_map_mean(const channel_stats *st, const double *sum, int32_t ix, int32_t iy) {
    int32_t cell = ix * CHANNEL_MAP_NY + iy;
    return st->map_count[cell] > 0.0 ? sum[cell] / st->map_count[cell] : NAN;
}

static void find_speed_peak(const channel_stats *st, channel_summary *out) {
    out->speed_peak = NAN;
    double dx = CHANNEL_LENGTH / CHANNEL_MAP_NX, dy = CHANNEL_WIDTH / CHANNEL_MAP_NY;
    for (int32_t ix = 0; ix < CHANNEL_MAP_NX; ++ix) {
        double xc = (ix + 0.5) * dx;
        if (xc < peak_x0 || xc > peak_x1) {
            continue;
        }
        for (int32_t iy = 0; iy < CHANNEL_MAP_NY; ++iy) {
            if (st->map_count[ix * CHANNEL_MAP_NY + iy] < CHANNEL_MAP_MIN_COUNT) {
                continue;
            }
            double v = channel_map_mean(st, st->speed_sum, ix, iy);
            if (!(v <= out->speed_peak)) { /* also takes the first (NaN) */
                out->speed_peak = v;
                out->speed_peak_x = xc;
                out->speed_peak_y = (iy + 0.5) * dy;
            }
        }
    }
}

double channel_profile(const channel_stats *st, int32_t b) {
    double slab = (bed_x1 - bed_x0) * CHANNEL_WIDTH * CHANNEL_HEIGHT / CHANNEL_PROFILE_BINS;
    return st->samples > 0 ? st->bed_profile[b] / ((double)st->samples * slab) : NAN;
}

/* Mean of the profile over the slabs inside [d, h - d]; NaN for a bed too
 * shallow to have a core. */
static double core_fraction(const channel_stats *st, double d, double h) {
    double dz = CHANNEL_HEIGHT / CHANNEL_PROFILE_BINS, sum = 0.0, n = 0.0;
    for (int32_t b = 0; b < CHANNEL_PROFILE_BINS; ++b) {
        if (b * dz >= d && (b + 1) * dz <= h - d) {
            sum += channel_profile(st, b);
            n += 1.0;
        }
    }
    return n > 0.0 ? sum / n : NAN;
}

/* Relative change of the particle count between the two halves of the window,
 * from the history points inside it: near 0 in a steady state. */
static double particles_drift(const channel_stats *st) {
    const channel_history *h = &st->history;
    double mid = 0.5 * (st->window_start + st->window_end), sum[2] = {0, 0}, n[2] = {0, 0};
    for (int32_t i = 0; i < h->n; ++i) {
        if (h->t[i] >= st->window_start && h->t[i] <= st->window_end) {
            int half = h->t[i] > mid;
            sum[half] += h->particles[i];
            n[half] += 1.0;
        }
    }
    if (n[0] == 0.0 || n[1] == 0.0) {
        return NAN;
    }
    double a = sum[0] / n[0], b = sum[1] / n[1];
    return (b - a) / (0.5 * (a + b));
}

void channel_stats_summary(const channel_stats *st, const channel_scene *scene,
                           channel_summary *out) {
    memset(out, 0, sizeof *out);
    double n = st->samples > 0 ? (double)st->samples : NAN;
    out->particles_avg = st->particles / n;
    out->contacts_avg = st->contacts / n;
    out->detected_avg = st->detected / n;
    out->active_avg = st->active / n;
    out->particle_pairs_avg = st->particle_pairs / n;
    out->contacts_per_particle = 2.0 * out->contacts_avg / out->particles_avg;
    out->contacts_per_particle_force_carrying = 2.0 * out->active_avg / out->particles_avg;
    out->bed_height = st->bed_count > 0.0 ? 2.0 * st->bed_z_sum / st->bed_count : NAN;
    double bed_volume = (bed_x1 - bed_x0) * CHANNEL_WIDTH * out->bed_height;
    double bed_particles = st->bed_count / n;
    out->solid_fraction = bed_particles * channel_particle_volume(&scene->p) / bed_volume;
    out->rdf_density = bed_particles / bed_volume;
    out->solid_fraction_core = core_fraction(st, scene->p.diameter, out->bed_height);
    out->channel_fraction =
        out->particles_avg * channel_particle_volume(&scene->p) / channel_free_volume();
    find_speed_peak(st, out);
    double span = st->window_end - st->window_start;
    out->inflow_rate = span > 0.0 ? (double)(st->spawned_end - st->spawned_start) / span : NAN;
    out->outflow_rate = span > 0.0 ? (double)(st->removed_end - st->removed_start) / span : NAN;
    out->particles_drift = particles_drift(st);
}

double channel_rdf(const channel_stats *st, const channel_summary *sum, const channel_scene *scene,
                   int32_t b) {
    double h = CHANNEL_RDF_RANGE * scene->p.diameter / CHANNEL_RDF_BINS;
    double r0 = b * h, r1 = (b + 1) * h;
    double shell = 4.0 / 3.0 * pi * (r1 * r1 * r1 - r0 * r0 * r0);
    double expected = st->rdf_centres * sum->rdf_density * shell;
    return expected > 0.0 ? st->rdf_hist[b] / expected : NAN;
}
