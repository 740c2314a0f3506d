"""nscd.World.set_material_resistance and material_resistance (0.2): a ball
rolling on a floor decelerates at a = -(5/7) mu_r g / r (the torque mu_r N on
a solid ball rolling without slip) and stops; a ball spinning about the
normal stops at dw/dt = -mu_s m g / I; bad lengths raise and change nothing."""
import math

import pytest

np = pytest.importorskip("numpy")

import nscd  # noqa: E402

R, G = 0.01, 9.81


def rolling_world(rolling, spinning, v=0.0, spin=0.0):
    world = nscd.World(tolerance=1e-9, max_sweeps=200)
    world.set_material_resistance(0, rolling, spinning)
    world.add_half_space(point=(0, 0, 0), normal=(0, 0, 1))
    ball = world.add_sphere(R, position=(0, 0, R), velocity=(v, 0, 0),
                            angular_velocity=(0, v / R, spin), density=7800.0)
    return world, ball


def test_rolling_ball_decelerates_and_stops():
    mu_r, v0, dt = 1e-3, 0.3, 1e-3
    a = -5.0 / 7.0 * mu_r * G / R
    world, ball = rolling_world(mu_r, 0.0, v=v0)
    with world:
        world.step(200)
        v = world.get_body(ball)[2][0]
        assert v == pytest.approx(v0 + a * 200 * dt, abs=2 * abs(a) * dt)
        world.step(400)                         # past the stop at -v0 / a = 0.43 s
        _, _, v, w = world.get_body(ball)
        assert abs(v[0]) < 1e-6 and abs(w[1]) < 1e-4


def test_spinning_ball_stops():
    mu_s, spin, dt = 1e-4, 10.0, 1e-3
    world, ball = rolling_world(0.0, mu_s, spin=spin)
    with world:
        m, inertia = world.body_mass(ball)
        rate = mu_s * m * G / inertia[2]
        world.step(100)
        assert world.get_body(ball)[3][2] == pytest.approx(spin - rate * 100 * dt,
                                                           abs=2 * rate * dt)
        world.step(int(math.ceil(spin / rate / dt)))
        assert abs(world.get_body(ball)[3][2]) < 1e-6


def test_bad_lengths_raise_and_change_nothing():
    with nscd.World() as world:
        m = world.add_material(0.3)
        assert world.material_resistance(m) == (0.0, 0.0)
        world.set_material_resistance(m, 2e-4, 1e-4)
        for args in ((m, -1.0, 0.0), (m, 0.0, float("nan")), (m, float("inf"), 0.0), (7, 0.0, 0.0)):
            with pytest.raises(nscd.NscdError):
                world.set_material_resistance(*args)
        assert world.material_resistance(m) == (2e-4, 1e-4)
        with pytest.raises(nscd.NscdError):
            world.material_resistance(-1)
