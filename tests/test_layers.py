"""The import graph of the installed package: layers, no circle, public names, one home per name, small functions.

Every module of every folder that installs under ``puf`` (pyproject's ``package-dir``) is parsed
with :mod:`ast`; its imports, those inside functions included, become edges of a module graph
(``from puf import World`` counts as an import of ``puf.world``: ``puf`` loads its names lazily
from the ``_HOME`` table). The layers are those of docs/design.md ("Layers"): a module imports its
own part or a lower layer, never a sibling part of its layer, never a higher one.

``PENDING`` lists known violations that a planned change removes (keyed by that change): those are
reported as ``LayerDebt`` warnings, not failures, and an entry that no longer occurs is reported
so that it can be deleted. A module is the size its concept needs: one over ``MODULE_GUIDE`` lines
is printed as advice (a hint to look for a second concept inside), never a failure, for a module is
never split only to meet a number. Function sizes are enforced for every module but the few in
``SIZE_EXEMPT`` (each with its reason), which are reported. No module but a package's
``__init__.py`` hands on a name another module defines: each name is imported from its one home.
"""

import ast
import pathlib
import re
import tomllib
import warnings
from collections import defaultdict

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent

#: Lowest first. A part is a package; ``puf`` is the core, every ``puf.*`` module not in a
#: package listed here. Parts in one layer do not import each other.
LAYERS = (
    ("puf",),
    ("puf.engines", "puf.data", "puf.rankers", "puf.synthetic"),
    ("puf.evaluation", "puf.properties"),
    ("puf.reports",),
    ("puf.cli",),
)
#: Inside ``puf.properties``: what a subpackage may import of the package's other subpackages
#: (docs/design.md, "Layers"); the subpackages not listed are bounded by the chain below.
PROPERTIES_IMPORTS = {
    "puf.properties.cases": (),
    "puf.properties.catalog": ("puf.properties.cases", "puf.properties.proving.proof_rules"),
}
#: The longest chain of imports inside ``puf.properties``, counted in modules (A imports B
#: imports C is 3), function-level imports included: what reads the catalog by name, the listing,
#: and the listing's own chain below it; nothing imports a module that reads the listing.
MAX_PROPERTIES_CHAIN = 6
#: The longest chain below the catalog's listing (the entries, their judges, rules and cases): what
#: every module that reads the catalog stands on.
MAX_CATALOG_CHAIN = 5
MODULE_GUIDE = 300  # advice above this: look for a second concept inside
MAX_FUNCTION_LINES = 50  # logical lines of code: statements, docstring aside (see _code_lines)

#: Modules whose function sizes are reported but do not fail the test, with the reason. Every
#: other module of the installed package is held to the function limit.
SIZE_EXEMPT = {
    "puf.engines.envy": "envy_measures() is 61 lines of code: one streaming pass whose three user "
    "kinds share their block state",
}

#: Known violations that a planned change removes: the change -> keys. A
#: "circle" entry is one import edge left out of the graph before looking for circles; an
#: importer "*" stands for any module.
_PENDING_BY_WORK = {}
PENDING = {key: work for work, keys in _PENDING_BY_WORK.items() for key in keys}


class LayerDebt(UserWarning):
    """A known violation that a planned change removes, or a function size over the limit in SIZE_EXEMPT."""


