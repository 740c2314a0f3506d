#!/usr/bin/python3
"""Checks the layering of src/ (docs/architecture.md, "Layers and folders").

Every folder of src/ has a rank; a file may include headers of its own folder
and of folders of a lower rank, never of a peer (same rank, another folder)
or of a higher one. A folder's subfolders (its families: contact/solvers/,
integrators/alpha/, world/joints/, ...) are one room with it: they share its
rank and include each other freely. The world's internals (src/world/) are reached from
outside the room only through src/world/world_model.h (the time steppers)
and, by the companion library mpi/, through world_impl.h (documented in
docs/distributed.md). Public headers (nscd/*.h) are the API, not a layer.

usage: tools/check_layers.py [REPO_ROOT]      exit 1 and a list on violation
"""
import os
import re
import sys

RANK = {
    "core": 0,
    "collision": 1,  # shapes and contact points; needs only core
    "contact": 1,  # laws, problems and their solvers (laws/, compliant/, single/,
    #                solvers/, assembly/, impacts/); needs only core
    "models": 2,  # the generic Lagrangian system
    "beam": 2,  # M, h, K of a floating-frame beam for a user's system
    "world": 2,  # the rigid-body world (its joints in world/joints/)
    "integrators": 3,  # steppers over core/model.h (ode/, event_driven/,
    #                    time_stepping/, alpha/)
}
# Headers of the world's room that a lower or peer folder may include.
WORLD_DOORS = {"world/world_model.h"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/([^"]+)"', re.M)


def folder_of(rel):
    return rel.split(os.sep)[1]  # src/<folder>/[<family>/]...: the room


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    bad = []
    src = os.path.join(root, "src")
    for dirpath, _, files in os.walk(src):
        for name in sorted(files):
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            here = folder_of(rel)
            if here not in RANK:
                bad.append(f"{rel}: folder '{here}' has no rank in tools/check_layers.py")
                continue
            with open(path, encoding="utf-8") as f:
                text = f.read()
            for top, rest in INCLUDE.findall(text):
                if top == "nscd" or top == here:
                    continue
                target = f"{top}/{rest}"
                if top not in RANK:
                    bad.append(f"{rel}: includes {target} (unknown folder)")
                elif top == "world" and target not in WORLD_DOORS:
                    bad.append(f"{rel}: includes {target} (the world's internals, from outside src/world/)")
                elif RANK[top] >= RANK[here]:
                    bad.append(f"{rel}: includes {target} (rank {RANK[top]} >= its own {RANK[here]})")
    for b in bad:
        print(b)
    print(f"check_layers: {len(bad)} violation(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
