"""nscd.World: the Python binding of the rigid-body world (include/nscd/world.h)."""
import math

import pytest

np = pytest.importorskip("numpy")

import nscd  # noqa: E402
from nscd import _library  # noqa: E402

if not hasattr(_library.library(), "nscd_world_create"):
    pytest.skip("the library has no world yet (nscd_world_create is not exported)",
                allow_module_level=True)

G = 9.81


def test_sphere_falls_onto_the_ground_and_rests_at_its_radius():
    r = 0.05
    with nscd.World(gravity=(0, 0, -G), dt=1e-3, friction_law="max_dissipation") as world:
        ground = world.add_half_space()  # z <= 0
        ball = world.add_sphere(r, position=(0.0, 0.0, 0.3), density=2650.0)
        # Free fall first: no contact until the sphere nears the ground, and the
        # explicit velocity update gives v = -g t exactly (x' = x + dt v').
        world.step(10)
        _, _, v, _ = world.get_body(ball)
        assert v[2] == pytest.approx(-G * 10 * 1e-3, rel=1e-12)
        assert world.time == pytest.approx(10e-3, rel=1e-12)
        world.step(1500)  # falls 0.25 m in about 0.23 s, then rests
        p, q, v, w = world.get_body(ball)
        assert p[2] == pytest.approx(r, abs=1e-6)  # at rest on the plane, no sinking
        assert abs(p[0]) < 1e-9 and abs(p[1]) < 1e-9  # a vertical drop stays vertical
        assert np.linalg.norm(v) < 1e-3
        assert np.linalg.norm(q) == pytest.approx(1.0, abs=1e-12)
        report = world.step()
        assert report.contacts == 1
        contacts = world.contacts()
        assert contacts.normals.shape == (1, 3)
        # The normal impulse carries the weight over one step: m g dt.
        mass, _ = world.body_mass(ball)
        assert mass == pytest.approx(2650.0 * 4.0 / 3.0 * math.pi * r**3, rel=1e-12)
        assert contacts.impulses[0, 0] == pytest.approx(mass * G * 1e-3, rel=1e-6)
        assert np.allclose(contacts.impulses[0, 1:], 0.0, atol=1e-12)  # no friction needed
        # The normal points from body a to body b: from the ground up into the ball.
        pair = (int(contacts.body_a[0]), int(contacts.body_b[0]))
        assert pair in ((ground, ball), (ball, ground))
        assert contacts.normals[0, 2] == pytest.approx(1.0 if pair[0] == ground else -1.0)
        assert contacts.points[0, 2] == pytest.approx(0.0, abs=1e-6)
        assert world.kinetic_energy() < 1e-6 * mass * G * r


def test_bulk_arrays_have_one_row_per_body_and_match_get_body():
    with nscd.World(dt=1e-3) as world:
        world.add_half_space()
        ids = [world.add_sphere(0.01, position=(0.03 * i, 0.0, 0.01), user_id=100 + i,
                                velocity=(0.1 * i, 0.0, 0.0)) for i in range(7)]
        world.step(5)
        bodies = world.bodies()
        n = 8  # the ground and seven spheres
        assert len(world) == n
        assert bodies.ids.shape == (n,) and bodies.ids.dtype == np.uint64
        assert bodies.user_ids.shape == (n,)
        assert bodies.positions.shape == (n, 3)
        assert bodies.orientations.shape == (n, 4)
        assert bodies.velocities.shape == (n, 3)
        assert bodies.angular_velocities.shape == (n, 3)
        assert set(int(i) for i in bodies.ids) >= set(ids)
        for k, body_id in enumerate(int(i) for i in bodies.ids):
            p, q, v, w = world.get_body(body_id)
            assert np.array_equal(p, bodies.positions[k])
            assert np.array_equal(q, bodies.orientations[k])
            assert np.array_equal(v, bodies.velocities[k])
            assert np.array_equal(w, bodies.angular_velocities[k])
        user = {int(i): int(u) for i, u in zip(bodies.ids, bodies.user_ids)}
        assert [user[i] for i in ids] == [100 + i for i in range(7)]
        report = world.step()
        contacts = world.contacts()
        m = len(contacts.gaps)
        assert m == report.contacts
        assert contacts.body_a.shape == (m,) and contacts.body_b.shape == (m,)
        assert contacts.points.shape == (m, 3) and contacts.impulses.shape == (m, 3)
        assert m == 7  # every sphere touches the ground, none touches another


