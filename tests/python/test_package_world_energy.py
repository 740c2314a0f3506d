"""nscd.World.add_half_space, potential_energy and total_energy (0.2): the
plane through a point with a normal, and the energies against -m g.x and the
free flight of the world's step (m |g|^2 dt^2 / 2 lost per step)."""
import pytest

np = pytest.importorskip("numpy")

import nscd  # noqa: E402


def test_half_space_frame_and_kinematic_body():
    with nscd.World() as world:
        plane = world.add_half_space(point=(0.5, 0, -1), normal=(0, 3, -4), type="kinematic",
                                     velocity=(1, 0, 0), user_id=9)
        x, q, _, _ = world.get_body(plane)
        w, a, b, c = q
        z = np.array([2 * (a * c + w * b), 2 * (b * c - w * a), 1 - 2 * (a * a + b * b)])
        assert np.allclose(x, (0.5, 0, -1), rtol=0, atol=0)
        assert np.allclose(z, (0, 0.6, -0.8), rtol=0, atol=1e-15)
        assert int(world.bodies().user_ids[0]) == 9
        with pytest.raises(TypeError):
            world.add_half_space(position=(0, 0, 0))
        with pytest.raises(nscd.NscdError):
            world.add_half_space(type="dynamic")
        assert len(world) == 1


def test_energies_in_free_flight():
    g, dt = np.array([0.3, -0.4, -9.81]), 1e-3
    with nscd.World(gravity=tuple(g), dt=dt) as world:
        ball = world.add_sphere(0.1, position=(0.3, -0.2, 5.0), velocity=(1.0, 0.5, 2.0),
                                angular_velocity=(3.0, -1.0, 2.0))
        world.add_half_space(point=(0, 0, -100))          # static: no energy
        m = world.body_mass(ball)[0]
        x = world.get_body(ball)[0]
        assert world.potential_energy() == pytest.approx(-m * g @ x, rel=1e-14)
        assert world.total_energy() == pytest.approx(world.kinetic_energy()
                                                     + world.potential_energy(), rel=1e-15)
        e0 = world.total_energy()
        world.step(500)
        expected = e0 - 500 * 0.5 * m * (g @ g) * dt * dt
        assert world.total_energy() == pytest.approx(expected, rel=1e-12)


def test_body_contact_impulse_of_a_resting_pile():
    """Three spheres stacked on the ground: the ground takes the whole weight,
    -3 m g dt, the bottom sphere m g dt net; the moment about the centres is
    zero."""
    r, dt = 0.05, 1e-3
    with nscd.World(dt=dt, tolerance=1e-13, max_sweeps=200) as world:
        ground = world.add_half_space()
        balls = [world.add_sphere(r, position=(0, 0, r + 2 * r * k)) for k in range(3)]
        world.step(100)
        m = world.body_mass(balls[0])[0]
        p_ground, _ = world.body_contact_impulse(ground)
        assert np.allclose(p_ground, (0, 0, -3 * m * 9.81 * dt), rtol=0, atol=1e-9 * m * dt)
        x, _, v, _ = world.get_body(balls[0])
        p, moment = world.body_contact_impulse(balls[0], about=x - dt * v)
        assert np.allclose(p, (0, 0, m * 9.81 * dt), rtol=0, atol=1e-9 * m * dt)
        assert np.allclose(moment, 0, atol=1e-12)
        with pytest.raises(nscd.NscdError):
            world.body_contact_impulse(balls[0], about=(0, float("nan"), 0))
