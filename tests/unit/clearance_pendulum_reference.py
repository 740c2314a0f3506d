#!/usr/bin/python3
"""The conservative clearance pendulum, independently of nscd (docs/joints.md,
"The energy form of the clearance gaps"): scipy's DOP853 on Lagrange's
equations of a body whose hole stays in frictionless contact with a pin
fixed to the ground.

Planar model (examples/revolute_pendulum.c's parameters): the pin's axis is
the world z axis through the origin; the hole's centre is at c n(φ) from it,
n(φ) = (sin φ, -cos φ), c = R_hole - R_pin; the centre of mass is at L from
the hole's centre along the body's direction (sin θ, -cos θ), θ the body's
rotation (0 hanging). Two degrees of freedom (θ, φ):

    x_cm = c n(φ) + L (sin θ, -cos θ)
    T = m/2 (c² φ'² + L² θ'² + 2 c L φ' θ' cos(φ - θ)) + I_cm/2 θ'²
    V = -m g (c cos φ + L cos θ)

The contact force on the body is -N n(φ); N = m (g_vec - a_cm)·n(φ) must stay
>= 0 (the script reports its minimum: if it were negative, the pin would
leave the wall and the model would not hold).

The state after the first plastic impact (derived, docs/joints.md): released
at rest horizontal with the hole concentric, the body falls straight down
without turning for t1 = sqrt(2c/g) and meets the pin at the bottom of the
hole (φ = 0) with v0 = g t1; the plastic impulse P = m v0 I_cm/I_O at the
hole's centre (lever L) gives v_cm = (0, -v0 + P/m), θ' = -L P/I_cm and a
hole centre at rest (φ' = 0); the impact takes m g c I_cm/I_O.

The period is nscd's: the time between the first two upward zero crossings
of the centre of mass's angle atan2(x, -y) about the pin axis.

Usage: clearance_pendulum_reference.py [--json]
"""
import json
import math
import sys

import numpy as np
from scipy.integrate import solve_ivp

M, L, I_CM, G = 1.0, 0.5, 0.02, 9.81
C = 1e-4  # R_hole - R_pin


def accelerations(theta, phi, dtheta, dphi):
    """θ'', φ'' from Lagrange's equations (the mass matrix solved)."""
    s, co = math.sin(phi - theta), math.cos(phi - theta)
    a = np.array([[M * L * L + I_CM, M * C * L * co], [M * C * L * co, M * C * C]])
    b = np.array([M * C * L * s * dphi**2 - M * G * L * math.sin(theta),
                  -M * C * L * s * dtheta**2 - M * G * C * math.sin(phi)])
    return np.linalg.solve(a, b)


def rhs(t, y):
    theta, phi, dtheta, dphi = y
    ddtheta, ddphi = accelerations(theta, phi, dtheta, dphi)
    return [dtheta, dphi, ddtheta, ddphi]


def centre_of_mass(y):
    theta, phi = y[0], y[1]
    return np.array([C * math.sin(phi) + L * math.sin(theta),
                     -C * math.cos(phi) - L * math.cos(theta)])


def normal_force(y):
    """N = m (g_vec - a_cm)·n(φ), the pin's push on the body along -n."""
    theta, phi, dtheta, dphi = y
    ddtheta, ddphi = accelerations(theta, phi, dtheta, dphi)
    n = np.array([math.sin(phi), -math.cos(phi)])
    t_phi = np.array([math.cos(phi), math.sin(phi)])
    t_theta = np.array([math.cos(theta), math.sin(theta)])
    r_theta = np.array([math.sin(theta), -math.cos(theta)])
    a = C * (ddphi * t_phi - dphi**2 * n) + L * (ddtheta * t_theta - dtheta**2 * r_theta)
    return M * (np.array([0.0, -G]) - a) @ n


def energy(y):
    theta, phi, dtheta, dphi = y
    t = 0.5 * M * (C * C * dphi**2 + L * L * dtheta**2 +
                   2 * C * L * dphi * dtheta * math.cos(phi - theta)) + 0.5 * I_CM * dtheta**2
    return t - M * G * (C * math.cos(phi) + L * math.cos(theta))


def after_first_impact():
    """(t1, state) right after the plastic impact at the bottom of the hole."""
    t1 = math.sqrt(2 * C / G)
    v0 = G * t1
    i_o = I_CM + M * L * L
    p = M * v0 * I_CM / i_o
    return t1, np.array([math.pi / 2, 0.0, -L * p / I_CM, 0.0]), M * G * C * I_CM / i_o


def angle_event(t, y):
    x = centre_of_mass(y)
    return math.atan2(x[0], -x[1])


angle_event.direction = 1.0


def run(t_end=4.0):
    t1, y0, loss = after_first_impact()
    sol = solve_ivp(rhs, (t1, t_end), y0, method="DOP853", rtol=1e-12, atol=1e-14,
                    events=angle_event, dense_output=True, max_step=1e-3)
    crossings = sol.t_events[0]
    samples = np.linspace(t1, t_end, 40001)
    states = sol.sol(samples)
    n_min = min(normal_force(states[:, k]) for k in range(states.shape[1]))
    energies = [energy(states[:, k]) for k in range(0, states.shape[1], 100)]
    e0 = -M * G * L * math.cos(math.pi / 2)  # E(0) = 0: released at rest horizontal
    return {
        "first_impact_time": t1,
        "energy_loss_first_impact": loss,
        "energy_after_impact": energy(y0),
        "energy_expected_after_impact": e0 - loss,
        "energy_drift": max(abs(e - energy(y0)) for e in energies),
        "crossings": list(crossings[:3]),
        "period": crossings[1] - crossings[0],
        "min_normal_force": n_min,
        "min_normal_force_over_mg": n_min / (M * G),
    }


if __name__ == "__main__":
    result = run()
    if "--json" in sys.argv:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key}: {value!r}")