def test_stale_id_raises_stale_handle():
    with nscd.World() as world:
        body = world.add_sphere(0.1, position=(0, 0, 1))
        assert body in world
        world.remove_body(body)
        assert body not in world and len(world) == 0
        for call in (lambda: world.remove_body(body), lambda: world.get_body(body),
                     lambda: world.set_body(body, velocity=(1, 0, 0)),
                     lambda: world.body_mass(body)):
            with pytest.raises(nscd.NscdError) as err:
                call()
            assert err.value.status == nscd.Status.ERR_STALE_HANDLE
        # The slot is reused by a new body; the old id stays stale.
        again = world.add_sphere(0.1, position=(0, 0, 1))
        assert again != body and again in world and body not in world
        with pytest.raises(nscd.NscdError) as err:
            world.get_body(body)
        assert err.value.status == nscd.Status.ERR_STALE_HANDLE


def test_applied_force_accelerates_a_free_sphere():
    """v = F t / m and ω = τ t / I under a constant applied load (no gravity);
    the load is read back, None removes it, a static body refuses one."""
    with nscd.World(dt=1e-3, gravity=(0.0, 0.0, 0.0)) as world:
        ground = world.add_half_space()
        ball = world.add_sphere(0.1, position=(0.0, 0.0, 1.0))
        mass, inertia = world.body_mass(ball)
        world.set_applied_force(ball, force=(1.0, 0.0, -2.0), torque=(0.0, 0.01, 0.0))
        force, torque = world.applied_force(ball)
        assert list(force) == [1.0, 0.0, -2.0] and list(torque) == [0.0, 0.01, 0.0]
        world.step(100)
        _, _, v, om = world.get_body(ball)
        assert v[0] == pytest.approx(1.0 * 0.1 / mass, rel=1e-12)
        assert v[2] == pytest.approx(-2.0 * 0.1 / mass, rel=1e-12)
        assert om[1] == pytest.approx(0.01 * 0.1 / inertia[1], rel=1e-12)
        world.set_applied_force(ball)
        assert not world.applied_force(ball)[0].any()
        world.step(10)
        assert world.get_body(ball)[2][0] == pytest.approx(v[0], rel=1e-15)
        with pytest.raises(nscd.NscdError) as err:
            world.set_applied_force(ground, force=(1.0, 0.0, 0.0))
        assert err.value.status == nscd.Status.ERR_INVALID_ARGUMENT


@pytest.mark.parametrize("settings, status", [
    (dict(dt=0.0), nscd.Status.ERR_OUT_OF_RANGE),
    (dict(error_reduction=1.0), nscd.Status.ERR_OUT_OF_RANGE),
    (dict(max_sweeps=0), nscd.Status.ERR_OUT_OF_RANGE),
    (dict(dt=float("nan")), nscd.Status.ERR_NOT_FINITE),
])
def test_bad_world_settings_raise(settings, status):
    with pytest.raises(nscd.NscdError) as err:
        nscd.World(**settings)
    assert err.value.status == status


def test_bad_bodies_raise_and_change_nothing():
    with nscd.World() as world:
        with pytest.raises(nscd.NscdError) as err:
            world.add_sphere(-0.1, position=(0, 0, 1))
        assert err.value.status == nscd.Status.ERR_OUT_OF_RANGE
        assert err.value.last_error  # the world says why
        with pytest.raises(nscd.NscdError) as err:
            world.add_body([], type="dynamic")  # no shape and no mass
        assert err.value.status == nscd.Status.ERR_OUT_OF_RANGE
        with pytest.raises(nscd.NscdError) as err:
            world.add_body(nscd.Shape.half_space(), type="dynamic")
        assert err.value.status == nscd.Status.ERR_OUT_OF_RANGE
        with pytest.raises(nscd.NscdError) as err:
            world.add_sphere(0.1, position=(0, 0, 1), material=7)
        assert err.value.status == nscd.Status.ERR_INDEX
        assert len(world) == 0
        with pytest.raises(ValueError):
            world.add_sphere(0.1, position=(0, 0))
        with pytest.raises(ValueError):
            nscd.World(friction_law="stribeck")
        with pytest.raises(TypeError):
            nscd.World(gravitation=(0, 0, -1))


