/* Statistics of the granular channel (seed 002, Sect. 4.3, Table 2 and Figs. 10-12),
 * gathered from the world's bulk copy-out at sample times after a warm-up.
 *
 * Definitions (docs/granular_channel.md):
 * - particles: live particles at a sample;
 * - contacts: contact points whose gap at detection is below pe's contact
 *   threshold, 1e-8 m at the paper's d = 0.47 mm (pe/Thresholds.h,
 *   contactThreshold of Thresholds<double>; pe creates a contact when the
 *   distance is below it), scaled with the diameter: CHANNEL_CONTACT_THRESHOLD
 *   x d; also reported: all contacts the solver saw within the margin
 *   ("detected"), those with a positive normal impulse ("active"), and
 *   particle-particle contacts only;
 * - contacts per particle: 2 x contacts / particles (the paper's Table 2);
 * - bed: particles whose centre lies in x in [8, 14] cm (downstream of the
 *   obstacle, before the outlet); bed height h = 2 x their mean centre height
 *   (exact for a statistically uniform layer on the floor); solid fraction =
 *   their volume / (6 cm x 6.5 cm x h);
 * - solid fraction profile of the bed: the exact volume of the bed particles'
 *   spheres inside each of CHANNEL_PROFILE_BINS horizontal slabs of the channel
 *   height (sphere-slab intersections), over the slab volume; the bed's core
 *   is the profile's mean over z in [d, h - d] (one diameter away from the
 *   floor and from the free surface);
 * - force-carrying contacts per particle: 2 x active contacts / particles
 *   (the coordination number of granular physics counts the contacts that
 *   carry a force);
 * - speed and angular speed maps: |v| and |omega| averaged per cell of 150 x 65
 *   cells of 1 x 1 mm in x-y (all z), over every sample of the window (the paper
 *   uses its last frame, which at k > 1 holds too few particles per cell);
 * - speed peak: the largest cell mean speed in x in [3, 7] cm (around and past
 *   the obstacle) among cells with at least CHANNEL_MAP_MIN_COUNT particle samples;
 * - radial distribution function: particles with centres in [12, 14] cm x all y x
 *   all z (the paper's region), distances up to 5 d in bins of d / 20, normalised
 *   by the number of centres, the shell volume and the bed's number density. */
#ifndef NSCD_GRANULAR_STATS_H
#define NSCD_GRANULAR_STATS_H

#include <stdint.h>

#include "granular_scene.h"

#define CHANNEL_MAP_NX 150
#define CHANNEL_MAP_NY 65
#define CHANNEL_MAP_MIN_COUNT 20
#define CHANNEL_RDF_BINS 100
#define CHANNEL_PROFILE_BINS 200
/* pe's contact threshold in diameters: 1e-8 m / 0.47 mm */
#define CHANNEL_CONTACT_THRESHOLD (1e-8 / 0.47e-3)
#define CHANNEL_RDF_RANGE 5.0 /* diameters */
#define CHANNEL_HISTORY_MAX 4096

typedef struct channel_history {
    int32_t n;
    double t[CHANNEL_HISTORY_MAX];
    double particles[CHANNEL_HISTORY_MAX];
    double contacts[CHANNEL_HISTORY_MAX];
    double spawned[CHANNEL_HISTORY_MAX];
    double removed[CHANNEL_HISTORY_MAX];
} channel_history;

typedef struct channel_stats {
    double warmup; /* s: samples before this time are not averaged */
    /* sums over the samples of the window */
    int64_t samples;
    double particles, contacts, detected, active, particle_pairs;
    double window_start, window_end; /* s */
    int64_t spawned_start, removed_start, spawned_end, removed_end;
    /* every step of the window / of the run */
    double max_penetration, max_penetration_run;
    int64_t escaped_seen, not_finite_seen;
    /* maps: sums and counts per cell, x-major */
    double speed_sum[CHANNEL_MAP_NX * CHANNEL_MAP_NY];
    double omega_sum[CHANNEL_MAP_NX * CHANNEL_MAP_NY];
    double map_count[CHANNEL_MAP_NX * CHANNEL_MAP_NY];
    /* bed region */
    double bed_count, bed_z_sum;
    double bed_profile[CHANNEL_PROFILE_BINS]; /* solid volume per slab, m^3 */
    /* radial distribution */
    int64_t rdf_samples;
    double rdf_hist[CHANNEL_RDF_BINS];
    double rdf_centres;
    channel_history history;
    /* copy-out buffers */
    int32_t body_capacity, contact_capacity;
    uint64_t *user_ids;
    double *positions, *velocities, *omegas;
    uint64_t *body_a, *body_b;
    double *gaps, *impulses;
    int32_t *cell_start, *cell_items, cell_capacity, item_capacity;
} channel_stats;

/* Results derived from the sums. */
typedef struct channel_summary {
    double particles_avg, contacts_avg, detected_avg, active_avg, particle_pairs_avg;
    double contacts_per_particle;
    double contacts_per_particle_force_carrying; /* 2 x active / particles */
    double bed_height, solid_fraction;
    double solid_fraction_core; /* the profile's mean over z in [d, h - d] */
    /* particles_avg x particle volume / free channel volume: Table 2's "solid
     * volume fraction" computed with the volume of a sphere of radius d (8 times
     * too large) is 8 times this (docs/granular_channel.md, section 2) */
    double channel_fraction;
    double speed_peak, speed_peak_x, speed_peak_y;
    double inflow_rate, outflow_rate;
    double particles_drift; /* (second half - first half) / mean of the window */
    double rdf_density;     /* number density used for g(r), 1/m^3 */
} channel_summary;

void channel_stats_init(channel_stats *st, double warmup);
void channel_stats_free(channel_stats *st);

/* After every step: penetration of the step. */
void channel_stats_step(channel_stats *st, const channel_scene *scene,
                        const nscd_world_step_report *report);
/* A sample of the current state; `rdf` also adds to the radial distribution.
 * Returns NSCD_OK or the status of a failed copy-out / allocation. */
nscd_status channel_stats_sample(channel_stats *st, const channel_scene *scene, int rdf);
/* A point of the time history (particles, contacts, spawned, removed). */
nscd_status channel_stats_history(channel_stats *st, const channel_scene *scene);

void channel_stats_summary(const channel_stats *st, const channel_scene *scene,
                           channel_summary *out);
/* Mean of a map cell (speed or angular speed), NaN when empty. */
double channel_map_mean(const channel_stats *st, const double *sum, int32_t ix, int32_t iy);
/* Solid fraction of the bed in slab b (z from b to b + 1 times
 * CHANNEL_HEIGHT / CHANNEL_PROFILE_BINS), NaN before any sample. */
double channel_profile(const channel_stats *st, int32_t b);
/* g(r) at bin b (centre (b + 1/2) x range / bins, in diameters). */
double channel_rdf(const channel_stats *st, const channel_summary *sum, const channel_scene *scene,
                   int32_t b);

#endif
