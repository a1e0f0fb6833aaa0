"""The package's own build backend (build_backend/hostgate_build.py): the
wheel, sdist and editable wheel it makes, and a real `pip install` of
sdk/python into a fresh venv with no package index."""
from __future__ import annotations

import base64
import csv
import email.parser
import hashlib
import importlib.util
import io
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unittest
import zipfile

import hostgate

PROJECT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(PROJECT, "build_backend"))
import hostgate_build  # noqa: E402

VERSION = hostgate.__version__
WHEEL = "hostgate-%s-py3-none-any.whl" % VERSION
INFO = "hostgate-%s.dist-info" % VERSION


def tree_package_files():
    """archive path -> bytes of what src/hostgate holds (no bytecode)."""
    out = {}
    for d, dirs, files in os.walk(os.path.join(PROJECT, "src", "hostgate")):
        dirs[:] = [x for x in dirs if x != "__pycache__"]
        for name in files:
            if not name.endswith(".pyc"):
                full = os.path.join(d, name)
                with open(full, "rb") as f:
                    out[os.path.relpath(full, os.path.join(PROJECT, "src")).replace(os.sep, "/")] = f.read()
    return out


def readme():
    with open(os.path.join(PROJECT, "README.md"), encoding="utf-8") as f:
        return f.read()


def parse_metadata(data: bytes):
    """Core metadata as importlib.metadata reads it: UTF-8 text."""
    return email.parser.Parser().parsestr(data.decode("utf-8"))


class Wheel:
    """A built wheel's members, checked against its RECORD."""

    def __init__(self, test: unittest.TestCase, path: str):
        with zipfile.ZipFile(path) as z:
            names = z.namelist()
            test.assertEqual(len(names), len(set(names)), "duplicate members")
            self.files = {n: z.read(n) for n in names}
        rows = list(csv.reader(io.StringIO(self.files[INFO + "/RECORD"].decode())))
        test.assertEqual(sorted(r[0] for r in rows), sorted(self.files), "RECORD lists every member once")
        for path_, digest, size in rows:
            if path_ == INFO + "/RECORD":
                test.assertEqual((digest, size), ("", ""))
                continue
            data = self.files[path_]
            want = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            test.assertEqual(digest, want, path_)
            test.assertEqual(int(size), len(data), path_)
        self.metadata = parse_metadata(self.files[INFO + "/METADATA"])
        self.wheel = parse_metadata(self.files[INFO + "/WHEEL"])


class BuildTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)

    def check_metadata(self, msg):
        project = hostgate_build.read_pyproject()
        self.assertEqual(msg["Metadata-Version"], "2.1")
        self.assertEqual(msg["Name"], "hostgate")
        self.assertEqual(msg["Version"], VERSION)
        self.assertEqual(msg["Summary"], project["description"])
        self.assertEqual(msg["Requires-Python"], ">=3.9")
        self.assertEqual(msg["License"], project.get("license", {}).get("text"))
        self.assertEqual(msg["Description-Content-Type"], "text/markdown")
        self.assertIsNone(msg["Requires-Dist"])
        self.assertEqual(msg.get_payload(), readme())

    def test_hooks_need_nothing(self):
        for hook in ("get_requires_for_build_wheel", "get_requires_for_build_sdist", "get_requires_for_build_editable"):
            self.assertEqual(getattr(hostgate_build, hook)(None), [], hook)

    def test_pyproject(self):
        project = hostgate_build.read_pyproject()
        self.assertEqual(project["name"], "hostgate")
        self.assertEqual(project["version"], VERSION, "pyproject's version is hostgate.__version__")
        try:
            import tomllib
        except ImportError:  # Python < 3.11: the restricted reader is all there is
            return
        with open(os.path.join(PROJECT, "pyproject.toml"), "rb") as f:
            doc = tomllib.load(f)
        self.assertEqual(project, doc["project"], "the restricted reader agrees with tomllib")
        self.assertEqual(doc["build-system"], {"requires": [], "build-backend": "hostgate_build",
                                               "backend-path": ["build_backend"]})

    def test_pyproject_refuses_what_it_cannot_read(self):
        good = ('[project]\nname = "hostgate"\nversion = "1.2.3"\ndescription = "d # not a comment"\n'
                'readme = "README.md"\nrequires-python = ">=3.9"  # a comment\n')
        path = os.path.join(self.tmp, "pyproject.toml")
        with open(path, "w") as f:
            f.write(good + 'license = {text = "x"}\ndependencies = ["a>=1", "b"]\n[tool.x]\nanything = 1\n')
        p = hostgate_build.read_pyproject(path)
        self.assertEqual((p["version"], p["description"], p["dependencies"], p["license"]),
                         ("1.2.3", "d # not a comment", ["a>=1", "b"], {"text": "x"}))
        for extra in ('authors = [{name = "x"}]\n', 'dependencies = [\n  "a",\n]\n', "dynamic = []\n",
                      "license = \"MIT\"\n", 'version = "1.2.4"\n', "version = 1\n", "[[project.urls]]\n", "[project.urls]\nhome = \"x\"\n"):
            with open(path, "w") as f:
                f.write(good + extra)
            with self.assertRaises(hostgate_build.BuildError, msg=extra):
                hostgate_build.read_pyproject(path)
        with open(path, "w") as f:
            f.write(good.replace("1.2.3", "1.2.3-dev"))
        with self.assertRaises(hostgate_build.BuildError):
            hostgate_build.read_pyproject(path)

    def test_wheel(self):
        name = hostgate_build.build_wheel(self.tmp)
        self.assertEqual(name, WHEEL)
        self.assertEqual(os.listdir(self.tmp), [WHEEL])
        w = Wheel(self, os.path.join(self.tmp, name))
        pkg = tree_package_files()
        self.assertIn("hostgate/py.typed", pkg)
        self.assertEqual({n: d for n, d in w.files.items() if not n.startswith(INFO + "/")}, pkg)
        self.assertEqual(sorted(n for n in w.files if n.startswith(INFO + "/")),
                         [INFO + "/METADATA", INFO + "/RECORD", INFO + "/WHEEL"])
        self.check_metadata(w.metadata)
        self.assertEqual(w.wheel["Wheel-Version"], "1.0")
        self.assertEqual(w.wheel["Root-Is-Purelib"], "true")
        self.assertEqual(w.wheel.get_all("Tag"), ["py3-none-any"])
        # Reproducible: a second build is the same bytes.
        with open(os.path.join(self.tmp, name), "rb") as f:
            first = f.read()
        again = os.path.join(self.tmp, "again")
        os.mkdir(again)
        with open(os.path.join(again, hostgate_build.build_wheel(again)), "rb") as f:
            self.assertEqual(f.read(), first)

    def test_prepare_metadata(self):
        for hook in (hostgate_build.prepare_metadata_for_build_wheel, hostgate_build.prepare_metadata_for_build_editable):
            d = tempfile.mkdtemp(dir=self.tmp)
            self.assertEqual(hook(d), INFO)
            self.assertEqual(sorted(os.listdir(os.path.join(d, INFO))), ["METADATA", "WHEEL"])
            with open(os.path.join(d, INFO, "METADATA"), "rb") as f:
                self.check_metadata(parse_metadata(f.read()))

    def test_editable_wheel(self):
        name = hostgate_build.build_editable(self.tmp)
        self.assertEqual(name, WHEEL)
        w = Wheel(self, os.path.join(self.tmp, name))
        self.assertEqual(sorted(w.files), ["_hostgate_editable.pth", INFO + "/METADATA", INFO + "/RECORD", INFO + "/WHEEL"])
        self.assertEqual(w.files["_hostgate_editable.pth"].decode(), os.path.join(PROJECT, "src") + "\n")
        self.check_metadata(w.metadata)

    def test_sdist(self):
        name = hostgate_build.build_sdist(self.tmp)
        self.assertEqual(name, "hostgate-%s.tar.gz" % VERSION)
        top = "hostgate-%s/" % VERSION
        with tarfile.open(os.path.join(self.tmp, name)) as tar:
            members = tar.getmembers()
            files = {m.name[len(top):]: tar.extractfile(m).read() for m in members if m.isfile()}
            self.assertTrue(all(m.name + "/" == top or m.name.startswith(top) for m in members))
            if hasattr(tarfile, "data_filter"):
                tar.extractall(self.tmp, filter="data")
            else:
                tar.extractall(self.tmp)
        want = {"src/" + n: d for n, d in tree_package_files().items()}
        for rel in ("pyproject.toml", "README.md", "build_backend/hostgate_build.py"):
            with open(os.path.join(PROJECT, rel), "rb") as f:
                want[rel] = f.read()
        self.assertEqual({n: d for n, d in files.items() if n != "PKG-INFO"}, want)
        self.check_metadata(parse_metadata(files["PKG-INFO"]))
        # The unpacked sdist builds the same wheel as the repository.
        out = os.path.join(self.tmp, "from-sdist")
        os.mkdir(out)
        subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, 'build_backend'); import hostgate_build as b; "
                        "b.build_wheel(sys.argv[1])", out], cwd=os.path.join(self.tmp, top), check=True,
                       env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
        tree = os.path.join(self.tmp, "from-tree")
        os.mkdir(tree)
        with open(os.path.join(out, WHEEL), "rb") as a, open(os.path.join(tree, hostgate_build.build_wheel(tree)), "rb") as b:
            self.assertEqual(a.read(), b.read())


