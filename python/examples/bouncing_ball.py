#!/usr/bin/env python3
"""A ball dropped from h0 onto a rigid floor with Newton restitution e: the
Python twin of examples/bouncing_ball.c, built from the package's pieces
(System with Python callbacks, a Newton ContactLaw, the EventDriven stepper).

Impact k comes at t_k = t1 + sum_{j<k} 2 e^j v1 / g with t1 = sqrt(2 h0 / g);
the bounces accumulate at t_inf = t1 + 2 v1 e / (g (1 - e)), where the stepper
closes the contact and the ball rests.

usage: bouncing_ball.py [--h0 1] [--e 0.8] [--g 9.81] [--t-end 10]   (prints JSON)"""
import argparse
import json
import math
import os
import sys

try:
    import nscd
except ImportError:  # run from a source tree: the package next to this directory
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import nscd


def simulate(h0: float, e: float, g: float, t_end: float) -> dict:
    mass = 1.0
    with nscd.ContactLaw.newton(e) as newton, nscd.System(
            n_dof=1, n_contacts=1,
            mass=lambda q: [mass],
            forces=lambda t, q, v: [-mass * g],
            contact=lambda index, t, q: (q[0], [1.0])) as ball:  # gap q, row dg/dq = 1
        ball.set_contact(0, newton)  # the system keeps its own copy of the law
        ball.set_state(0.0, [h0], [0.0])
        with nscd.EventDriven(ball) as stepper:
            stepper.advance(t_end)
            events = stepper.events
    t1 = math.sqrt(2.0 * h0 / g)
    v1 = g * t1
    impacts, t_exact, speed, max_error = [], t1, v1, 0.0
    for ev in events:
        if ev.type != nscd.EventType.IMPACT:
            continue
        max_error = max(max_error, abs(ev.t - t_exact))
        impacts.append({"t": ev.t, "v_before": ev.gap_velocity_before[0],
                        "v_after": ev.gap_velocity_after[0], "t_analytic": t_exact})
        t_exact += 2.0 * e * speed / g
        speed *= e
    closed = [ev.t for ev in events if ev.type == nscd.EventType.CONTACT_CLOSED]
    rest = closed[0] if closed else None
    t_inf = t1 + 2.0 * v1 * e / (g * (1.0 - e)) if e < 1.0 else None
    return {"parameters": {"h0": h0, "e": e, "g": g, "t_end": t_end}, "impacts": impacts,
            "rest_time": rest, "rest_time_analytic": t_inf,
            "rest_time_error": abs(rest - t_inf) if rest is not None and t_inf else None,
            "max_impact_time_error": max_error, "impact_count": len(impacts)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--h0", type=float, default=1.0)
    parser.add_argument("--e", type=float, default=0.8)
    parser.add_argument("--g", type=float, default=9.81)
    parser.add_argument("--t-end", type=float, default=10.0)
    args = parser.parse_args()
    print(json.dumps(simulate(args.h0, args.e, args.g, args.t_end)))


if __name__ == "__main__":
    main()
