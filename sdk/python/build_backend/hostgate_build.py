"""The PEP 517 / PEP 660 build backend of the hostgate Python SDK.

Standard library only, so that `pip install ./sdk/python` needs no index:
pyproject.toml says `requires = []` and points `backend-path` here. It
builds exactly one kind of project — a pure-Python package under src/ with
the metadata of pyproject's [project] table — and refuses anything in that
table it does not understand rather than dropping it silently.

Hooks: build_wheel, build_sdist, build_editable (a wheel whose .pth file
puts src/ on sys.path), prepare_metadata_for_build_wheel and
prepare_metadata_for_build_editable, and get_requires_for_build_* (all []).
"""
from __future__ import annotations

import base64
import csv
import gzip
import hashlib
import io
import os
import re
import tarfile
import time
import zipfile

# The project directory: this file is build_backend/hostgate_build.py in it,
# both in the repository and in an unpacked sdist.
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

GENERATOR = "hostgate_build"
TAG = "py3-none-any"

# [project] keys this backend reads; any other key is an error.
_KEYS = ("name", "version", "description", "readme", "requires-python", "license", "dependencies")
_REQUIRED = ("name", "version", "description", "readme", "requires-python")


class BuildError(Exception):
    """pyproject.toml or the source tree is not what this backend builds."""


# --- pyproject.toml ---------------------------------------------------------
#
# Python 3.9 and 3.10 have no tomllib, so this reads the small subset of TOML
# that our pyproject uses: [table] headers, comments, and in [project]
# one-line `key = value` pairs whose value is a basic string, a one-line
# array of basic strings, or a one-line inline table of basic strings.

_STRING = r'"(?:[^"\\\n]|\\.)*"'
_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", '"': '"', "\\": "\\"}


