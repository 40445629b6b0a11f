"""The README is a short front page whose verdict matrix is the generated one, and its links resolve.

The site's own tables are generated when it builds (``docs/_ext/registry_tables.py``); the README
keeps a copy of the verdict matrix, rewritten by ``python docs/_ext/registry_tables.py --readme``.
"""

import importlib.util
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
README = ROOT / "README.md"


def _tables():
    spec = importlib.util.spec_from_file_location("registry_tables", ROOT / "docs/_ext/registry_tables.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_readme_matrix_is_current():
    tables = _tables()
    text = README.read_text(encoding="utf-8")
    assert tables.readme_matrix() in text, (
        "the README's verdict matrix is stale: run python docs/_ext/registry_tables.py --readme"
    )


def test_readme_is_a_front_page():
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 200


def test_readme_links_resolve():
    text = README.read_text(encoding="utf-8")
    links = [target for target in re.findall(r"\]\(([^)#\s]+)[^)]*\)", text) if "://" not in target]
    assert links
    missing = [target for target in links if not (ROOT / target).exists()]
    assert not missing, missing


def test_matrix_has_every_measure_and_property():
    from puf import MEASURES
    from puf.properties import CATALOG

    matrix = _tables().verdict_matrix()
    rows = [line for line in matrix.splitlines() if line.startswith("| ") and "`" in line]
    assert [re.search(r"`([^`]+)`", row).group(1) for row in rows] == list(MEASURES)
    assert all(row.count("|") == len(CATALOG) + 3 for row in rows)
    assert all(name in matrix for name in CATALOG)


def test_power_table_states_machine_date_and_command():
    table = _tables().power_table()
    assert "machine: " in table and "date: " in table and "command: " in table


def test_readme_python_runs(capsys):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)
    assert blocks
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {})
    assert "puf" in capsys.readouterr().out


def test_ci_runs_the_readme_test_command():
    """``.ci/run`` installs more extras, then runs the README's pytest invocation as written."""
    text = README.read_text(encoding="utf-8")
    command = re.search(r"# install and run the tests\n(.+)\n", text).group(1)
    invocation = command.split("&&")[1].strip()
    assert invocation.startswith("python -m pytest"), command
    run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert re.search(rf'pip install -e "\.\[test[a-z,]*\]"[^\n]*\n(.*\n)*{re.escape(invocation)}\n', run), invocation


def test_the_proofs_guide_states_every_composition_rule_from_its_docstring(monkeypatch):
    from puf.properties.catalog import listing
    from puf.properties.proving.proof_rules import ProofRule

    tables = _tables()
    items = tables.proof_rules().split("\n- ")
    assert len(items) == len(listing.PROOF_RULES)
    for (name, rule), item in zip(listing.PROOF_RULES.items(), items):
        assert item.lstrip("- ").startswith(f"**{rule.name} → `{name}`.** ") and len(item) > 80
    assert "../_generated/proof-rules.md" in (ROOT / "docs/guide/proofs.md").read_text(encoding="utf-8")

    def unargued(measure, form):
        return None

    monkeypatch.setitem(listing.PROOF_RULES, "range", ProofRule("no argument", unargued))
    with pytest.raises(ValueError, match="the proof rule of 'range' states no argument"):
        tables.proof_rules()
