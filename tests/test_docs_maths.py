"""The API pages render absolute values as absolute values, in maths and in text.

The site's docstring hook escapes ``|`` outside literals (reST would read ``|x|`` as a
substitution); inside maths the escape would make LaTeX draw ``\\|``, a double bar ‖. The
page of ``puf.puf`` is built here with the site's own extensions and read back as HTML.
"""

import html
import re
import sys
import textwrap
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"


def _escape(lines):
    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        from api_pages import _escape_bars
    finally:
        sys.path.remove(str(DOCS / "_ext"))
    lines = list(lines)
    _escape_bars(None, "function", "f", None, {}, lines)
    return lines


def test_bars_are_escaped_in_text_and_left_alone_in_maths():
    lines = _escape(
        [
            "the gap |S(u) − S(v)| and ``a|b`` and :math:`|x|`",
            "",
            ".. math:: \\sum |S(u)-S(v)|",
            "",
            ".. math::",
            "",
            "   |a - b|",
            "",
            "after |x|",
        ]
    )
    assert lines[0] == "the gap \\|S(u) − S(v)\\| and ``a|b`` and :math:`|x|`"
    assert lines[2] == ".. math:: \\sum |S(u)-S(v)|" and lines[6] == "   |a - b|"
    assert lines[8] == "after \\|x\\|"


@pytest.fixture(scope="module")
def puf_page(tmp_path_factory):
    """The API page of puf.puf, built by Sphinx with the site's docstring hooks."""
    sphinx = pytest.importorskip("sphinx.cmd.build")
    pytest.importorskip("numpydoc")
    source = tmp_path_factory.mktemp("src")
    (source / "conf.py").write_text(
        textwrap.dedent(
            f"""
            import sys
            sys.path.insert(0, {str(DOCS / "_ext")!r})
            from api_pages import _constant_docs, _escape_bars
            extensions = ["sphinx.ext.autodoc", "sphinx.ext.mathjax", "numpydoc"]
            numpydoc_show_class_members = False
            numpydoc_xref_param_type = False

            def setup(app):
                app.connect("autodoc-process-docstring", _constant_docs, priority=400)
                app.connect("autodoc-process-docstring", _escape_bars)
            """
        )
    )
    (source / "index.rst").write_text("puf.puf\n=======\n\n.. autofunction:: puf.puf\n")
    out = tmp_path_factory.mktemp("html")
    assert sphinx.main(["-b", "html", "-q", "-W", str(source), str(out)]) == 0
    return (out / "index.html").read_text(encoding="utf-8")


def test_the_puf_api_page_shows_absolute_values(puf_page):
    maths = [html.unescape(m) for m in re.findall(r'<div class="math[^"]*">(.*?)</div>', puf_page, re.S)]
    assert any("|S(u)-S(v)|" in m for m in maths), maths
    assert not any("\\|" in m for m in maths)  # LaTeX's double bar ‖