def _unquote(tok: str, where: str) -> str:
    out, i, body = [], 0, tok[1:-1]
    while i < len(body):
        c = body[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        e = body[i + 1:i + 2]
        if e in _ESCAPES:
            out.append(_ESCAPES[e])
            i += 2
        elif e in ("u", "U"):
            n = 4 if e == "u" else 8
            hexits = body[i + 2:i + 2 + n]
            if not re.fullmatch(r"[0-9A-Fa-f]{%d}" % n, hexits):
                raise BuildError("%s: bad escape in %s" % (where, tok))
            out.append(chr(int(hexits, 16)))
            i += 2 + n
        else:
            raise BuildError("%s: bad escape in %s" % (where, tok))
    return "".join(out)


def _strip_comment(line: str) -> str:
    """The line without a trailing # comment (a # inside a string stays)."""
    m = re.match(r'(?:[^"#]|%s)*' % _STRING, line)
    return (m.group(0) if m else line).rstrip()


def _value(text: str, where: str):
    text = text.strip()
    if re.fullmatch(_STRING, text):
        return _unquote(text, where)
    m = re.fullmatch(r"\[\s*((?:%s\s*,\s*)*(?:%s\s*,?)?)\s*\]" % (_STRING, _STRING), text)
    if m:
        return [_unquote(s, where) for s in re.findall(_STRING, m.group(1))]
    pair = r"[A-Za-z0-9_-]+\s*=\s*%s" % _STRING
    m = re.fullmatch(r"\{\s*((?:%s\s*,\s*)*%s)?\s*\}" % (pair, pair), text)
    if m:
        return {k: _unquote(v, where) for k, v in re.findall(r"([A-Za-z0-9_-]+)\s*=\s*(%s)" % _STRING, m.group(1) or "")}
    raise BuildError("%s: unsupported value %r (this backend reads one-line strings, arrays of strings and "
                     "inline tables of strings)" % (where, text))


def read_pyproject(path: str = "") -> dict:
    """The [project] table of pyproject.toml as a dict."""
    path = path or os.path.join(ROOT, "pyproject.toml")
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    table, project = None, {}
    for n, raw in enumerate(lines, 1):
        where = "%s:%d" % (os.path.basename(path), n)
        line = _strip_comment(raw).strip()
        if not line:
            continue
        m = re.fullmatch(r"\[\s*([A-Za-z0-9_.-]+)\s*\]", line)
        if m:
            table = m.group(1)
            if table.startswith("project."):
                raise BuildError("%s: [%s] is not supported by build_backend/hostgate_build.py" % (where, table))
            continue
        if line.startswith("["):
            raise BuildError("%s: unsupported table header %r" % (where, line))
        if table != "project":
            continue
        m = re.fullmatch(r"([A-Za-z0-9_-]+)\s*=\s*(.+)", line)
        if not m:
            raise BuildError("%s: unsupported line %r in [project]" % (where, raw))
        key = m.group(1)
        if key not in _KEYS:
            raise BuildError("%s: [project] key %r is not supported by build_backend/hostgate_build.py" % (where, key))
        if key in project:
            raise BuildError("%s: [project] key %r given twice" % (where, key))
        project[key] = _value(m.group(2), where)
    for key in _REQUIRED:
        if not isinstance(project.get(key), str) or not project[key]:
            raise BuildError("pyproject.toml: [project] needs %s as a string" % key)
    if not re.fullmatch(r"[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?", project["name"]):
        raise BuildError("pyproject.toml: bad project name %r" % project["name"])
    if not re.fullmatch(r"\d+(\.\d+)*((a|b|rc)\d+)?(\.post\d+)?(\.dev\d+)?", project["version"]):
        raise BuildError("pyproject.toml: version %r is not a plain PEP 440 version" % project["version"])
    deps = project.setdefault("dependencies", [])
    if not isinstance(deps, list):
        raise BuildError("pyproject.toml: dependencies must be an array of strings")
    lic = project.get("license")
    if lic is not None and not (isinstance(lic, dict) and set(lic) == {"text"}):
        raise BuildError('pyproject.toml: license must be {text = "..."}')
    return project


# --- metadata ---------------------------------------------------------------

def _dist_name(project: dict) -> str:
    """The name as wheel and sdist file names spell it (PEP 427, PEP 625)."""
    return re.sub(r"[-_.]+", "_", project["name"]).lower()


def _dist_info(project: dict) -> str:
    return "%s-%s.dist-info" % (_dist_name(project), project["version"])


def _header(value: str) -> str:
    if "\n" in value or "\r" in value:
        raise BuildError("metadata value %r spans lines" % value)
    return value


def metadata(project: dict) -> bytes:
    """METADATA (and PKG-INFO): core metadata 2.1 with the README as body."""
    readme = project["readme"]
    if not readme.lower().endswith(".md"):
        raise BuildError("pyproject.toml: readme %r is not a .md file" % readme)
    with open(os.path.join(ROOT, readme), encoding="utf-8") as f:
        body = f.read()
    lines = [
        "Metadata-Version: 2.1",
        "Name: " + _header(project["name"]),
        "Version: " + _header(project["version"]),
        "Summary: " + _header(project["description"]),
    ]
    if "license" in project:
        lines.append("License: " + _header(project["license"]["text"]))
    lines.append("Requires-Python: " + _header(project["requires-python"]))
    lines += ["Requires-Dist: " + _header(d) for d in project["dependencies"]]
    lines.append("Description-Content-Type: text/markdown")
    return ("\n".join(lines) + "\n\n" + body).encode("utf-8")


def wheel_file() -> bytes:
    return ("Wheel-Version: 1.0\nGenerator: %s\nRoot-Is-Purelib: true\nTag: %s\n" % (GENERATOR, TAG)).encode()


def _package_files(project: dict) -> list:
    """(path in the archive, path on disk) of the package under src/."""
    pkg = os.path.join(ROOT, "src", _dist_name(project))
    if not os.path.isfile(os.path.join(pkg, "__init__.py")):
        raise BuildError("%s has no __init__.py" % pkg)
    out = []
    for d, dirs, files in os.walk(pkg):
        dirs[:] = sorted(x for x in dirs if x != "__pycache__" and not x.startswith("."))
        for name in sorted(files):
            if name.endswith((".pyc", ".pyo")) or name.startswith("."):
                continue
            full = os.path.join(d, name)
            out.append((os.path.relpath(full, os.path.join(ROOT, "src")).replace(os.sep, "/"), full))
    return out


# --- archives ---------------------------------------------------------------

def _epoch() -> int:
    """Archive timestamps: SOURCE_DATE_EPOCH if set, else 1980-01-01 (the
    zip format's earliest), so that a build is reproducible."""
    try:
        return max(int(os.environ["SOURCE_DATE_EPOCH"]), 315532800)
    except (KeyError, ValueError):
        return 315532800


def record_digest(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _write_wheel(wheel_directory: str, project: dict, files: list) -> str:
    """files: (archive path, bytes); adds dist-info and RECORD."""
    info = _dist_info(project)
    files = files + [(info + "/METADATA", metadata(project)), (info + "/WHEEL", wheel_file())]
    name = "%s-%s-%s.whl" % (_dist_name(project), project["version"], TAG)
    date = time.gmtime(_epoch())[:6]
    record = io.StringIO()
    w = csv.writer(record, lineterminator="\n")
    path = os.path.join(wheel_directory, name)
    tmp = path + ".part"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        for arc, data in files:
            zi = zipfile.ZipInfo(arc, date)
            zi.external_attr = 0o100644 << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, data)
            w.writerow([arc, record_digest(data), len(data)])
        w.writerow([info + "/RECORD", "", ""])
        zi = zipfile.ZipInfo(info + "/RECORD", date)
        zi.external_attr = 0o100644 << 16
        zi.compress_type = zipfile.ZIP_DEFLATED
        z.writestr(zi, record.getvalue().encode())
    os.replace(tmp, path)
    return name


def _read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def _write_metadata(metadata_directory: str) -> str:
    project = read_pyproject()
    info = _dist_info(project)
    d = os.path.join(metadata_directory, info)
    os.makedirs(d, exist_ok=True)
    for name, data in (("METADATA", metadata(project)), ("WHEEL", wheel_file())):
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)
    return info