def test_kinematic_body_moves_with_its_velocity_and_has_no_mass():
    with nscd.World(dt=1e-3) as world:
        plate = world.add_body(nscd.Shape.box((0.1, 0.1, 0.01)), type=nscd.BodyType.KINEMATIC,
                               velocity=(1.0, 0.0, 0.0))
        world.step(100)
        p, _, v, _ = world.get_body(plate)
        assert p[0] == pytest.approx(0.1, rel=1e-12) and v[0] == 1.0
        assert world.body_mass(plate)[0] == 0.0


def test_materials_and_pair_override():
    with nscd.World(default_friction=0.3) as world:
        ice = world.add_material(0.05)
        assert ice == 1
        world.set_pair_friction(0, ice, 0.1)
        with pytest.raises(nscd.NscdError) as err:
            world.add_material(-1.0)
        assert err.value.status == nscd.Status.ERR_OUT_OF_RANGE


def test_sliding_box_stops_at_the_coulomb_distance():
    """A box launched at v0 on a floor with μ stops after v0²/(2 μ g)."""
    mu, v0, h = 0.4, 1.0, 0.05
    with nscd.World(dt=1e-4, default_friction=mu, max_sweeps=20) as world:
        world.add_half_space()
        box = world.add_body(nscd.Shape.box((h, h, h)), position=(0, 0, h),
                             velocity=(v0, 0, 0))
        world.step(4000)  # stops at t = v0 / (μ g) = 0.255 s
        p, _, v, _ = world.get_body(box)
        assert np.linalg.norm(v) < 1e-3
        assert p[0] == pytest.approx(v0**2 / (2 * mu * G), rel=2e-2)


def test_write_csv_and_vtk(tmp_path):
    with nscd.World() as world:
        for i in range(3):
            world.add_sphere(0.1, position=(i, 0, 1), user_id=i + 1)
        world.write(tmp_path / "w.csv")
        world.write(tmp_path / "w.vtk", "vtk")
        rows = [line for line in (tmp_path / "w.csv").read_text().splitlines()
                if line and line[0].isdigit()]
        assert len(rows) == 3
        assert (tmp_path / "w.vtk").read_text().startswith("# vtk DataFile")
        with pytest.raises(nscd.NscdError) as err:
            world.write(tmp_path / "missing" / "w.csv")
        assert err.value.status == nscd.Status.ERR_IO


