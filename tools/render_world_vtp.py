#!/usr/bin/python3
"""Renders a world's binary VTK XML file (nscd_world_write_vtk_xml, the
shapes part) offscreen with VTK, each shape drawn by its type, size and
orientation, the same pipeline as the ParaView recipe of docs/paraview.md:
threshold the points by ``shape_type``, then glyph each type with a unit
source scaled by 2 x ``dimensions`` (vector components) and turned by the
``orientation`` quaternion (w, x, y, z) (vtkGlyph3DMapper, ParaView's
"3D Glyphs" representation). Capsules are a cylinder glyph of length
2 half_height plus two sphere glyphs at the ends of the segment; half-spaces
a square of the scene's width; static bodies (the container) as wireframes.

Usage (from the repository root, after `make build`):

    xvfb-run -a /usr/bin/python3 tools/render_world_vtp.py build/examples
        runs build/examples/mixed_pile --vtp into a temporary folder and
        renders its last frame to docs/img/mixed_pile_shapes.png;
    xvfb-run -a /usr/bin/python3 tools/render_world_vtp.py --vtp FILE.vtp [--out PNG]
        renders a given file (or the last frame of a .pvd).

Needs Debian's python3-vtk9; without a display, xvfb-run (package xvfb)
or a VTK built with OSMesa/EGL offscreen support.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
SPHERE, HALF_SPACE, BOX, CAPSULE, CYLINDER = range(5)
COLORS = {SPHERE: (0.85, 0.33, 0.10), BOX: (0.00, 0.45, 0.74), CAPSULE: (0.47, 0.67, 0.19),
          CYLINDER: (0.93, 0.69, 0.13)}


def last_frame(path):
    """The file of a .vtp, or the last DataSet of a .pvd collection."""
    if not path.endswith(".pvd"):
        return path
    with open(path, encoding="utf-8") as f:
        files = re.findall(r'file="([^"]+)"', f.read())
    if not files:
        sys.exit(f"{path}: an empty collection")
    return os.path.join(os.path.dirname(path), files[-1])


def quat_rotate(q, v):
    """Rotates the rows of v by the unit quaternions q (w, x, y, z), rowwise."""
    w, u = q[:, :1], q[:, 1:]
    t = 2.0 * np.cross(u, v)
    return v + w * t + np.cross(u, t)


def render(vtp, out, size=(1000, 800), dynamic_only=False):
    import vtk
    from vtk.util.numpy_support import numpy_to_vtk, vtk_to_numpy

    reader = vtk.vtkXMLPolyDataReader()
    reader.SetFileName(vtp)
    reader.Update()
    data = reader.GetOutput()
    n = data.GetNumberOfPoints()
    if n == 0:
        sys.exit(f"{vtp}: no shapes")
    pd = data.GetPointData()
    types = vtk_to_numpy(pd.GetArray("shape_type")).astype(int)
    body_type = pd.GetArray("body_type")
    static = (vtk_to_numpy(body_type) == 0) if body_type is not None else np.zeros(n, bool)
    points = vtk_to_numpy(data.GetPoints().GetData()).astype(float)
    dims = vtk_to_numpy(pd.GetArray("dimensions")).astype(float)
    quats = vtk_to_numpy(pd.GetArray("orientation")).astype(float)
    finite = types != HALF_SPACE
    lo, hi = points[finite].min(axis=0) - dims[finite].max(), points[finite].max(axis=0) + dims[finite].max()
    width = float(np.max(hi - lo))

    def polydata(mask, pts=None):
        """The points of `mask` (or `pts` there) with their dimensions and orientation."""
        p = vtk.vtkPolyData()
        vp = vtk.vtkPoints()
        vp.SetData(numpy_to_vtk(np.ascontiguousarray(points[mask] if pts is None else pts), deep=1))
        p.SetPoints(vp)
        for name, values in (("dimensions", dims[mask]), ("orientation", quats[mask])):
            a = numpy_to_vtk(np.ascontiguousarray(values), deep=1)
            a.SetName(name)
            p.GetPointData().AddArray(a)
        return p

    def threshold(kind, want_static):
        """ParaView's Threshold on shape_type (and body_type), as in the recipe."""
        t = vtk.vtkThreshold()
        t.SetInputConnection(reader.GetOutputPort())
        t.SetInputArrayToProcess(0, 0, 0, vtk.vtkDataObject.FIELD_ASSOCIATION_POINTS, "shape_type")
        t.SetLowerThreshold(kind - 0.5)
        t.SetUpperThreshold(kind + 0.5)
        t.SetThresholdFunction(vtk.vtkThreshold.THRESHOLD_BETWEEN)
        t.Update()
        out = t.GetOutput()
        keep = vtk_to_numpy(out.GetPointData().GetArray("body_type")) == 0 \
            if out.GetPointData().GetArray("body_type") is not None else np.zeros(out.GetNumberOfPoints(), bool)
        mask = keep if want_static else ~keep
        sel = vtk.vtkPolyData()
        vp = vtk.vtkPoints()
        vp.SetData(numpy_to_vtk(np.ascontiguousarray(
            vtk_to_numpy(out.GetPoints().GetData())[mask] if out.GetNumberOfPoints() else np.zeros((0, 3))),
            deep=1))
        sel.SetPoints(vp)
        for name in ("dimensions", "orientation"):
            arr = out.GetPointData().GetArray(name)
            values = vtk_to_numpy(arr)[mask] if arr is not None else np.zeros((0, 3))
            a = numpy_to_vtk(np.ascontiguousarray(values), deep=1)
            a.SetName(name)
            sel.GetPointData().AddArray(a)
        return sel

    def unit_source(kind):
        if kind == SPHERE:
            s = vtk.vtkSphereSource()  # radius 0.5
            s.SetThetaResolution(24)
            s.SetPhiResolution(16)
            return s
        if kind == BOX:
            return vtk.vtkCubeSource()  # 1 x 1 x 1
        s = vtk.vtkCylinderSource()  # radius 0.5, height 1, axis y: turned to z
        s.SetResolution(24)
        turn = vtk.vtkTransform()
        turn.RotateX(90.0)
        f = vtk.vtkTransformPolyDataFilter()
        f.SetTransform(turn)
        f.SetInputConnection(s.GetOutputPort())
        render.keep.append((s, turn))
        return f

    render.keep = []
    renderer = vtk.vtkRenderer()
    renderer.SetBackground(1.0, 1.0, 1.0)

    def add_glyphs(input_data, kind, color, opacity=1.0, wireframe=False):
        if input_data.GetNumberOfPoints() == 0:
            return
        mapper = vtk.vtkGlyph3DMapper()
        mapper.SetInputData(input_data)
        source = unit_source(kind)
        mapper.SetSourceConnection(source.GetOutputPort())
        mapper.SetOrientationArray("orientation")
        mapper.SetOrientationModeToQuaternion()
        mapper.SetScaleArray("dimensions")
        mapper.SetScaleModeToScaleByVectorComponents()
        mapper.SetScaleFactor(2.0)
        mapper.ScalarVisibilityOff()
        actor = vtk.vtkActor()
        actor.SetMapper(mapper)
        actor.GetProperty().SetColor(*color)
        actor.GetProperty().SetOpacity(opacity)
        if wireframe:
            actor.GetProperty().SetRepresentationToWireframe()
            actor.GetProperty().SetLineWidth(1.5)
        actor.GetProperty().SetAmbient(0.25)
        actor.GetProperty().SetDiffuse(0.75)
        actor.GetProperty().SetSpecular(0.15)
        renderer.AddActor(actor)
        render.keep.append((input_data, source, mapper, actor))

    for kind in (SPHERE, BOX, CYLINDER, CAPSULE):
        for want_static in (False, True):
            sel = threshold(kind, want_static)
            color = COLORS[kind] if not want_static else (0.35, 0.35, 0.35)
            opacity = 1.0
            if want_static and dynamic_only:
                continue
            if kind != CAPSULE:
                add_glyphs(sel, kind, color, opacity, want_static)
                continue
            # the shaft: a cylinder of radius r and length 2 half_height
            add_glyphs(sel, CYLINDER, color, opacity)
            # the caps: spheres of radius r at the segment's ends
            m = sel.GetNumberOfPoints()
            if m == 0:
                continue
            p = vtk_to_numpy(sel.GetPoints().GetData()).astype(float)
            d = vtk_to_numpy(sel.GetPointData().GetArray("dimensions")).astype(float)
            q = vtk_to_numpy(sel.GetPointData().GetArray("orientation")).astype(float)
            axis = quat_rotate(q, np.tile([0.0, 0.0, 1.0], (m, 1))) * d[:, 2:3]
            caps = vtk.vtkPolyData()
            vp = vtk.vtkPoints()
            vp.SetData(numpy_to_vtk(np.ascontiguousarray(np.vstack([p + axis, p - axis])), deep=1))
            caps.SetPoints(vp)
            r = np.repeat(d[:, :1], 3, axis=1)
            for name, values in (("dimensions", np.vstack([r, r])), ("orientation", np.vstack([q, q]))):
                a = numpy_to_vtk(np.ascontiguousarray(values), deep=1)
                a.SetName(name)
                caps.GetPointData().AddArray(a)
            add_glyphs(caps, SPHERE, color, opacity)
    # half-spaces: a square of the scene's width in their boundary plane
    for k in np.flatnonzero(types == HALF_SPACE):
        plane = vtk.vtkPlaneSource()
        plane.SetOrigin(-0.75 * width, -0.75 * width, 0.0)
        plane.SetPoint1(0.75 * width, -0.75 * width, 0.0)
        plane.SetPoint2(-0.75 * width, 0.75 * width, 0.0)
        w, x, y, z = quats[k]
        angle = 2.0 * np.degrees(np.arccos(np.clip(w, -1.0, 1.0)))
        t = vtk.vtkTransform()
        t.Translate(*points[k])
        if np.linalg.norm([x, y, z]) > 0.0:
            t.RotateWXYZ(angle, x, y, z)
        f = vtk.vtkTransformPolyDataFilter()
        f.SetTransform(t)
        f.SetInputConnection(plane.GetOutputPort())
        mapper = vtk.vtkPolyDataMapper()
        mapper.SetInputConnection(f.GetOutputPort())
        actor = vtk.vtkActor()
        actor.SetMapper(mapper)
        actor.GetProperty().SetColor(0.88, 0.88, 0.86)
        renderer.AddActor(actor)
        render.keep.append((plane, t, f, mapper, actor))

    window = vtk.vtkRenderWindow()
    window.SetOffScreenRendering(1)
    window.AddRenderer(renderer)
    window.SetSize(*size)
    window.SetMultiSamples(0)
    window.SetAlphaBitPlanes(1)
    renderer.SetUseDepthPeeling(1)
    camera = renderer.GetActiveCamera()
    dyn = finite & ~static
    centre = points[dyn].mean(axis=0) if dyn.any() else 0.5 * (lo + hi)
    extent = float(np.max(points[dyn].max(axis=0) - points[dyn].min(axis=0))) if dyn.any() else width
    camera.SetFocalPoint(*centre)
    view = np.array([1.0, -1.4, 1.2]) / np.linalg.norm([1.0, -1.4, 1.2])
    camera.SetPosition(*(centre + 3.0 * extent * view))
    camera.SetViewUp(0.0, 0.0, 1.0)
    renderer.ResetCameraClippingRange()
    window.Render()
    grab = vtk.vtkWindowToImageFilter()
    grab.SetInput(window)
    grab.ReadFrontBufferOff()
    grab.Update()
    writer = vtk.vtkPNGWriter()
    writer.SetFileName(out)
    writer.SetInputConnection(grab.GetOutputPort())
    writer.Write()
    counts = {name: int(np.sum(types[~static] == kind)) for name, kind in
              (("spheres", SPHERE), ("boxes", BOX), ("capsules", CAPSULE), ("cylinders", CYLINDER))}
    print(f"{out}: {n} shapes ({counts}) from {vtp}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("examples", nargs="?", help="build/examples: run mixed_pile --vtp")
    parser.add_argument("--vtp", help="render this .vtp (or the last frame of a .pvd)")
    parser.add_argument("--out", help="PNG file (default docs/img/mixed_pile_shapes.png)")
    parser.add_argument("--bodies", type=int, default=400)
    parser.add_argument("--t-end", type=float, default=1.2)
    parser.add_argument("--size", default="900x700", help="pixels, WxH")
    args = parser.parse_args()
    out = args.out or os.path.join(ROOT, "docs", "img", "mixed_pile_shapes.png")
    size = tuple(int(v) for v in args.size.split("x"))
    if args.vtp:
        render(last_frame(args.vtp), out, size)
        return
    if not args.examples:
        parser.error("give build/examples or --vtp FILE")
    with tempfile.TemporaryDirectory() as tmp:
        prefix = os.path.join(tmp, "pile")
        subprocess.run([os.path.join(args.examples, "mixed_pile"), "--bodies", str(args.bodies),
                        "--t-end", str(args.t_end), "--vtk-every", str(args.t_end), "--vtp",
                        prefix], check=True, stdout=subprocess.DEVNULL)
        render(last_frame(prefix + ".pvd"), out, size)


if __name__ == "__main__":
    main()
