"""The PEP 517 build backend of the nscd Python package, in the source tree
(pyproject.toml: backend-path), written with the standard library only.

Why: the package is pure Python, and `pip install ./python` must work offline
with any interpreter that has pip, whether or not setuptools and wheel are
installed. With setuptools as the backend, pip either downloads setuptools
and wheel into an isolated build environment (no network: "Could not find a
version that satisfies the requirement setuptools>=40.8.0") or, without
isolation, needs the `wheel` package (Debian's setuptools 66 has no
bdist_wheel of its own). This backend needs neither: pip's isolated build
environment installs nothing (requires = []), and the wheel is a zip file
written here.

The metadata is read from setup.cfg (kept for `python3 setup.py ...` with
setuptools): name, version (attr: nscd._version.__version__), description,
long_description (README.md), classifiers, python_requires, packages and
package_data. Hooks: build_wheel, build_sdist, build_editable (a .pth file
that points at this source tree, PEP 660), prepare_metadata_for_build_wheel
and prepare_metadata_for_build_editable, and the get_requires_* hooks (no
requirements)."""
import ast
import base64
import configparser
import hashlib
import io
import os
import tarfile
import time
import zipfile

SOURCE = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
TAG = "py3-none-any"
# A fixed timestamp (1980-01-01, the zip minimum): the same sources give the same wheel.
EPOCH = (1980, 1, 1, 0, 0, 0)


def _config():
    parser = configparser.ConfigParser()
    with open(os.path.join(SOURCE, "setup.cfg"), encoding="utf-8") as f:
        parser.read_file(f)
    return parser


def _lines(value):
    return [line.strip() for line in value.strip().splitlines() if line.strip()]


def _version(spec):
    """The value of `attr: module.NAME`, read without importing the package."""
    if not spec.startswith("attr:"):
        return spec.strip()
    target = spec[len("attr:"):].strip()
    module, _, name = target.rpartition(".")
    path = os.path.join(SOURCE, *module.split(".")) + ".py"
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return ast.literal_eval(node.value)
    raise RuntimeError(f"{target} not found in {path}")


def _metadata():
    """(name, version, the text of METADATA, the packages)."""
    cfg = _config()
    meta, options = cfg["metadata"], cfg["options"]
    name, version = meta["name"].strip(), _version(meta["version"])
    lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    if "description" in meta:
        lines.append(f"Summary: {meta['description'].strip()}")
    if "license" in meta:
        lines.append(f"License: {meta['license'].strip()}")
    for classifier in _lines(meta.get("classifiers", "")):
        lines.append(f"Classifier: {classifier}")
    if "python_requires" in options:
        lines.append(f"Requires-Python: {options['python_requires'].strip()}")
    body = ""
    description = meta.get("long_description", "").strip()
    if description.startswith("file:"):
        with open(os.path.join(SOURCE, description[len("file:"):].strip()),
                  encoding="utf-8") as f:
            body = f.read()
        lines.append("Description-Content-Type: "
                     + meta.get("long_description_content_type", "text/plain").strip())
    text = "\n".join(lines) + "\n" + ("\n" + body if body else "")
    return name, version, text, _lines(options.get("packages", ""))


def _package_files(packages):
    """[(archive name, path)] of the packages' modules and package data."""
    cfg = _config()
    data = {}
    if cfg.has_section("options.package_data"):
        data = {key: _lines(value) for key, value in cfg["options.package_data"].items()}
    files = []
    for package in packages:
        root = os.path.join(SOURCE, *package.split("."))
        extra = set(data.get(package, [])) | set(data.get("*", []))
        for entry in sorted(os.listdir(root)):
            path = os.path.join(root, entry)
            if os.path.isfile(path) and (entry.endswith(".py") or entry in extra):
                files.append((f"{package.replace('.', '/')}/{entry}", path))
    return files


def _dist_info(name, version):
    return f"{name.replace('-', '_')}-{version}.dist-info"


def _wheel_file():
    return ("Wheel-Version: 1.0\nGenerator: nscd_build (python/_build_backend)\n"
            f"Root-Is-Purelib: true\nTag: {TAG}\n")


def _hash(data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"sha256={digest}"


def _write_wheel(directory, entries):
    """Writes {archive name: bytes} and its RECORD as a wheel; returns its name."""
    name, version, _, _ = _metadata()
    filename = f"{name.replace('-', '_')}-{version}-{TAG}.whl"
    dist_info = _dist_info(name, version)
    record = [f"{arcname},{_hash(data)},{len(data)}" for arcname, data in entries.items()]
    record.append(f"{dist_info}/RECORD,,")
    entries = dict(entries)
    entries[f"{dist_info}/RECORD"] = ("\n".join(record) + "\n").encode()
    with zipfile.ZipFile(os.path.join(directory, filename), "w",
                         zipfile.ZIP_DEFLATED) as archive:
        for arcname, data in entries.items():
            info = zipfile.ZipInfo(arcname, EPOCH)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    return filename


def _metadata_entries():
    name, version, text, packages = _metadata()
    dist_info = _dist_info(name, version)
    return {f"{dist_info}/METADATA": text.encode(),
            f"{dist_info}/WHEEL": _wheel_file().encode(),
            f"{dist_info}/top_level.txt": ("\n".join(packages) + "\n").encode()}


# ------------------------------------------------------------------ PEP 517 hooks
def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    name, version, _, _ = _metadata()
    dist_info = _dist_info(name, version)
    for arcname, data in _metadata_entries().items():
        path = os.path.join(metadata_directory, *arcname.split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
    return dist_info


prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    _, _, _, packages = _metadata()
    entries = {}
    for arcname, path in _package_files(packages):
        with open(path, "rb") as f:
            entries[arcname] = f.read()
    entries.update(_metadata_entries())
    return _write_wheel(wheel_directory, entries)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """A wheel whose only module is a .pth file that adds this source tree
    (python/) to sys.path: edits of the package take effect at once."""
    name, _, _, _ = _metadata()
    entries = {f"__editable__.{name}.pth": (SOURCE + "\n").encode()}
    entries.update(_metadata_entries())
    return _write_wheel(wheel_directory, entries)


def build_sdist(sdist_directory, config_settings=None):
    name, version, text, packages = _metadata()
    base = f"{name}-{version}"
    filename = f"{base}.tar.gz"
    members = [(arcname, path) for arcname, path in _package_files(packages)]
    for entry in ("pyproject.toml", "setup.cfg", "setup.py", "README.md",
                  "_build_backend/nscd_build.py"):
        if os.path.isfile(os.path.join(SOURCE, entry)):
            members.append((entry, os.path.join(SOURCE, entry)))
    with tarfile.open(os.path.join(sdist_directory, filename), "w:gz",
                      format=tarfile.PAX_FORMAT) as archive:
        def add(arcname, data):
            info = tarfile.TarInfo(f"{base}/{arcname}")
            info.size, info.mtime, info.mode = len(data), int(time.time()), 0o644
            archive.addfile(info, io.BytesIO(data))
        for arcname, path in sorted(members):
            with open(path, "rb") as f:
                add(arcname, f.read())
        add("PKG-INFO", text.encode())
    return filename