def _folders():
    """Installed package name -> folder, from pyproject (``puf`` itself maps to ``puf/``)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    return {"puf": "puf", **config["package-dir"]}


def _modules():
    """Module name -> (path, is_package) for every .py file of the installed package."""
    modules = {}
    for package, folder in _folders().items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            is_package = parts[-1] == "__init__"
            name = ".".join([package, *(parts[:-1] if is_package else parts)])
            modules[name] = (path, is_package)
    return modules


def _is_private(name):
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _lazy_names(modules, trees):
    """Package -> {name: module} for packages that load names on first use (a ``_HOME`` dict)."""
    lazy = {}
    for name, (_, is_package) in modules.items():
        if not is_package:
            continue
        for node in trees[name].body:
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and getattr(node.targets[0], "id", None) == "_HOME"
                and isinstance(node.value, ast.Dict)
            ):
                lazy[name] = {
                    ast.literal_eval(k): f"{name}.{ast.literal_eval(v)}"
                    for k, v in zip(node.value.keys, node.value.values)
                }
    return lazy


class Graph:
    """Every import edge between the package's modules, with the name imported."""

    def __init__(self, modules=None):
        self.modules = _modules() if modules is None else modules
        self.trees = {
            name: ast.parse(path.read_text(encoding="utf-8"), str(path)) for name, (path, _) in self.modules.items()
        }
        self.lazy = _lazy_names(self.modules, self.trees)
        self.edges = []  # (importer, module, name or None, line)
        self.attributes = []  # (importer, module, attribute, line): ``module.attribute`` read
        for name in self.modules:
            self._read(name)
        self.private_attributes = [a for a in self.attributes if _is_private(a[2])]

    def _known(self, dotted):
        """The longest prefix of ``dotted`` that is one of our modules, or None."""
        parts = dotted.split(".")
        for end in range(len(parts), 0, -1):
            if ".".join(parts[:end]) in self.modules:
                return ".".join(parts[:end])
        return None

    def _base(self, importer, node):
        if node.level == 0:
            return node.module
        package = importer.split(".")
        if not self.modules[importer][1]:
            package = package[:-1]
        package = package[: len(package) - node.level + 1]
        return ".".join(package + ([node.module] if node.module else []))

    def _read(self, importer):
        aliases = {}  # local name -> module it is bound to
        for node in ast.walk(self.trees[importer]):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    target = self._known(alias.name)
                    if target:
                        self.edges.append((importer, target, None, node.lineno))
                        if alias.asname:
                            aliases[alias.asname] = target
            elif isinstance(node, ast.ImportFrom):
                base = self._base(importer, node)
                for alias in node.names:
                    self._read_from(importer, base, alias, node.lineno, aliases)
            elif (
                isinstance(node, ast.Call)
                and getattr(node.func, "attr", None) == "import_module"
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
                and self._known(node.args[0].value)
            ):
                self.edges.append((importer, self._known(node.args[0].value), None, node.lineno))
        for node in ast.walk(self.trees[importer]):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
                self.attributes.append((importer, aliases[node.value.id], node.attr, node.lineno))

    def _read_from(self, importer, base, alias, line, aliases):
        submodule = f"{base}.{alias.name}"
        if submodule in self.modules:
            self.edges.append((importer, submodule, None, line))
            aliases[alias.asname or alias.name] = submodule
            return
        target = self._known(base)
        if target is None:
            return
        if target == base and alias.name in self.lazy.get(target, {}):
            target = self.lazy[target][alias.name]
        self.edges.append((importer, target, alias.name, line))

    def part(self, module):
        """The package of LAYERS that ``module`` belongs to."""
        parts = [p for layer in LAYERS for p in layer]
        return max((p for p in parts if module == p or module.startswith(p + ".")), key=len)

    def layer(self, module):
        return next(i for i, layer in enumerate(LAYERS) if self.part(module) in layer)


@pytest.fixture(scope="module")
def graph():
    return Graph()


def _pending(key):
    """The PENDING entry that excuses ``key``, or None."""
    for candidate in (key, (key[0], "*", *key[2:])):
        if candidate in PENDING:
            return candidate
    return None


def _judge(found, kind):
    """Fail on violations not in PENDING; warn about the pending ones and stale entries."""
    unexpected = {key: where for key, where in found.items() if _pending(key) is None}
    for key in sorted(set(found) - set(unexpected)):
        warnings.warn(
            f"{kind}: {key[1]} -> {key[2]} ({found[key]}); pending: {PENDING[_pending(key)]}", LayerDebt, stacklevel=2
        )
    used = {_pending(key) for key in found}
    for key in sorted(k for k in PENDING if k[0] == kind and k not in used):
        warnings.warn(f"{kind}: {key[1]} -> {key[2]} no longer occurs; delete it from PENDING", LayerDebt, stacklevel=2)
    assert not unexpected, "\n".join(f"{k[1]} -> {k[2]} ({w})" for k, w in sorted(unexpected.items()))


def _cycles(edges):
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index, low, on_stack, stack, components = {}, {}, set(), [], []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        components.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(edges.get(child, ())))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return components


def test_the_graph_sees_the_whole_package(graph):
    assert {
        "puf",
        "puf.world",
        "puf.engines.blocks",
        "puf.cli",
        "puf.cli.commands.bench",
        "puf.synthetic",
        "puf.properties.running.runner",
        "puf.reports.report",
    } <= set(graph.modules)
    lazily = {(a, b) for a, b, _, _ in graph.edges if a == "puf.properties.running._channel"}
    assert ("puf.properties.running._channel", "puf.loader") in lazily  # from puf.loader import load_measure
    inside_functions = {(a, b) for a, b, _, _ in graph.edges if a == "puf.cli.commands.bench"}
    assert ("puf.cli.commands.bench", "puf.cli.benchmark") in inside_functions


def test_no_import_circle(graph):
    edges, excused = defaultdict(set), {}
    for importer, module, _, line in graph.edges:
        if ("circle", importer, module) in PENDING:
            excused.setdefault(("circle", importer, module), f"line {line}")
        elif importer != module:
            edges[importer].add(module)
    _judge(excused, "circle")
    circles = _cycles(edges)
    assert not circles, "import circles:\n" + "\n".join(" <-> ".join(c) for c in circles)


