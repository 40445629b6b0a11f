"""Link a wheel's declared dependencies, as installed here, into a folder of their own.

``python .ci/declared.py WHEEL FOLDER`` reads the wheel's requirements (no extra), follows
theirs, and links every file and folder each of those distributions installed at the top of
this environment's site-packages (its RECORD) and its metadata into FOLDER. A venv whose
``.pth`` file names FOLDER sees the package's declared dependencies and nothing else, as a
fresh install of the wheel would, without downloading or unpacking them again; a dependency
the package imports but does not declare is missing there.
"""

import email.parser
import importlib.metadata
import pathlib
import sys
import zipfile

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name


def requirements(lines):
    """The names of the requirements among ``lines`` that apply here, without an extra."""
    found = (Requirement(line) for line in lines or ())
    return [r.name for r in found if r.marker is None or r.marker.evaluate({"extra": ""})]


def wheel_requirements(wheel):
    with zipfile.ZipFile(wheel) as archive:
        (metadata,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        message = email.parser.Parser().parsestr(archive.read(metadata).decode("utf-8"))
    return requirements(message.get_all("Requires-Dist"))


def closure(names):
    """The installed distributions ``names`` need, transitively."""
    seen, todo = {}, list(names)
    while todo:
        name = canonicalize_name(todo.pop())
        if name not in seen:
            seen[name] = importlib.metadata.distribution(name)
            todo.extend(requirements(seen[name].requires))
    return list(seen.values())


def link(distribution, folder):
    """Link the distribution's top-level entries (a RECORD path's first part, inside site-packages)."""
    root = pathlib.Path(distribution.locate_file(""))
    tops = {pathlib.PurePosixPath(str(f)).parts[0] for f in distribution.files or ()}
    for top in sorted(tops - {"..", "__pycache__"}):
        target = folder / top
        if not target.exists() and (root / top).exists():
            target.symlink_to(root / top)


if __name__ == "__main__":
    wheel, folder = sys.argv[1], pathlib.Path(sys.argv[2])
    folder.mkdir(parents=True, exist_ok=True)
    for distribution in closure(wheel_requirements(wheel)):
        link(distribution, folder)
