/* The joints layer (docs/joints.md): the constraint functions of ideal
 * joints and the gap functions of clearance joints, with their rows on the
 * two bodies' velocities (v, ω), ω in the world frame: the world's
 * velocity convention (world/world_model.c). Pure geometry: a joint is
 * evaluated at the two bodies' poses; the world stores joints and turns
 * each part into an entry of its model.
 *
 * A joint has parts (the entries of the model): an ideal joint one or two
 * equality parts of at most 3 rows each (so that the steppers keep every
 * multiplier: an entry's state holds 3 impulses), a clearance joint one
 * unilateral part per gap (normal row, then two tangent rows). One file
 * per joint: spherical.c, revolute.c, cylindrical.c, prismatic.c, fixed.c,
 * clearance_cylindrical.c, clearance_revolute.c, clearance_prismatic.c;
 * the table of the types (parts, values, evaluate, valid range) in
 * joint_types.c; the common rows in joint_rows.c. */
#ifndef NSCD_JOINTS_JOINT_H
#define NSCD_JOINTS_JOINT_H

#include <stdint.h>

#include "nscd/joint.h"

/* Parts of one joint: a prismatic clearance joint of an 8-gon has 32 gaps. */
#define NSCD__JOINT_MAX_PARTS (4 * NSCD_CLEARANCE_MAX_VERTICES)

/* A joint as the world stores it (validated). Side 0 is body a of an
 * ideal joint or the inner body of a clearance joint, side 1 body b or the
 * outer body. */
typedef struct nscd__joint_def {
    int32_t clearance; /* 0: ideal (type nscd_joint_type); 1: nscd_clearance_type */
    int32_t type;
    double frame_position[2][3]; /* local frame origin in its body's frame */
    double frame_rotation[2][9]; /* local frame -> body frame, row-major */
    double hole_radius, pin_radius, inner_length, outer_length;
    int32_t n_vertices;
    double guide[2 * NSCD_CLEARANCE_MAX_VERTICES];  /* cavity polygon (outer frame) */
    double slider[2 * NSCD_CLEARANCE_MAX_VERTICES]; /* offset polygon (inner frame) */
    double friction;
    /* ideal: hold H (v_{k+1} + v_k) = 0 (nscd_joint_desc); clearance: the
     * same, H (v_{k+1} + v_k) >= 0, on the gaps closed at the step's start */
    int32_t energy_form;
} nscd__joint_def;

/* The pose of one side: its body's frame origin (the centre of mass) and
 * rotation (body -> world, row-major); the ground is (0, I). */
typedef struct nscd__joint_pose {
    double x[3];
    double R[9];
} nscd__joint_pose;

/* One part evaluated: its values (the equations of an ideal part, the gap
 * of a clearance part in value[0]), its rows on side s's (v, ω) in
 * rows[s][r][0..5], and for a gap the contact frame (normal from the outer
 * to the inner body, then two tangents) and contact point. */
typedef struct nscd__joint_part {
    int32_t n_rows;
    int32_t equality; /* 1: equality rows; 0: a gap (normal + 2 tangents) */
    double value[3];
    double rows[2][3][6];
    double frame[9];
    double point[3];
} nscd__joint_part;

/* ------------------------------------------------------------ joint types
 * (joint_types.c). The frames of both sides in the world, at the poses. */
typedef struct nscd__joint_frames {
    double origin[2][3]; /* local frame origins, world */
    double axis[2][9];   /* rows: the local x, y, z axes in the world */
    double lever[2][3];  /* origin - body centre, world */
} nscd__joint_frames;

/* Evaluates part `part` of a joint of one type, its frames f at the poses. */
typedef void (*nscd__joint_evaluate_fn)(const nscd__joint_def *def, const nscd__joint_frames *f,
                                        const nscd__joint_pose pose[2], int32_t part,
                                        nscd__joint_part *out);

/* One row per joint type (ideal nscd_joint_type, clearance
 * nscd_clearance_type) in joint_types.c: what the world needs to know of a
 * type, in place of switches and range checks over the enums. A new type
 * is a file with its evaluate function and a row there. */
typedef struct nscd__joint_kind {
    const char *name;
    /* parts: `parts`, plus parts_per_vertex per vertex of the guide polygon */
    int32_t parts;
    int32_t parts_per_vertex;
    /* constraint values: an ideal joint's equations; 0: one per part (gaps) */
    int32_t values;
    int32_t equality;   /* 1: its parts are equality rows; 0: gaps */
    int32_t polygon;    /* clearance geometry: a guide polygon offset by c */
    int32_t axial_play; /* clearance geometry: needs outer_length > inner_length */
    nscd__joint_evaluate_fn evaluate;
} nscd__joint_kind;

