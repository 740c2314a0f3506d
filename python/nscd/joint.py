"""Joints of the rigid-body world (include/nscd/joint.h, docs/joints.md):
ideal joints (spherical, revolute, cylindrical, prismatic, fixed) held as
equality constraints, and clearance joints (cylindrical, revolute, prismatic)
as sets of unilateral gaps, between two bodies of an nscd.World or a body
and the ground (body id 0).

Each side has a local frame (position and quaternion (w, x, y, z) in the
body frame, or in the world frame for the ground); the joint axis is the
local z axis. Joints are driven by nscd.TimeStepping over the world; the
world's own World.step() refuses a world with joints. Joint ids are Python
ints; removing a body removes its joints."""
import ctypes
import enum
from typing import NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np

from . import _library as _c
from .errors import Status
from .world import World, _enum, _set_array, _vec

__all__ = ["ClearanceGaps", "ClearanceImpact", "ClearanceType", "JointType",
           "add_clearance_joint", "add_joint", "clearance_gaps", "joint_count", "joint_reaction",
           "joint_residual", "joint_valid", "remove_joint", "set_joint_projection"]

_IDENTITY = (1.0, 0.0, 0.0, 0.0)
_ORIGIN = (0.0, 0.0, 0.0)


class JointType(enum.IntEnum):
    """nscd_joint_type."""
    SPHERICAL = 0
    REVOLUTE = 1
    CYLINDRICAL = 2
    PRISMATIC = 3
    FIXED = 4


class ClearanceType(enum.IntEnum):
    """nscd_clearance_type."""
    CYLINDRICAL = 0
    REVOLUTE = 1
    PRISMATIC = 2


class ClearanceImpact(enum.IntEnum):
    """nscd_clearance_impact."""
    PLASTIC = 0


class ClearanceGaps(NamedTuple):
    """The gaps of a clearance joint (nscd_world_clearance_gaps): n values,
    (n, 3) normals from the outer to the inner body, (n, 3) contact points,
    n normal impulses of the last step."""
    gaps: np.ndarray
    normals: np.ndarray
    points: np.ndarray
    impulses: np.ndarray


def _open(world: World):
    world._require_open()
    return world._lib, world._handle


def add_joint(world: World, type: Union[JointType, int, str] = JointType.REVOLUTE,
              body_a: int = 0, body_b: int = 0,
              position_a: Sequence[float] = _ORIGIN, orientation_a: Sequence[float] = _IDENTITY,
              position_b: Sequence[float] = _ORIGIN, orientation_b: Sequence[float] = _IDENTITY,
              energy_form: bool = True) -> int:
    """Adds an ideal joint between body_a and body_b (0: the ground) with a
    frame on each; returns its id. ``energy_form`` holds the rows on the mean
    of the step's velocities (docs/joints.md)."""
    lib, handle = _open(world)
    d = _c.JointDesc()
    world._check(lib.nscd_joint_desc_init(ctypes.byref(d), ctypes.sizeof(d)),
                 "nscd_joint_desc_init")
    d.type = _enum(JointType, type, "type")
    d.body_a, d.body_b = _c.uint64(body_a, "body_a"), _c.uint64(body_b, "body_b")
    _set_array(d.position_a, _vec(position_a, 3, "position_a"))
    _set_array(d.orientation_a, _vec(orientation_a, 4, "orientation_a"))
    _set_array(d.position_b, _vec(position_b, 3, "position_b"))
    _set_array(d.orientation_b, _vec(orientation_b, 4, "orientation_b"))
    d.energy_form = int(bool(energy_form))
    out = ctypes.c_uint64()
    world._check(lib.nscd_world_add_joint(handle, ctypes.byref(d), ctypes.byref(out)),
                 "nscd_world_add_joint")
    return out.value


