"""The API reference's pages, generated from the packages' ``__all__``.

Every name a package or one of its modules lists in ``__all__`` gets one page
(autosummary), under the shortest import path that reaches it: ``puf.sd`` rather
than ``puf.measures.sd``. The lists are read when the site builds, so a name
added, moved or renamed in the code is added, moved or renamed here with it.
"""

__all__ = ["PACKAGES", "public_names", "write_pages"]

import importlib
import inspect
import pkgutil
import re
import sys
from pathlib import Path

# The documented packages, in the order of the reference (each page opens with the package's
# docstring; the line here is for this listing only).
PACKAGES = {
    "puf": "The measures, effectiveness, similarity, the data model and the registry.",
    "puf.synthetic": "Controlled populations and interaction-level worlds.",
    "puf.properties": "The property catalog, the verdict runner and the Hypothesis strategies.",
    "puf.reports": "Sensitivity sweeps, figures and the HTML/Markdown report.",
    "puf.data": "RecBole atomic files, MovieLens and preprocessing.",
    "puf.rankers": "Baseline and neural rankers.",
    "puf.evaluation": "Rankers' top-k lists on real data, every measure and their agreement.",
    "puf.engines": "The pairwise measures at MovieLens-20M size, without an m × m matrix.",
    "puf.cli": "The ``puf`` command line.",
}


def _modules(package):
    """The package and its public modules, depth first (private ``_x`` modules left out)."""
    root = importlib.import_module(package)
    yield root
    for info in pkgutil.walk_packages(getattr(root, "__path__", []), package + "."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        top = info.name.split(".")
        if ".".join(top[:2]) in PACKAGES and ".".join(top[:2]) != package and package == "puf":
            continue  # a documented package of its own (puf.data, ...)
        yield importlib.import_module(info.name)


def _key(name, value):
    """A re-export keeps its name; an alias (``puf.puf`` of ``pairwise_user_unfairness``) is a name
    of its own and gets its own page."""
    return (name, id(value))


def public_names():
    """``{package: [(module, [names])]}``: every public name once, package level first."""
    seen, out = set(), {}
    for package in PACKAGES:
        sections = []
        for module in _modules(package):
            names = []
            for name in getattr(module, "__all__", []):
                if name.startswith("__"):
                    continue
                key = _key(name, getattr(module, name))
                if key in seen:
                    continue
                seen.add(key)
                names.append(name)
            if names:
                sections.append((module.__name__, names))
        out[package] = sections
    return out


def _page(package, sections):
    title = f"``{package}``"
    lines = [title, "=" * len(title), "", f".. automodule:: {package}", "   :no-members:", "   :no-index:", ""]
    for module, names in sections:
        if module != package:
            heading = f"``{module}``"
            lines += [heading, "-" * len(heading), ""]
        lines += [
            f".. currentmodule:: {module}",
            "",
            ".. autosummary::",
            "   :toctree: generated",
            "   :nosignatures:",
            "",
        ]
        lines += [f"   {name}" for name in names] + [""]
    return "\n".join(lines)


def write_pages(folder):
    """Write ``<package>.rst`` for each package into ``folder`` (only those whose text changed)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    names = public_names()
    for package, sections in names.items():
        path, text = folder / f"{package}.rst", _page(package, sections)
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
    # A page left from a name that was moved or removed would be an orphan: remove it.
    current = {f"{module}.{name}" for sections in names.values() for module, listed in sections for name in listed}
    for page in (folder / "generated").glob("*.rst"):
        if page.stem not in current:
            page.unlink()


def _escape_bars(app, what, name, obj, options, lines):
    """Read ``|x|`` in a docstring as an absolute value, not as a reST substitution.

    The docstrings write absolute values as ``|S(u) − S(v)|``; outside literals and
    tables reST would take them for substitution references, so there a bar is
    escaped. Maths is left alone: in a ``.. math::`` block or a ``:math:`` role a
    bar is LaTeX's, and ``\\|`` would draw a double bar ‖.
    """
    math_indent = None  # the indentation of the open .. math:: directive
    for i, line in enumerate(lines):
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if math_indent is not None and (not stripped or indent > math_indent):
            continue  # the directive's content: LaTeX
        math_indent = indent if stripped.startswith(".. math::") else None
        if math_indent is not None:
            continue
        # A plural s right after a literal needs an escaped space to end the literal.
        line = lines[i] = re.sub(r"``(\w+)``s\b", r"``\1``\\ s", line)
        table = stripped.startswith(("+-", "+=")) or (stripped.startswith("|") and stripped.endswith("|"))
        if "|" not in line or table or stripped.startswith((">>>", "...")):
            continue
        # Literals (``...``) and inline maths (:math:`...`) keep their bars.
        pieces = re.split(r"(``.*?``|:math:`[^`]*`)", line)
        lines[i] = "".join(p if k % 2 else p.replace("|", "\\|") for k, p in enumerate(pieces))


def _attribute_doc(name, value):
    """The documentation of constant ``name`` where it is assigned (a ``#:`` comment or a string after
    it): a package that re-exports it (``puf.FIELDS`` of ``puf.population``) has none of its own."""
    from sphinx.pycode import ModuleAnalyzer
    from sphinx.errors import PycodeError

    for module_name, module in sorted(sys.modules.items()):
        if module_name.split(".")[0] != "puf" or vars(module).get(name) is not value:
            continue
        try:
            docs = ModuleAnalyzer.for_module(module_name).find_attr_docs()
        except PycodeError:
            continue
        if ("", name) in docs:
            return list(docs["", name])
    return None


def _constant_docs(app, what, name, obj, options, lines):
    """A constant's page says what it is: its home module's words, never its type's docstring.

    autodoc reads a constant's ``#:`` comment (or the string after it) in the module of the page;
    for a name re-exported under a shorter path it found none and showed the docstring of the
    value's type ("Built-in immutable sequence. ...") instead.
    """
    if what != "data":
        return
    own = inspect.cleandoc(type(obj).__doc__ or "")
    found = _attribute_doc(name.rpartition(".")[2], obj)
    if found is not None and (not "".join(lines).strip() or inspect.cleandoc("\n".join(lines)) == own):
        lines[:] = found
    elif own and inspect.cleandoc("\n".join(lines)) == own:
        lines[:] = []


def _generate(app):
    write_pages(Path(app.srcdir) / "api")
    # autosummary reads the pages it generates from after this handler (priority below 500).
    app.config.autosummary_generate = sorted(str(Path("api") / f"{package}.rst") for package in PACKAGES)


def setup(app):
    app.connect("builder-inited", _generate, priority=100)
    app.connect("autodoc-process-docstring", _constant_docs, priority=400)  # before numpydoc rewrites it
    app.connect("autodoc-process-docstring", _escape_bars)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
