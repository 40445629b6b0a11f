"""The guides take the counts they quote from the registry, never as digits that drift."""

import re
import runpy
from pathlib import Path

from puf import properties

DOCS = Path(__file__).resolve().parent.parent / "docs"


def test_the_site_substitutes_the_registry_counts():
    conf = runpy.run_path(str(DOCS / "conf.py"))
    assert conf["myst_substitutions"] == {"n_properties": str(len(properties.CATALOG))}


def test_no_guide_writes_a_count_of_properties_in_digits():
    pages = [DOCS / "getting-started.md", *sorted((DOCS / "guide").glob("*.md"))]
    quoted = [
        f"{page.name}: {match.group(0)}"
        for page in pages
        for match in re.finditer(r"\b\d+ properties\b|collected \d+ items", page.read_text(encoding="utf-8"))
    ]
    assert quoted == []
    assert "{{ n_properties }}" in (DOCS / "guide" / "own-measure.md").read_text(encoding="utf-8")
