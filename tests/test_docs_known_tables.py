"""The properties guide's generated parts: the literature table, each violation's reason and every
property as the catalog states it (``docs/_ext/registry_tables.py``), included in the guide."""

import importlib.util
import pathlib

from puf import MEASURES
from puf.properties import CATALOG
from puf.properties.catalog.property import FORMAL_CONVENTIONS
from puf.properties.knowledge.known import known_measures, load_known
from puf.properties.knowledge.pinned import cell_reason

ROOT = pathlib.Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "guide" / "properties.md"


def _tables():
    spec = importlib.util.spec_from_file_location("registry_tables", ROOT / "docs/_ext/registry_tables.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_literature_table_has_every_cited_cell_with_its_agreement():
    text = _tables().literature_table()
    cited = [(name, prop) for name in MEASURES for prop in CATALOG if prop in load_known(name).get("literature", {})]
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    assert len(rows) == len(cited) > 0 and f"{len(cited)} cells settled by the literature" in text
    for (name, prop), row in zip(cited, rows):
        cite, pinned = load_known(name)["literature"][prop], load_known(name)["verdicts"][prop]
        assert row.startswith(f"| `{name}` | `{prop}` |") and f"| {pinned} |" in row
        assert row.endswith("| agrees |") == (cite["verdict"] == pinned), row
    differs = [row for row in rows if "| differs: " in row]
    assert len(differs) == sum("differs" in load_known(name)["literature"][prop] for name, prop in cited)
    assert all(len(row.split("| differs: ")[1].strip(" |")) > 10 for row in differs)  # says why


def test_each_violation_shows_its_stored_or_derived_reason():
    text = _tables().violation_reasons()
    sd = load_known("sd")
    assert "similarity-zero" not in sd["reasons"]  # derived, not stored
    assert f"  - *similarity-zero* — {cell_reason(sd, 'similarity-zero', catalog=CATALOG)}" in text
    assert f"  - *lipschitz-continuity* — {load_known('gini')['reasons']['lipschitz-continuity']}" in text
    assert text.count("\n  - *") == sum(
        list(load_known(n)["verdicts"].values()).count("violated") for n in known_measures()
    )


def test_every_property_is_detailed_as_the_catalog_states_it():
    text = _tables().property_details()
    for name, prop in CATALOG.items():
        assert f"# `{name}`\n" in text and f"- **Formal statement**: {prop.formal}\n" in text
        assert f"- **Source**: {prop.source}\n" in text
    assert _tables().formal_conventions().strip() == FORMAL_CONVENTIONS


def test_the_guide_includes_the_generated_parts_and_writes_them_when_the_site_builds(tmp_path):
    guide = GUIDE.read_text(encoding="utf-8")
    for name in ("conventions", "properties", "verdicts", "violations", "literature", "property-details"):
        assert f"```{{include}} ../_generated/{name}.md\n" in guide, name
    assert "- **Formal statement**:" not in guide  # no hand copy of a catalog fact
    _tables().write_all(tmp_path)
    assert (tmp_path / "literature.md").read_text(encoding="utf-8") == _tables().literature_table()