def longest_chain(edges):
    """The longest path of an acyclic import graph (importer -> imported modules), as a list of modules."""
    longest = {}

    def walk(root):
        # Iterative depth-first: the chain of each module after every module it imports.
        stack = [(root, iter(sorted(edges.get(root, ()))))]
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                below = [longest[c] for c in sorted(edges.get(node, ()))]
                longest[node] = [node, *max(below, key=len, default=[])]
            elif child not in longest:
                stack.append((child, iter(sorted(edges.get(child, ())))))

    for module in sorted(edges):
        if module not in longest:
            walk(module)
    return max(longest.values(), key=len, default=[])


def test_chain_finder_finds_the_longest_chain():
    assert longest_chain({"a": {"b", "d"}, "b": {"c"}, "c": set(), "d": set()}) == ["a", "b", "c"]
    assert longest_chain({"x": {"y"}, "a": {"b"}, "b": {"c"}, "c": {"y"}}) == ["a", "b", "c", "y"]
    assert longest_chain({}) == []


def _inside_properties(graph):
    edges = defaultdict(set)
    for importer, module, _, _ in graph.edges:
        if importer != module and importer.startswith("puf.properties") and module.startswith("puf.properties"):
            edges[importer].add(module)
    return edges


def test_the_longest_import_chain_inside_properties_is_short(graph):
    chain = longest_chain(_inside_properties(graph))
    assert len(chain) <= MAX_PROPERTIES_CHAIN, f"{len(chain)} modules: " + " -> ".join(chain)


def test_the_catalog_stands_on_a_short_chain(graph):
    edges = _inside_properties(graph)
    reached, todo = set(), ["puf.properties.catalog.listing"]
    while todo:  # every module the listing imports, directly or not
        module = todo.pop()
        if module not in reached:
            reached.add(module)
            todo.extend(edges.get(module, ()))
    chain = longest_chain({module: edges.get(module, set()) for module in reached})
    assert chain[0] == "puf.properties.catalog.listing"
    assert len(chain) <= MAX_CATALOG_CHAIN, f"{len(chain)} modules: " + " -> ".join(chain)


def test_what_reads_the_listing_is_a_top(graph):
    """The catalog's listing is read by name only at the top of the package: no module inside
    ``puf.properties`` imports one that imports the listing (the runner, the printed verdicts and
    the pinned files are handed properties or the catalog by their callers)."""
    edges = _inside_properties(graph)
    readers = {module for module, imported in edges.items() if "puf.properties.catalog.listing" in imported}
    assert "puf.properties.running.matrix" in readers  # puf.properties.verdicts looks names up there
    found = sorted(f"{m} -> {reader}" for m, imported in edges.items() for reader in imported & readers)
    assert found == [], "these import a reader of the catalog's listing:\n" + "\n".join(found)


def test_the_cases_and_the_catalog_import_only_what_lies_below_them(graph):
    found = []
    for importer, modules in _inside_properties(graph).items():
        for package, allowed in PROPERTIES_IMPORTS.items():
            if not importer.startswith(package + "."):
                continue
            for module in modules:
                below = (package, *allowed)
                if module != "puf.properties" and not any(module == p or module.startswith(p + ".") for p in below):
                    found.append(f"{importer} -> {module}")
    assert found == []


def test_cycle_finder_finds_a_circle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_nothing_imports_a_higher_layer_or_a_sibling_part(graph):
    found = {}
    for importer, module, _, line in graph.edges:
        mine, theirs = graph.part(importer), graph.part(module)
        if mine != theirs and graph.layer(module) >= graph.layer(importer):
            found.setdefault(("upward", importer, module), f"line {line}")
    _judge(found, "upward")


def test_no_private_name_or_module_crosses_its_boundary(graph):
    """No ``from X import _name`` or ``X._name`` across modules; a private module (``_x.py``)
    is imported only from its own package and part (not from a subpackage that is a part)."""
    found = {}
    for importer, module, name, line in graph.edges:
        if name is not None and _is_private(name) and module != importer:
            found.setdefault(("private", importer, f"{module}.{name}"), f"line {line}")
        parts = module.split(".")
        for depth, part in enumerate(parts):
            package = ".".join(parts[:depth])
            inside = (importer == package or importer.startswith(package + ".")) and graph.part(importer) == graph.part(
                module
            )
            if _is_private(part) and not inside:
                found.setdefault(("private", importer, ".".join(parts[: depth + 1])), f"line {line}")
    for importer, module, attribute, line in graph.private_attributes:
        found.setdefault(("private", importer, f"{module}.{attribute}"), f"line {line}")
    _judge(found, "private")