def test_same_world_twice_is_bitwise_identical():
    def run():
        rng = np.random.default_rng(7)
        with nscd.World(dt=1e-3, friction_law="coulomb") as world:
            world.add_half_space()
            for i in range(40):
                world.add_sphere(0.01, position=(0.025 * (i % 5), 0.025 * (i // 5 % 4),
                                                 0.02 + 0.025 * (i // 20)),
                                 velocity=rng.uniform(-0.2, 0.2, 3))
            world.step(200)
            return world.bodies()

    a, b = run(), run()
    for x, y in zip(a, b):
        assert np.array_equal(x, y)


def test_closed_world_refuses_calls():
    world = nscd.World()
    world.close()
    with pytest.raises(ValueError):
        world.step()
    world.close()  # twice is harmless


@pytest.mark.parametrize("law", ["coulomb", "max_dissipation"])
def test_sliding_sphere_ends_rolling_at_five_sevenths(law):
    """A sphere launched without spin slides until v = ω r; with I = 2/5 m r²
    the momentum balance about the contact point gives v = 5/7 v0."""
    r, v0, mu = 0.05, 1.0, 0.3
    with nscd.World(dt=1e-4, default_friction=mu, friction_law=law, max_sweeps=20) as world:
        world.add_half_space()
        ball = world.add_sphere(r, position=(0, 0, r), velocity=(v0, 0, 0))
        world.step(1500)  # slides for 2 v0 / (7 μ g) = 0.068 s, then rolls
        _, _, v, w = world.get_body(ball)
        assert v[0] == pytest.approx(5.0 / 7.0 * v0, rel=1e-3)
        assert w[1] * r == pytest.approx(v[0], rel=1e-6)  # rolling without slipping: v = ω r
        assert abs(v[1]) < 1e-12 and abs(w[0]) < 1e-12 and abs(w[2]) < 1e-12


@pytest.mark.parametrize("normal", [(0.6, 0.0, 0.8), (0.0, -1.0, 0.0), (0.0, 0.0, -1.0)])
def test_half_space_with_any_normal(normal):
    """add_half_space rotates the shape's +z onto `normal`: a sphere touching the
    plane from outside gets one contact whose normal is the plane's."""
    n = np.array(normal)
    r, point = 0.1, np.array([0.2, -0.1, 0.3])
    with nscd.World(gravity=(0, 0, 0)) as world:
        plane = world.add_half_space(point=point, normal=3.0 * n)  # any length
        ball = world.add_sphere(r, position=point + (r + 1e-4) * n + 0.05 * np.cross(n, [0, 1, 0]))
        world.step()
        contacts = world.contacts()
        assert len(contacts.gaps) == 1
        assert contacts.gaps[0] == pytest.approx(1e-4, abs=1e-12)
        sign = 1.0 if int(contacts.body_a[0]) == plane else -1.0
        assert int(contacts.body_b[0] if sign > 0 else contacts.body_a[0]) == ball
        assert np.allclose(sign * contacts.normals[0], n, atol=1e-12)
    with pytest.raises(ValueError):
        nscd.World().add_half_space(normal=(0, 0, 0))


def test_domain_outlet_removes_bodies_and_their_ids_go_stale():
    messages = []
    with nscd.World(gravity=(0, 0, 0), dt=1e-3, domain=((-1, -1, -1), (1, 1, 1)),
                    log=lambda level, text: messages.append((level, text))) as world:
        leaving = world.add_sphere(0.01, position=(0.995, 0, 0), velocity=(10.0, 0, 0))
        staying = world.add_sphere(0.01, position=(0, 0, 0), velocity=(0.1, 0, 0))
        report = world.step()
        assert report.bodies_removed == 1
        assert leaving not in world and staying in world and len(world) == 1
        assert [int(i) for i in world.bodies().ids] == [staying]
        with pytest.raises(nscd.NscdError) as err:
            world.get_body(leaving)
        assert err.value.status == nscd.Status.ERR_STALE_HANDLE
    assert all(isinstance(level, int) and isinstance(text, str) for level, text in messages)


def test_overlap_recovery_is_bounded_and_leaves_no_velocity():
    """Two balls created half-overlapping, no gravity: they part at no more
    than max_correction_speed and keep no velocity (the correction moves
    positions only; world_step.c, the relax pass)."""
    r, bound = 0.05, 0.05
    with nscd.World(gravity=(0, 0, 0), max_correction_speed=bound) as world:
        a = world.add_sphere(r, (0.0, 0.0, 0.0))
        b = world.add_sphere(r, (r, 0.0, 0.0))
        previous = r
        for _ in range(2000):
            report = world.step()
            distance = world.get_body(b)[0][0] - world.get_body(a)[0][0]
            assert (distance - previous) / world.dt <= bound * (1 + 1e-9)
            previous = distance
            assert np.linalg.norm(world.get_body(a)[2]) == 0.0
        assert report.relax_sweeps >= 0
        assert distance > 2 * r - 1e-3


def test_unconverged_steps_are_reported_and_can_be_rejected():
    with nscd.World(max_sweeps=1, tolerance=1e-12) as world:
        world.add_half_space((0.0, 0.0, 0.0))
        world.add_sphere(0.1, (0.0, 0.0, 0.1))
        world.add_sphere(0.1, (0.0, 0.0, 0.3), velocity=(0.0, 0.0, -3.0))
        report = world.step()  # kept, reported
        assert not report.converged and report.merit >= 1e-12
        assert "not converged" in world.last_error
    with nscd.World(max_sweeps=1, tolerance=1e-12, on_unconverged="reject") as world:
        world.add_half_space((0.0, 0.0, 0.0))
        world.add_sphere(0.1, (0.0, 0.0, 0.1))
        world.add_sphere(0.1, (0.0, 0.0, 0.3), velocity=(0.0, 0.0, -3.0))
        with pytest.raises(nscd.NscdError) as caught:
            world.step()
        assert caught.value.status == nscd.Status.ERR_NOT_CONVERGED
        assert world.time == 0.0
    with pytest.raises(ValueError):
        nscd.World(on_unconverged="sometimes")
