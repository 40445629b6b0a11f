"""Every public function and method of the listed packages has type hints on all its parameters and its return.

The source files are parsed with :mod:`ast` (no import: fast, and functions a module does not
export are covered too). Public: a module-level function or class, or a method of a public class,
whose name does not start with an underscore; ``__init__`` counts as public. Functions nested inside
functions are left out. ``self`` and ``cls`` (a method's first parameter) need no annotation.
"""

import ast
import functools
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent

#: Folders of the repository whose modules are checked (the folder names, as in pyproject's ``package-dir``).
PACKAGES = ["puf", "synthetic", "properties", "reports", "cli"]


def _public(name):
    return not name.startswith("_") or name == "__init__"


def _is_method_of_instance_or_class(node):
    """Whether the first parameter is ``self``/``cls`` (not a staticmethod)."""
    return not any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list)


def _missing(node, in_class):
    """The parameters (and ``return``) of function ``node`` that carry no annotation."""
    args = node.args
    positional = args.posonlyargs + args.args
    if in_class and _is_method_of_instance_or_class(node) and positional:
        positional = positional[1:]
    params = positional + args.kwonlyargs + [a for a in (args.vararg, args.kwarg) if a is not None]
    missing = [a.arg for a in params if a.annotation is None]
    if node.returns is None:
        missing.append("return")
    return missing


def _walk(body, prefix, in_class):
    """Yield ``(node, qualified name, missing)`` for the public functions in ``body``."""
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if _public(node.name):
                yield node, prefix + node.name, _missing(node, in_class)
        elif isinstance(node, ast.ClassDef):
            if not node.name.startswith("_"):
                yield from _walk(node.body, f"{prefix}{node.name}.", True)
        elif isinstance(node, (ast.If, ast.Try, ast.With)):
            blocks = [node.body, getattr(node, "orelse", []), getattr(node, "finalbody", [])]
            blocks += [h.body for h in getattr(node, "handlers", [])]
            for block in blocks:
                yield from _walk(block, prefix, in_class)


def _files():
    for package in PACKAGES:
        yield from sorted((ROOT / package).rglob("*.py"))


@functools.cache
def public_functions():
    """``[(file:line, name, missing)]`` for every public function of :data:`PACKAGES` (parsed once)."""
    out = []
    for path in _files():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node, name, missing in _walk(tree.body, "", False):
            out.append((f"{path.relative_to(ROOT)}:{node.lineno}", name, missing))
    return tuple(out)


def test_the_packages_exist_and_have_public_functions():
    assert all((ROOT / package).is_dir() for package in PACKAGES)
    assert len(public_functions()) > 100


def test_every_public_function_has_type_hints():
    gaps = [f"{where} {name}: {', '.join(missing)}" for where, name, missing in public_functions() if missing]
    assert not gaps, f"{len(gaps)} public functions lack annotations:\n" + "\n".join(gaps)


def test_the_check_finds_a_missing_hint():
    tree = ast.parse(
        "def f(a: int, *, b) -> int: ...\n"
        "class C:\n"
        "    def __init__(self, x: int): ...\n"
        "    @staticmethod\n"
        "    def s(y: int) -> int: ...\n"
        "    def _private(self, z): ...\n"
        "def _helper(q): ...\n"
    )
    found = {name: missing for _, name, missing in _walk(tree.body, "", False)}
    assert found == {"f": ["b"], "C.__init__": ["return"], "C.s": []}


def test_the_measures_hints_resolve_and_their_reads_are_unchanged():
    # The registry reads a measure's parameter names; the hints must not change them, and
    # typing.get_type_hints must resolve them (no name imported for the type checker only).
    import inspect
    import typing

    from puf.metadata import signature_reads
    from puf.registry import MEASURES

    for m in MEASURES.values():
        function = inspect.unwrap(m.function)
        while hasattr(function, "func"):  # functools.partial: the options bound to a built-in
            function = function.func
        hints = typing.get_type_hints(function)
        assert set(m.reads) <= set(hints) and "return" in hints, m.name
        assert signature_reads(m.function) == m.reads, m.name