def _code_lines(node, lines):
    """Logical lines of code of a function: the lines its statements start on, docstring aside.

    Counted by statement, not by physical line, so that a formatter wrapping one call over
    several lines does not make a function longer.
    """
    body = node.body
    docstring = (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(getattr(body[0], "value", None), ast.Constant)
        and isinstance(body[0].value.value, str)
    )
    starts = {child.lineno for child in ast.walk(node) if isinstance(child, ast.stmt) and child is not node}
    if docstring:
        starts.discard(body[0].lineno)
    return len(starts)


def _enforced(module):
    return module not in SIZE_EXEMPT


def test_functions_are_small_and_long_modules_get_advice(graph, capsys):
    over, guide = [], []
    for name, (path, _) in graph.modules.items():
        lines = path.read_text(encoding="utf-8").splitlines()
        if len(lines) > MODULE_GUIDE:
            guide.append(f"{path.relative_to(ROOT)}: {len(lines)} lines")
        for node in ast.walk(graph.trees[name]):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                count = _code_lines(node, lines)
                if count > MAX_FUNCTION_LINES:
                    over.append((name, f"{path.relative_to(ROOT)}:{node.lineno} {node.name}(): {count} lines of code"))
    if guide:
        with capsys.disabled():  # advice, shown on every run, never a failure
            print(f"\nadvice: over {MODULE_GUIDE} lines, is there a second concept inside?\n  " + "\n  ".join(guide))
    reported = [text for name, text in over if not _enforced(name)]
    if reported:
        warnings.warn(
            f"over {MAX_FUNCTION_LINES} lines of code per function (reported, exempt: see SIZE_EXEMPT):\n"
            + "\n".join(reported),
            LayerDebt,
            stacklevel=2,
        )
    assert [text for name, text in over if _enforced(name)] == []


def test_the_design_document_lists_these_layers():
    text = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    section = text[text.index("## Layers") : text.index("## ", text.index("## Layers") + 3)]
    rows = re.findall(r"^\| (\d) \| ([^|]*) \|", section, flags=re.MULTILINE)
    listed = [tuple(re.findall(r"`(puf[.\w]*)`", parts)) or ("puf",) for _, parts in rows]
    assert [int(number) for number, _ in rows] == list(range(len(LAYERS)))
    assert listed == [tuple(layer) for layer in LAYERS]


def _defined_names(tree):
    """Names a module binds itself at top level: definitions and assignments, not imports."""
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    return names


def _listed_in_all(tree):
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and any(getattr(t, "id", None) == "__all__" for t in node.targets)
            and isinstance(node.value, (ast.List, ast.Tuple))
        ):
            return {ast.literal_eval(element) for element in node.value.elts}
    return set()


def re_exports(graph):
    """(module, name, home) for every name a module hands on that another module defines.

    A module (not a package's ``__init__.py``) re-exports ``name`` when it imports ``name``
    from another module of the package and either lists it in ``__all__``, never uses it
    itself (an import kept for others), or a third module imports ``name`` from it or reads it
    as ``module.name``.
    """
    imported = {}  # (module, local name) -> (home, line)
    for importer, module, name, line in graph.edges:
        if name is not None and not graph.modules[importer][1] and module != importer:
            imported.setdefault((importer, name), (module, line))
    found = {}
    for (module, name), (home, line) in imported.items():
        tree = graph.trees[module]
        used = any(
            isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load) for node in ast.walk(tree)
        )
        asked = any(
            imported_from == module and imported_name == name and importer != module
            for importer, imported_from, imported_name, _ in [*graph.edges, *graph.attributes]
        )
        if name in _defined_names(tree):
            continue
        if name in _listed_in_all(tree) or not used or asked:
            found[(module, name)] = f"{home}, line {line}"
    return found


def test_no_module_re_exports_another_modules_names(graph):
    """One home a name: it is imported from the module that defines it (a package's
    ``__init__.py`` aside, which gathers its package's names)."""
    found = re_exports(graph)
    assert not found, "re-exported (module: name <- home):\n" + "\n".join(
        f"{module}: {name} <- {where}" for (module, name), where in sorted(found.items())
    )


def test_the_re_export_finder_finds_each_kind(tmp_path):
    sources = {
        "puf.a": "def f(): ...\ndef g(x): ...\ndef h(): ...\nK = 1\n",
        "puf.b": 'from .a import K, f, g, h\n__all__ = ["f", "local"]\nlocal = g(K)\n',
        "puf.c": "from . import b\nfrom .b import local\nprint(b.K, local)\n",
        "puf.pkg": "from ..a import f\n",
    }
    modules = {}
    for name, text in sources.items():
        path = tmp_path / f"{name}.py"
        path.write_text(text)
        modules[name] = (path, name == "puf.pkg")
    found = re_exports(Graph(modules))
    # f: listed in __all__; h: never used in b; K: read as b.K by c; g: b's own use; pkg: a package
    assert sorted(found) == [("puf.b", "K"), ("puf.b", "f"), ("puf.b", "h")]
