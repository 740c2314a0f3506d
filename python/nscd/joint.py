"""Deprecated module of the joints' free functions: the joints are World
methods now (World.add_joint, World.add_clearance_joint, World.remove_joint,
World.joint_valid, World.joint_count (a property), World.set_joint_projection,
World.joint_residual, World.joint_reaction, World.clearance_gaps;
include/nscd/joint.h, docs/joints.md). The enums (JointType, ClearanceType,
ClearanceImpact) and ClearanceGaps live in nscd.world and stay exported by
nscd; the functions below still work and warn (DeprecationWarning):
``nscd.add_joint(world, ...)`` is ``world.add_joint(...)``."""
from ._deprecated import warn
from .world import ClearanceGaps, ClearanceImpact, ClearanceType, JointType, World

__all__ = ["ClearanceGaps", "ClearanceImpact", "ClearanceType", "JointType",
           "add_clearance_joint", "add_joint", "clearance_gaps", "joint_count", "joint_reaction",
           "joint_residual", "joint_valid", "remove_joint", "set_joint_projection"]


def _alias(name, property_=False):
    method = getattr(World, name)
    new = f"world.{name}" if property_ else f"world.{name}(...)"

    def function(world, *args, **kwargs):
        warn(f"nscd.{name}(world, ...)", new)
        if property_:
            return getattr(world, name)
        return getattr(world, name)(*args, **kwargs)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = (f"Deprecated: use {new}.\n\n"
                        + ((method.__doc__ or "") if not property_ else
                           (method.fget.__doc__ or "")))
    return function


add_joint = _alias("add_joint")
add_clearance_joint = _alias("add_clearance_joint")
remove_joint = _alias("remove_joint")
joint_valid = _alias("joint_valid")
joint_count = _alias("joint_count", property_=True)
set_joint_projection = _alias("set_joint_projection")
joint_residual = _alias("joint_residual")
joint_reaction = _alias("joint_reaction")
clearance_gaps = _alias("clearance_gaps")
