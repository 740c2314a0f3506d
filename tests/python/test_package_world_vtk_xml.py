"""World.write_vtk_xml and VtkSeries (nscd_world_write_vtk_xml,
nscd_world_vtk_series_*; docs/paraview.md): the files read back with VTK's
own reader (Debian's python3-vtk9; those tests skip without it) hold the
world's positions, quaternions, shape types, sizes, ids and velocities, and
the contacts of nscd_world_get_contacts; a series keeps a valid .pvd; the
compact file is at least 4 times smaller than the legacy ASCII one."""
import math
import os
import xml.etree.ElementTree as ET

import pytest

np = pytest.importorskip("numpy")

import nscd  # noqa: E402
from nscd import _library  # noqa: E402

if not hasattr(_library.library(), "nscd_world_write_vtk_xml"):
    pytest.skip("the library has no VTK XML writer", allow_module_level=True)

SPHERE, HALF_SPACE, BOX, CAPSULE, CYLINDER = range(5)


def unit_quaternion(rng):
    q = rng.normal(size=4)
    return tuple(q / np.linalg.norm(q))


def mixed_world(rng, steps=50):
    """A floor and a pile of the four shapes at random sizes and
    orientations, plus a compound (its two shapes share the body id)."""
    world = nscd.World()
    world.add_body(nscd.Shape.half_space(), type="static", user_id=1)
    makers = (lambda: nscd.Shape.sphere(rng.uniform(0.01, 0.03)),
              lambda: nscd.Shape.box(tuple(rng.uniform(0.01, 0.03, 3))),
              lambda: nscd.Shape.capsule(rng.uniform(0.005, 0.015), rng.uniform(0.01, 0.03)),
              lambda: nscd.Shape.cylinder(rng.uniform(0.01, 0.02), rng.uniform(0.005, 0.02)))
    for k in range(24):
        world.add_body(makers[k % 4](), position=(0.08 * (k % 5), 0.08 * (k // 5), 0.06),
                       orientation=unit_quaternion(rng), user_id=10 + k)
    world.add_body([nscd.Shape.sphere(0.02),
                    nscd.Shape.cylinder(0.01, 0.03, position=(0.0, 0.0, 0.04))],
                   position=(-0.1, 0.0, 0.1), orientation=unit_quaternion(rng), user_id=99)
    for _ in range(steps):
        world.step()
    return world


def read(path):
    vtk = pytest.importorskip("vtk")
    from vtk.util.numpy_support import vtk_to_numpy
    reader = vtk.vtkXMLPolyDataReader()
    reader.SetFileName(str(path))
    reader.Update()
    data = reader.GetOutput()
    assert data.GetNumberOfVerts() == data.GetNumberOfPoints()
    arrays = {"Points": vtk_to_numpy(data.GetPoints().GetData()) if data.GetNumberOfPoints()
              else np.zeros((0, 3))}
    pd = data.GetPointData()
    for i in range(pd.GetNumberOfArrays()):
        arrays[pd.GetArrayName(i)] = vtk_to_numpy(pd.GetArray(i))
    time = data.GetFieldData().GetArray("TimeValue")
    arrays["TimeValue"] = time.GetValue(0) if time is not None else None
    return arrays


@pytest.mark.parametrize("float64", [True, False])
def test_vtk_reads_the_worlds_shapes(tmp_path, float64):
    world = mixed_world(np.random.default_rng(3))
    path = tmp_path / "pile.vtp"
    world.write_vtk_xml(path, float64=float64)
    a = read(path)
    bodies = world.bodies()
    n = len(bodies.ids)
    assert len(a["Points"]) == n + 1  # the compound has two shapes
    tol = 0.0 if float64 else 1e-6
    assert a["Points"].dtype == (np.float64 if float64 else np.float32)
    assert a["TimeValue"] == pytest.approx(world.time, rel=1e-15)
    # the bodies of one shape, in storage order: the body's own pose
    single = slice(0, n - 1)
    np.testing.assert_allclose(a["Points"][single], bodies.positions[:n - 1], rtol=tol, atol=tol)
    np.testing.assert_allclose(a["orientation"][single], bodies.orientations[:n - 1], atol=tol)
    np.testing.assert_allclose(a["velocity"][single], bodies.velocities[:n - 1], rtol=tol,
                               atol=tol)
    np.testing.assert_allclose(a["angular_velocity"][single],
                               bodies.angular_velocities[:n - 1], rtol=tol, atol=tol)
    assert list(a["user_id"]) == list(bodies.user_ids[:n - 1]) + [99, 99]
    assert list(a["body_id"]) == list(bodies.ids[:n - 1]) + [bodies.ids[-1]] * 2
    expected_types = [HALF_SPACE] + [(SPHERE, BOX, CAPSULE, CYLINDER)[k % 4] for k in range(24)]
    assert list(a["shape_type"]) == expected_types + [SPHERE, CYLINDER]
    assert list(a["body_type"]) == [0] + [2] * 26
    # the sizes the shapes were given: rebuild them from the same stream
    rng = np.random.default_rng(3)
    for k in range(24):
        if k % 4 == SPHERE:
            r = rng.uniform(0.01, 0.03)
            dims = (r, r, r)
        elif k % 4 == 1:
            dims = tuple(rng.uniform(0.01, 0.03, 3))
        elif k % 4 == 2:
            r, h = rng.uniform(0.005, 0.015), rng.uniform(0.01, 0.03)
            dims = (r, r, h)
        else:
            r, h = rng.uniform(0.01, 0.02), rng.uniform(0.005, 0.02)
            dims = (r, r, h)
        unit_quaternion(rng)
        np.testing.assert_allclose(a["dimensions"][1 + k], dims, rtol=max(tol, 1e-15))
    assert list(a["dimensions"][0]) == [0.0, 0.0, 0.0]  # the half-space
    np.testing.assert_allclose(a["dimensions"][-2:], [(0.02,) * 3, (0.01, 0.01, 0.03)],
                               rtol=max(tol, 1e-15))
    # the compound: each shape's quaternion is unit, the cylinder 4 cm from the sphere
    assert np.linalg.norm(a["orientation"][-1]) == pytest.approx(1.0, abs=1e-6)
    assert np.linalg.norm(a["Points"][-1] - a["Points"][-2]) == pytest.approx(0.04, rel=1e-5)
    masses = [0.0] + [world.body_mass(i)[0] for i in bodies.ids[1:]]
    np.testing.assert_allclose(a["mass"][:n], masses, rtol=max(tol, 1e-15))


def test_vtk_reads_the_contacts(tmp_path):
    world = mixed_world(np.random.default_rng(5), steps=150)
    path = tmp_path / "contacts.vtp"
    world.write_vtk_xml(path, contacts=True, float64=True)
    a = read(path)
    c = world.contacts()
    assert len(c.body_a) > 10
    np.testing.assert_array_equal(a["Points"], c.points)
    np.testing.assert_array_equal(a["normal"], c.normals)
    np.testing.assert_array_equal(a["gap"], c.gaps)
    np.testing.assert_array_equal(a["normal_impulse"], c.impulses[:, 0])
    np.testing.assert_array_equal(a["body_a"], c.body_a)
    np.testing.assert_array_equal(a["body_b"], c.body_b)
    t = a["tangential_impulse"]
    scale = np.abs(c.impulses[:, 0]).max()
    assert np.abs(np.sum(t * c.normals, axis=1)).max() <= 1e-12 * scale
    np.testing.assert_allclose(np.linalg.norm(t, axis=1),
                               np.linalg.norm(c.impulses[:, 1:], axis=1), atol=1e-12 * scale)
    np.testing.assert_allclose(a["impulse"], c.impulses[:, :1] * c.normals + t,
                               atol=1e-12 * scale)


def test_series_keeps_a_valid_collection(tmp_path):
    world = mixed_world(np.random.default_rng(7), steps=0)
    prefix = tmp_path / "run"
    with nscd.VtkSeries(prefix, contacts=True) as series:
        for frame in range(3):
            series.write(world)
            assert series.frames == frame + 1
            for name in ("run.pvd", "run_contacts.pvd"):
                root = ET.parse(tmp_path / name).getroot()  # valid XML after each frame
                sets = root.find("Collection").findall("DataSet")
                assert len(sets) == frame + 1
                assert float(sets[-1].get("timestep")) == pytest.approx(world.time, rel=1e-15)
                assert (tmp_path / sets[-1].get("file")).is_file()
            world.step(10)
    assert (tmp_path / "run_000002.vtp").is_file()
    assert (tmp_path / "run_contacts_000002.vtp").is_file()
    with pytest.raises(nscd.NscdError):
        nscd.VtkSeries(tmp_path / "missing" / "run")
    with pytest.raises(nscd.NscdError):
        nscd.VtkSeries(prefix, shapes=False)


def test_vtk_reads_the_series_frames(tmp_path):
    world = mixed_world(np.random.default_rng(9), steps=0)
    with nscd.VtkSeries(tmp_path / "s", compact=True) as series:
        series.write(world)
        world.step(20)
        series.write(world)
    root = ET.parse(tmp_path / "s.pvd").getroot()
    for ds in root.find("Collection").findall("DataSet"):
        a = read(tmp_path / ds.get("file"))
        assert a["TimeValue"] == pytest.approx(float(ds.get("timestep")), rel=1e-15)
        assert set(a) == {"Points", "shape_type", "dimensions", "orientation", "TimeValue"}
    np.testing.assert_allclose(a["Points"][1:-2], world.bodies().positions[1:-1], rtol=1e-6,
                               atol=1e-7)


def test_compact_file_is_four_times_smaller_than_the_ascii_one(tmp_path):
    rng = np.random.default_rng(11)
    world = nscd.World()
    n = 3000
    for k in range(n):
        world.add_body(nscd.Shape.sphere(rng.uniform(0.005, 0.015)),
                       position=tuple(rng.uniform([-1, -1, 0], [1, 1, 2])),
                       orientation=unit_quaternion(rng), velocity=tuple(rng.normal(0, 0.3, 3)),
                       angular_velocity=tuple(rng.normal(0, 3, 3)), user_id=k + 1)
    world.write(tmp_path / "a.vtk", "vtk")
    world.write_vtk_xml(tmp_path / "c.vtp", compact=True)
    world.write_vtk_xml(tmp_path / "d.vtp")
    ascii_size = os.path.getsize(tmp_path / "a.vtk")
    compact, default = os.path.getsize(tmp_path / "c.vtp"), os.path.getsize(tmp_path / "d.vtp")
    assert compact * 4 <= ascii_size, (compact, ascii_size)
    # the full default file: 94 bytes a body, exactly, past the header
    assert abs(default - 94 * n) < 4096 and abs(compact - 49 * n) < 4096
    assert math.isfinite(default)


def test_bad_flags_are_refused(tmp_path):
    world = mixed_world(np.random.default_rng(1), steps=0)
    with pytest.raises(nscd.NscdError) as info:
        world.write_vtk_xml(tmp_path / "missing" / "x.vtp")
    assert "missing" in str(info.value)
    with pytest.raises(nscd.NscdError):
        world._check(world._lib.nscd_world_write_vtk_xml(world._handle, b"x.vtp", 3),
                     "nscd_world_write_vtk_xml")
    assert not os.path.exists("x.vtp")


def test_render_tool_draws_a_file(tmp_path):
    """tools/render_world_vtp.py (the gallery's picture) draws a small pile:
    run offscreen under xvfb-run; skipped without VTK or xvfb-run."""
    import shutil
    import subprocess
    import sys
    pytest.importorskip("vtk")
    xvfb = shutil.which("xvfb-run")
    if xvfb is None:
        pytest.skip("xvfb-run is not installed (package xvfb)")
    world = mixed_world(np.random.default_rng(13), steps=100)
    world.write_vtk_xml(tmp_path / "pile.vtp")
    tool = os.path.join(os.path.dirname(__file__), "..", "..", "tools", "render_world_vtp.py")
    out = tmp_path / "pile.png"
    done = subprocess.run([xvfb, "-a", sys.executable, tool, "--vtp", str(tmp_path / "pile.vtp"),
                           "--out", str(out), "--size", "320x240"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "spheres" in done.stdout
    import vtk
    from vtk.util.numpy_support import vtk_to_numpy
    reader = vtk.vtkPNGReader()
    reader.SetFileName(str(out))
    reader.Update()
    pixels = vtk_to_numpy(reader.GetOutput().GetPointData().GetScalars())
    assert len(pixels) == 320 * 240
    # the four shape colours are drawn (a red-dominated sphere, a blue box)
    rgb = pixels[:, :3].astype(int)
    assert np.any((rgb[:, 0] > 150) & (rgb[:, 2] < 80))
    assert np.any((rgb[:, 2] > 120) & (rgb[:, 0] < 60))