def pythons():
    """The Python interpreters to install with: this one, then the other
    python3 on PATH and Debian's, when they differ and have venv."""
    out, seen = [], set()
    for p in (sys.executable, shutil.which("python3"), "/usr/bin/python3"):
        if not p or not os.path.exists(p):
            continue
        r = subprocess.run([p, "-c", "import os, sys; print(os.path.realpath(sys.executable))"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        real = r.stdout.decode().strip()
        if r.returncode != 0 or real in seen:
            continue
        seen.add(real)
        out.append(p)
    return out


def has_venv(python: str) -> bool:
    code = "import ensurepip, venv, sys; sys.exit(sys.version_info < (3, 9))"
    return subprocess.run([python, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0


class PipInstallTest(unittest.TestCase):
    """What the README says: `pip install ./sdk/python` (and -e) in a plain
    venv, with no package index (PIP_NO_INDEX: pip may fetch nothing)."""

    def test_pip_install(self):
        if importlib.util.find_spec("ensurepip") is None or importlib.util.find_spec("venv") is None:
            msg = "this Python has no venv/ensurepip (Debian: apt-get install python3-venv)"
            if os.environ.get("CI") == "true":
                self.fail(msg)
            self.skipTest(msg)
        for python in pythons():
            if python != sys.executable and not has_venv(python):
                continue
            with self.subTest(python=python):
                self.install(python)

    def install(self, python):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        pkg = os.path.join(tmp, "python")
        shutil.copytree(PROJECT, pkg, ignore=shutil.ignore_patterns("__pycache__"))
        before = sorted(os.path.relpath(os.path.join(d, f), pkg) for d, _, fs in os.walk(pkg) for f in fs)
        venv = os.path.join(tmp, "venv")
        subprocess.run([python, "-m", "venv", venv], check=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "PYTHON"))}
        env.update(PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1", PYTHONNOUSERSITE="1")
        bindir = os.path.join(venv, "Scripts" if os.name == "nt" else "bin")
        pip, vpy = os.path.join(bindir, "pip"), os.path.join(bindir, "python")

        def run(*args):
            r = subprocess.run(args, cwd=tmp, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            self.assertEqual(r.returncode, 0, "%s:\n%s" % (" ".join(args), r.stdout.decode(errors="replace")))
            return r.stdout.decode()

        probe = ("import hostgate, importlib.metadata as m, os; "
                 "print(hostgate.__version__, m.version('hostgate'), m.metadata('hostgate')['Requires-Python'], "
                 "os.path.exists(os.path.join(os.path.dirname(hostgate.__file__), 'py.typed')), hostgate.__file__)")
        run(pip, "install", pkg)
        got = run(vpy, "-c", probe).split()
        self.assertEqual(got[:4], [VERSION, VERSION, ">=3.9", "True"])
        self.assertTrue(got[4].startswith(os.path.realpath(venv)) or got[4].startswith(venv), got[4])
        self.assertIn("site-packages", got[4])
        after = sorted(os.path.relpath(os.path.join(d, f), pkg) for d, _, fs in os.walk(pkg) for f in fs
                       if "__pycache__" not in d)
        self.assertEqual(after, before, "pip install left files in the source tree")

        run(pip, "install", "-e", pkg)
        got = run(vpy, "-c", probe).split()
        self.assertEqual(got[:4], [VERSION, VERSION, ">=3.9", "True"])
        self.assertEqual(got[4], os.path.join(pkg, "src", "hostgate", "__init__.py"), "editable: the working copy")
        run(pip, "uninstall", "-y", "hostgate")
        r = subprocess.run([vpy, "-c", "import hostgate"], cwd=tmp, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.assertNotEqual(r.returncode, 0, "hostgate still importable after pip uninstall")


if __name__ == "__main__":
    unittest.main()