def add_clearance_joint(world: World, type: Union[ClearanceType, int, str] = ClearanceType.REVOLUTE,
                        inner_body: int = 0, outer_body: int = 0,
                        inner_position: Sequence[float] = _ORIGIN,
                        inner_orientation: Sequence[float] = _IDENTITY,
                        outer_position: Sequence[float] = _ORIGIN,
                        outer_orientation: Sequence[float] = _IDENTITY,
                        hole_radius: Optional[float] = None, pin_radius: Optional[float] = None,
                        inner_length: Optional[float] = None,
                        outer_length: Optional[float] = None,
                        vertices: Optional[Sequence[Sequence[float]]] = None,
                        clearance: Optional[float] = None, friction: float = 0.0,
                        impact_law: Union[ClearanceImpact, int, str] = ClearanceImpact.PLASTIC,
                        energy_form: bool = True) -> int:
    """Adds a clearance joint: the hole (or slider) on inner_body, the pin (or
    guide) on outer_body (0: the ground); returns its id. Values not given keep
    the library's defaults (nscd_clearance_joint_desc_init). ``vertices``:
    the guide cavity's (x, y) vertices, counter-clockwise (prismatic).
    ``energy_form`` holds a persistent (closed) gap on the mean velocity under
    the midpoint rule, an impact staying plastic (docs/joints.md)."""
    lib, handle = _open(world)
    d = _c.ClearanceJointDesc()
    world._check(lib.nscd_clearance_joint_desc_init(ctypes.byref(d), ctypes.sizeof(d)),
                 "nscd_clearance_joint_desc_init")
    d.type = _enum(ClearanceType, type, "type")
    d.inner_body = _c.uint64(inner_body, "inner_body")
    d.outer_body = _c.uint64(outer_body, "outer_body")
    _set_array(d.inner_position, _vec(inner_position, 3, "inner_position"))
    _set_array(d.inner_orientation, _vec(inner_orientation, 4, "inner_orientation"))
    _set_array(d.outer_position, _vec(outer_position, 3, "outer_position"))
    _set_array(d.outer_orientation, _vec(outer_orientation, 4, "outer_orientation"))
    for name, value in (("hole_radius", hole_radius), ("pin_radius", pin_radius),
                        ("inner_length", inner_length), ("outer_length", outer_length),
                        ("clearance", clearance)):
        if value is not None:
            setattr(d, name, float(value))
    d.friction = float(friction)
    d.impact_law = _enum(ClearanceImpact, impact_law, "impact_law")
    d.energy_form = int(bool(energy_form))
    if vertices is not None:
        v = np.asarray(vertices, dtype=np.float64).reshape(-1, 2)
        if len(v) > 8:
            raise ValueError(f"vertices: at most 8, got {len(v)}")
        d.n_vertices = len(v)
        _set_array(d.vertices, v.reshape(-1))
    out = ctypes.c_uint64()
    world._check(lib.nscd_world_add_clearance_joint(handle, ctypes.byref(d), ctypes.byref(out)),
                 "nscd_world_add_clearance_joint")
    return out.value


def remove_joint(world: World, joint: int) -> None:
    """Removes a joint (its id becomes stale)."""
    lib, handle = _open(world)
    world._check(lib.nscd_world_remove_joint(handle, _c.uint64(joint, "joint")), "nscd_world_remove_joint")


def joint_valid(world: World, joint: int) -> bool:
    """Whether an id names a live joint of the world."""
    lib, handle = _open(world)
    return bool(lib.nscd_world_joint_valid(handle, _c.uint64(joint, "joint")))


def joint_count(world: World) -> int:
    """Number of live joints."""
    lib, handle = _open(world)
    return int(lib.nscd_world_joint_count(handle))


def set_joint_projection(world: World, iterations: int = 10,
                         tolerance: float = 1e-12) -> None:
    """The projection of the joints after each time step (0 iterations: off)."""
    lib, handle = _open(world)
    world._check(lib.nscd_world_set_joint_projection(handle, _c.int32(iterations, "iterations"),
                                                     float(tolerance)),
                 "nscd_world_set_joint_projection")


def _count(world: World, function, joint: int) -> int:
    lib, handle = _open(world)
    n = ctypes.c_int32()
    status = getattr(lib, function)(handle, _c.uint64(joint, "joint"), 0, ctypes.byref(n),
                                    *([None] * (1 if function == "nscd_world_joint_residual"
                                                else 4)))
    if status not in (Status.OK, Status.ERR_BUFFER_TOO_SMALL):  # the count is set
        world._check(status, function)
    return n.value


def joint_residual(world: World, joint: int) -> np.ndarray:
    """Φ(q) of an ideal joint, or the gaps of a clearance joint."""
    lib, handle = _open(world)
    n = _count(world, "nscd_world_joint_residual", joint)
    out = np.zeros(max(n, 1))
    count = ctypes.c_int32()
    world._check(lib.nscd_world_joint_residual(
        handle, _c.uint64(joint, "joint"), n, ctypes.byref(count),
        out.ctypes.data_as(ctypes.POINTER(ctypes.c_double))), "nscd_world_joint_residual")
    return out[:count.value]


def joint_reaction(world: World, joint: int) -> Tuple[np.ndarray, np.ndarray]:
    """Mean force and torque (about the frame origin) of the joint on body b
    (the inner body of a clearance joint) over the last step."""
    lib, handle = _open(world)
    force, torque = np.zeros(3), np.zeros(3)
    p = ctypes.POINTER(ctypes.c_double)
    world._check(lib.nscd_world_joint_reaction(handle, _c.uint64(joint, "joint"), force.ctypes.data_as(p),
                                               torque.ctypes.data_as(p)),
                 "nscd_world_joint_reaction")
    return force, torque


def clearance_gaps(world: World, joint: int) -> ClearanceGaps:
    """The current gaps, normals, contact points and last impulses of a
    clearance joint."""
    lib, handle = _open(world)
    n = _count(world, "nscd_world_clearance_gaps", joint)
    gaps, impulses = np.zeros(max(n, 1)), np.zeros(max(n, 1))
    normals, points = np.zeros((max(n, 1), 3)), np.zeros((max(n, 1), 3))
    p = ctypes.POINTER(ctypes.c_double)
    count = ctypes.c_int32()
    world._check(lib.nscd_world_clearance_gaps(
        handle, _c.uint64(joint, "joint"), n, ctypes.byref(count), gaps.ctypes.data_as(p),
        normals.ctypes.data_as(p), points.ctypes.data_as(p), impulses.ctypes.data_as(p)),
        "nscd_world_clearance_gaps")
    k = count.value
    return ClearanceGaps(gaps[:k], normals[:k], points[:k], impulses[:k])