# --- PEP 517 / PEP 660 hooks -------------------------------------------------

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    return _write_metadata(metadata_directory)


def prepare_metadata_for_build_editable(metadata_directory, config_settings=None):
    return _write_metadata(metadata_directory)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    project = read_pyproject()
    return _write_wheel(wheel_directory, project, [(arc, _read(full)) for arc, full in _package_files(project)])


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """A wheel holding only the metadata and a .pth file naming this tree's
    src/ directory: the installed package is the working copy."""
    project = read_pyproject()
    _package_files(project)  # the package must exist
    src = os.path.join(ROOT, "src")
    pth = ("_%s_editable.pth" % _dist_name(project), (src + "\n").encode("utf-8"))
    return _write_wheel(wheel_directory, project, [pth])


def sdist_files(project: dict) -> list:
    """(path in the sdist below its top directory, path on disk)."""
    out = [(p, os.path.join(ROOT, p)) for p in ("pyproject.toml", project["readme"], "build_backend/hostgate_build.py")]
    out += [("src/" + arc, full) for arc, full in _package_files(project)]
    return out


def build_sdist(sdist_directory, config_settings=None):
    project = read_pyproject()
    base = "%s-%s" % (_dist_name(project), project["version"])
    name = base + ".tar.gz"
    mtime = _epoch()
    members = [("PKG-INFO", metadata(project))] + [(arc, _read(full)) for arc, full in sdist_files(project)]
    path = os.path.join(sdist_directory, name)
    tmp = path + ".part"
    with open(tmp, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=mtime, filename="") as gz, \
            tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
        dirs = set()
        for arc, data in members:
            parts = arc.split("/")[:-1]
            for i in range(len(parts) + 1):
                d = "/".join([base] + parts[:i])
                if d not in dirs:
                    dirs.add(d)
                    tar.addfile(_tarinfo(d, tarfile.DIRTYPE, 0o755, mtime))
            ti = _tarinfo(base + "/" + arc, tarfile.REGTYPE, 0o644, mtime)
            ti.size = len(data)
            tar.addfile(ti, io.BytesIO(data))
    os.replace(tmp, path)
    return name


def _tarinfo(name: str, kind: bytes, mode: int, mtime: int) -> tarfile.TarInfo:
    ti = tarfile.TarInfo(name)
    ti.type, ti.mode, ti.mtime = kind, mode, mtime
    ti.uid = ti.gid = 0
    ti.uname = ti.gname = ""
    return ti