/* The row of a type (clearance 0: nscd_joint_type, 1: nscd_clearance_type);
 * NULL when there is no such type: the valid range. */
const nscd__joint_kind *nscd__joint_kind_of(int32_t clearance, int32_t type);

/* Number of parts of a (validated) joint. */
int32_t nscd__joint_part_count(const nscd__joint_def *def);
/* Total constraint values of a joint (equations or gaps). */
int32_t nscd__joint_value_count(const nscd__joint_def *def);
/* Evaluates part `part` of a joint at the two poses. */
void nscd__joint_evaluate(const nscd__joint_def *def, int32_t part, const nscd__joint_pose pose[2],
                          nscd__joint_part *out);
/* The same from the frames of the poses (nscd__joint_frames_at), computed
 * once for every part of a joint: bitwise nscd__joint_evaluate. */
void nscd__joint_evaluate_frames(const nscd__joint_def *def, int32_t part,
                                 const nscd__joint_frames *f, const nscd__joint_pose pose[2],
                                 nscd__joint_part *out);

/* ------------------------------------------------------------ shared rows
 * (joint_rows.c). */
void nscd__joint_frames_at(const nscd__joint_def *def, const nscd__joint_pose pose[2],
                           nscd__joint_frames *f);
/* Row of Φ = e·(p_1 - p_0), the origins' difference along a fixed world
 * direction e (the spherical equations), into part row r. */
void nscd__joint_point_row(const nscd__joint_frames *f, const double e[3], nscd__joint_part *out,
                           int32_t r);
/* Row of the dot-1 condition Φ = u·w with u a unit axis of side 0's frame
 * and w of side 1's (Haug): dΦ/dt = ω_0·(u × w) + ω_1·(w × u). */
void nscd__joint_dot1_row(const double u[3], const double w[3], nscd__joint_part *out, int32_t r);
/* Row of the dot-2 condition Φ = u·(p_1 - p_0), u an axis of side 0:
 * u·(velocity of side 1 minus that of side 0 at p_1) plus the turn of u. */
void nscd__joint_dot2_row(const nscd__joint_frames *f, const nscd__joint_pose pose[2],
                          const double u[3], nscd__joint_part *out, int32_t r);
/* A gap part: value g, contact point p, frame from the unit normal n (the
 * direction from the outer side 1 to the inner side 0) and the rows
 * e_k·(v_0(p) - v_1(p)) for e = n, t, o: g' = n·(v_0(p) - v_1(p)) exactly
 * when g's derivative is that relative velocity (docs/joints.md). */
void nscd__joint_gap_part(const nscd__joint_pose pose[2], double g, const double p[3],
                          const double n[3], nscd__joint_part *out);

/* Per joint type (one file each), nscd__joint_evaluate_fn's contract. */
void nscd__joint_spherical(const nscd__joint_def *def, const nscd__joint_frames *f,
                           const nscd__joint_pose pose[2], int32_t part, nscd__joint_part *out);
void nscd__joint_revolute(const nscd__joint_def *def, const nscd__joint_frames *f,
                          const nscd__joint_pose pose[2], int32_t part, nscd__joint_part *out);
void nscd__joint_cylindrical(const nscd__joint_def *def, const nscd__joint_frames *f,
                             const nscd__joint_pose pose[2], int32_t part, nscd__joint_part *out);
void nscd__joint_prismatic(const nscd__joint_def *def, const nscd__joint_frames *f,
                           const nscd__joint_pose pose[2], int32_t part, nscd__joint_part *out);
void nscd__joint_fixed(const nscd__joint_def *def, const nscd__joint_frames *f,
                       const nscd__joint_pose pose[2], int32_t part, nscd__joint_part *out);
void nscd__clearance_cylindrical(const nscd__joint_def *def, const nscd__joint_frames *f,
                                 const nscd__joint_pose pose[2], int32_t part,
                                 nscd__joint_part *out);
void nscd__clearance_revolute(const nscd__joint_def *def, const nscd__joint_frames *f,
                              const nscd__joint_pose pose[2], int32_t part, nscd__joint_part *out);
void nscd__clearance_prismatic(const nscd__joint_def *def, const nscd__joint_frames *f,
                               const nscd__joint_pose pose[2], int32_t part, nscd__joint_part *out);
/* The radial gap of the hole end at r (a world point of side 0). */
void nscd__clearance_radial_gap(const nscd__joint_def *def, const nscd__joint_frames *f,
                                const nscd__joint_pose pose[2], const double r[3],
                                nscd__joint_part *out);
/* The slider polygon: the cavity offset inwards by c; 0 when it is
 * convex, counter-clockwise and the offset is not empty, else -1. */
int32_t nscd__clearance_offset_polygon(int32_t n, const double *guide, double c, double *slider);

#endif
