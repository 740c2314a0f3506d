"""nscd.Shape.convex: convex polyhedra (NSCD_SHAPE_CONVEX) against
scipy.spatial.ConvexHull: the hull of a random point cloud has the volume,
centre of mass and inertia tensor that scipy's hull gives (its triangles
fanned from an interior point into tetrahedra, the moments summed in
numpy), and bad points are refused."""
import pytest

np = pytest.importorskip("numpy")
spatial = pytest.importorskip("scipy.spatial")

import nscd  # noqa: E402
from nscd import _library  # noqa: E402

if not hasattr(_library.library(), "nscd_world_create"):
    pytest.skip("the library has no world", allow_module_level=True)


def reference_mass_properties(points):
    """Volume, centroid and central inertia tensor (unit density) of the
    convex hull of points, from scipy's triangulated hull."""
    hull = spatial.ConvexHull(points)
    apex = points[hull.vertices].mean(axis=0)
    volume, first, second = 0.0, np.zeros(3), np.zeros((3, 3))
    for simplex, equation in zip(hull.simplices, hull.equations):
        a, b, c = points[simplex] - apex
        det = np.dot(a, np.cross(b, c))
        if np.dot(np.cross(b - a, c - a), equation[:3]) < 0:  # orient outward
            b, c, det = c, b, -det
        s = a + b + c
        volume += det / 6.0
        first += det / 24.0 * s
        second += det / 120.0 * (np.outer(a, a) + np.outer(b, b) + np.outer(c, c) +
                                 np.outer(s, s))
    centroid = first / volume
    second -= volume * np.outer(centroid, centroid)
    inertia = np.trace(second) * np.eye(3) - second
    return hull, volume, centroid + apex, inertia


@pytest.mark.parametrize("seed,n", [(1, 50), (2, 300), (3, 2000)])
def test_random_cloud_matches_scipy(seed, n):
    rng = np.random.default_rng(seed)
    points = rng.normal(size=(n, 3)) * (0.3, 0.5, 0.2) + (1.0, -2.0, 0.5)
    hull, volume, centroid, inertia = reference_mass_properties(points)
    assert volume == pytest.approx(hull.volume, rel=1e-12)  # the reference agrees with scipy
    with nscd.World(gravity=(0, 0, 0)) as world:
        body = world.add_body(nscd.Shape.convex(points), density=1.0)
        mass, principal = world.body_mass(body)
        position, _, _, _ = world.get_body(body)
    assert mass == pytest.approx(volume, rel=1e-12)
    # the body frame moves to the centre of mass; the shape origin stays put
    assert np.allclose(position, centroid, rtol=0, atol=1e-12)
    # the body frame keeps its axes: the diagonal of the tensor in them
    assert np.allclose(principal, np.diag(inertia), rtol=1e-10, atol=0)


def test_hull_of_a_cube_with_interior_points_is_the_cube():
    rng = np.random.default_rng(7)
    corners = np.array([[x, y, z] for x in (-1, 1) for y in (-2, 2) for z in (-3, 3)], float)
    points = np.vstack([rng.uniform(-1, 1, size=(100, 3)) * (1, 2, 3), corners])
    with nscd.World(gravity=(0, 0, 0)) as world:
        body = world.add_body(nscd.Shape.convex(points, position=(0.5, 0, 0)), density=2.0)
        mass, inertia = world.body_mass(body)
        position, _, _, _ = world.get_body(body)
    m = 2.0 * 48.0
    assert mass == pytest.approx(m, rel=1e-14)
    assert np.allclose(position, (0.5, 0, 0), atol=1e-14)
    assert np.allclose(inertia, m / 3 * np.array([4 + 9, 1 + 9, 1 + 4]), rtol=1e-13)


def test_bad_points_are_refused_and_change_nothing():
    with nscd.World() as world:
        with pytest.raises(nscd.NscdError):
            world.add_body(nscd.Shape.convex(np.eye(3)))  # 3 points
        flat = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0], [0.5, 0.2, 0]], float)
        with pytest.raises(nscd.NscdError, match="coplanar"):
            world.add_body(nscd.Shape.convex(flat))
        bad = np.vstack([np.eye(3), [[np.nan, 0, 0]]])
        with pytest.raises(nscd.NscdError):
            world.add_body(nscd.Shape.convex(bad))
        with pytest.raises(ValueError):
            nscd.Shape.convex(np.zeros((4, 2)))
        assert world.body_count == 0


def test_hulls_part_reads_back_in_vtk(tmp_path):
    vtk = pytest.importorskip("vtk")
    corners = np.array([[x, y, z] for x in (-1, 1) for y in (-2, 2) for z in (-3, 3)], float)
    octa = np.array([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]], float)
    with nscd.World(gravity=(0, 0, 0)) as world:
        world.add_body(nscd.Shape.convex(corners), position=(5, 0, 0),
                       orientation=(np.cos(0.3), np.sin(0.3), 0, 0))
        world.add_body(nscd.Shape.convex(octa), position=(0, 0, 0))
        world.add_body(nscd.Shape.sphere(0.5), position=(0, 5, 0))  # not in the part
        path = tmp_path / "hulls.vtp"
        world.write_vtk_xml(path, hulls=True, float64=True)
    reader = vtk.vtkXMLPolyDataReader()
    reader.SetFileName(str(path))
    reader.Update()
    data = reader.GetOutput()
    assert data.GetNumberOfPoints() == 8 + 6
    assert data.GetNumberOfPolys() == 6 + 8
    assert data.GetCellData().GetArray("body_id").GetNumberOfTuples() == 14
    triangles = vtk.vtkTriangleFilter()
    triangles.SetInputData(data)
    mass = vtk.vtkMassProperties()
    mass.SetInputConnection(triangles.GetOutputPort())
    mass.Update()
    # the faces are closed and outward: the two volumes add up
    assert mass.GetVolume() == pytest.approx(48.0 + 4.0 / 3.0, rel=1e-12)
