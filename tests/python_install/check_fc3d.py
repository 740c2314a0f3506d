"""The Python side of the python_install test, run OUTSIDE the source tree
against the pip-installed package and the installed library:
`import nscd; nscd.fc3d_solve(W, q, mu)` on the problem the C program
fc3d_reference solved, and the impulses r and velocities u compared bitwise.

usage: check_fc3d.py REFERENCE.json EXPECTED_LIBRARY SITE_DIR"""
import json
import os
import sys

reference_path, expected_library, site = sys.argv[1:4]

import numpy as np  # noqa: E402

import nscd  # noqa: E402

# The package is the pip-installed one, and it found the installed library by itself.
assert os.path.realpath(os.path.dirname(nscd.__file__)) == \
    os.path.realpath(os.path.join(site, "nscd")), nscd.__file__
assert "NSCD_LIBRARY" not in os.environ
assert os.path.realpath(nscd.library_path()) == os.path.realpath(expected_library), \
    (nscd.library_path(), expected_library)
assert os.path.isfile(os.path.join(os.path.dirname(nscd.__file__), "py.typed"))
assert "Delassus" in (nscd.fc3d_solve.__doc__ or "")  # help(nscd.fc3d_solve) is useful

with open(reference_path, encoding="utf-8") as f:
    ref = json.load(f)


def array(name):
    return np.array([float.fromhex(x) for x in ref[name]])


W, q, mu = array("W"), array("q"), array("mu")
n = mu.size
W = W.reshape(3 * n, 3 * n)
law = nscd.Fc3dFrictionLaw(ref["friction_law"])
r, u, info = nscd.fc3d_solve(W, q, mu, friction_law=law)
assert ref["status"] == 0 and info.converged
assert info.iterations == ref["iterations"], (info.iterations, ref["iterations"])
assert info.merit.hex() == ref["merit"] or info.merit == float.fromhex(ref["merit"])
r_c, u_c = array("r"), array("u")
assert np.array_equal(r, r_c), (r - r_c)
assert np.array_equal(u, u_c), (u - u_c)
# The problem is not trivial: some contacts are open, some closed.
assert np.count_nonzero(r[0::3]) not in (0, n), r
print(json.dumps({"friction_law": law.name.lower(), "contacts": n,
                  "iterations": info.iterations, "merit": info.merit,
                  "bitwise_equal": True, "library": nscd.library_path(),
                  "package": os.path.dirname(nscd.__file__)}))
