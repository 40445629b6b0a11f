"""The known files: their format, and that every stored example backs its verdict on its own."""

import json
import re

import numpy as np
import pytest

from puf.properties import CATALOG, get_property, verdicts
from puf.properties.knowledge.known import (
    check_known,
    example_case,
    known_examples,
    known_measures,
    known_path,
    load_known,
    write_known,
)
from puf.properties.knowledge.known.derived import COVERAGE, derived_reason
from puf.properties.knowledge.pinned import cell_reason
from puf.properties.knowledge.known.updates import known_from_verdicts
from puf.cli import main

BACKED = [
    (name, prop)
    for name in known_measures()
    for prop, status in load_known(name)["verdicts"].items()
    if prop in load_known(name)["examples"]
]


@pytest.mark.parametrize("name", known_measures())
def test_every_known_file_is_well_formed_and_explains_every_cell(name):
    data = load_known(name)
    check_known(data, catalog=CATALOG)
    assert data["measure"] == name
    for prop, status in data["verdicts"].items():
        # stored, derived from what it reads, or the proof's
        assert cell_reason(data, prop, catalog=CATALOG), (name, prop)
        backed = (status in ("violated", "not-found", "undefined") and CATALOG[prop].kind == "universal") or (
            status == "holds" and CATALOG[prop].kind == "existential"
        )
        assert (prop in data["examples"]) == backed, (name, prop, status)


@pytest.mark.parametrize("name, prop", BACKED)
def test_each_stored_example_is_found_with_one_example(name, prop):
    """max_examples=1: the verdict comes from the stored example, not from the search."""
    (verdict,) = verdicts(name, properties=[prop], max_examples=1, random_state=0)
    assert verdict.status == load_known(name)["verdicts"][prop], verdict.reason
    assert verdict.example["change"].startswith(f"known example ({name})"), verdict.example["change"]


def test_a_users_measure_gets_every_files_examples():
    def spread(effectiveness):
        return float(np.std(effectiveness))  # SD under another name: no file of its own

    found = {
        v.property: v
        for v in verdicts(spread, properties=["similarity-zero", "rearrangement"], max_examples=1, random_state=0)
    }
    assert {p: v.status for p, v in found.items()} == {"similarity-zero": "violated", "rearrangement": "violated"}
    assert all(v.example["change"].startswith("known example") for v in found.values())


def test_known_examples_put_the_named_measure_first():
    names = [name for name, _ in known_examples("similarity-zero", first="sd")]
    assert names[0] == "sd" and len(names) == len(set(names)) > 1


def test_a_replicated_example_has_no_delta_and_a_perturbed_one_has_its_max_norm():
    replicated = example_case("replication-invariance", load_known("puf")["examples"]["replication-invariance"])
    assert replicated.after.m > replicated.before.m
    perturbed = example_case("lipschitz-continuity", load_known("gini")["examples"]["lipschitz-continuity"])
    assert perturbed.delta == pytest.approx(0.001)


def test_check_known_names_the_problem():
    data = load_known("sd")
    data["verdicts"]["range"] = "fine"
    with pytest.raises(ValueError, match="verdict of 'range' must be one of"):
        check_known(data)
    data = load_known("sd")
    del data["examples"]["similarity-zero"]["before"]["similarity"]
    with pytest.raises(ValueError, match=r"needs 'before' with the fields it acts on \(similarity\)"):
        check_known(data, catalog=CATALOG)


def test_known_from_verdicts_round_trips_through_write_known(tmp_path):
    data = known_from_verdicts("sd", verdicts("sd", properties=None, max_examples=2))
    write_known(data, tmp_path / "sd.json")
    assert json.loads((tmp_path / "sd.json").read_text(encoding="utf-8"))["verdicts"] == data["verdicts"]
    assert known_path("sd").is_file()


def test_puf_check_known_writes_a_file(tmp_path, capsys):
    path = tmp_path / "mine.json"
    assert main(["check", "sd", "--known", str(path), "--max-examples", "2", "--quiet"]) == 0
    check_known(json.loads(path.read_text(encoding="utf-8")), catalog=CATALOG)
    assert main(["check", "--all", "--known", str(path)]) == 2


CITED = [(name, prop) for name in known_measures() for prop in load_known(name).get("literature", {})]


def test_the_literature_settles_cells_of_the_classic_indices():
    assert {"gini", "ge-0", "ge-1", "ge-2", "variance", "hoover", "max-min"} <= {n for n, _ in CITED}


@pytest.mark.parametrize("name, prop", CITED)
def test_every_pinned_verdict_agrees_with_its_literature_citation(name, prop):
    data = load_known(name)
    cite = data["literature"][prop]
    assert cite["verdict"] == data["verdicts"][prop] or cite.get("differs", "").strip(), (
        f"{name} / {prop}: pinned {data['verdicts'][prop]}, {cite['source']} says {cite['says']}"
    )


def test_a_literature_citation_needs_a_source_and_a_known_verdict():
    data = load_known("gini")
    data["literature"]["range"] = {"source": "x", "says": "y", "verdict": "fine"}
    with pytest.raises(ValueError, match="literature verdict of 'range' must be one of"):
        check_known(data)


def test_update_known_writes_a_propertys_cells_and_keeps_the_rest(tmp_path, monkeypatch):
    from puf.properties.knowledge.known import updates

    old = load_known("sd")
    partial = json.loads(json.dumps(old))
    del partial["verdicts"]["similarity-zero"]
    del partial["examples"]["similarity-zero"]
    path = tmp_path / "sd.json"
    write_known(partial, path, partial=True)
    monkeypatch.setattr(updates, "known_path", lambda name: tmp_path / f"{name}.json")
    found = verdicts(
        "sd", properties=["similarity-zero", "lipschitz-continuity", "range"], max_examples=5, random_state=0
    )
    assert updates.update_known(found) == [path]
    new = json.loads(path.read_text(encoding="utf-8"))
    assert list(new["verdicts"]) == list(CATALOG)
    assert new["verdicts"]["similarity-zero"] == "violated" and "similarity-zero" in new["examples"]
    assert "similarity-zero" not in new["reasons"]  # derived from what SD reads, not stored
    assert new["reasons"] == old["reasons"]  # kept, and no coverage of this run added
    assert new["examples"] == {**old["examples"], "similarity-zero": new["examples"]["similarity-zero"]}
    assert new["literature"] == old["literature"]


def _without_column(tmp_path, prop):
    """Temporary copies of every known file with ``prop``'s column removed."""
    for name in known_measures():
        data = load_known(name)
        for key in ("verdicts", "reasons", "examples", "proofs", "literature"):
            data.get(key, {}).pop(prop, None)
        write_known(data, tmp_path / f"{name}.json", partial=True)


def test_update_known_writes_a_new_column_with_verdicts_examples_and_no_derivable_or_coverage_reason(
    tmp_path, monkeypatch
):
    from puf.properties.knowledge.known import updates

    prop = "similarity-monotone"
    _without_column(tmp_path, prop)
    monkeypatch.setattr(updates, "known_path", lambda name: tmp_path / f"{name}.json")
    found = [v for name in ("sd", "uf", "inconsistency") for v in verdicts(name, properties=[prop], max_examples=5)]
    assert len(updates.update_known(found)) == 3
    for v in found:
        data = json.loads((tmp_path / f"{v.measure}.json").read_text(encoding="utf-8"))
        assert data["verdicts"][prop] == load_known(v.measure)["verdicts"][prop]
        reason = data["reasons"].get(prop, "")
        assert not any(phrase in reason for phrase in COVERAGE), (v.measure, reason)
        assert reason != derived_reason(v.measure, get_property(prop), data["verdicts"][prop])
        assert (prop in data["examples"]) == (data["verdicts"][prop] == "violated")
    sd = json.loads((tmp_path / "sd.json").read_text(encoding="utf-8"))
    assert prop not in sd["reasons"] and cell_reason(sd, prop, catalog=CATALOG).startswith(
        "the measure reads no similarity"
    )
    assert json.loads((tmp_path / "uf.json").read_text(encoding="utf-8"))["reasons"][prop]  # to review


def test_update_known_writes_a_column_of_a_property_new_to_the_catalog(tmp_path, monkeypatch):
    """A catalog with one more property (the same check under another name): its column is
    written into every file given, with no reason where it is derived or only coverage."""
    import dataclasses

    from puf.properties.catalog import listing as catalog
    from puf.properties.knowledge.known import updates

    extra = dataclasses.replace(CATALOG["similarity-sensitive"], name="similarity-sensitive-again")
    monkeypatch.setitem(catalog.CATALOG, extra.name, extra)
    _without_column(tmp_path, extra.name)
    monkeypatch.setattr(updates, "known_path", lambda name: tmp_path / f"{name}.json")
    found = [v for name in ("sd", "puf") for v in verdicts(name, properties=[extra], max_examples=5)]
    assert [v.property for v in found] == [extra.name] * 2
    updates.update_known(found)
    sd = json.loads((tmp_path / "sd.json").read_text(encoding="utf-8"))
    puf = json.loads((tmp_path / "puf.json").read_text(encoding="utf-8"))
    assert list(sd["verdicts"])[-1] == extra.name and sd["verdicts"][extra.name] == "violated"
    assert extra.name not in sd["reasons"]  # SD reads no similarity: derived
    assert puf["verdicts"][extra.name] == "holds" and extra.name in puf["examples"]  # the witness


COVERED = [(name, prop) for name in known_measures() for prop in load_known(name)["reasons"]]


@pytest.mark.parametrize("name, prop", COVERED)
def test_no_known_file_stores_coverage_or_a_derivable_reason(name, prop):
    data = load_known(name)
    reason = data["reasons"][prop]
    fix = "python -m puf.properties.knowledge.known.updates --normalise"
    found = [phrase for phrase in COVERAGE if phrase in reason]
    assert not found, (
        f"properties/knowledge/known/{name}.json, {prop}: the reason holds search coverage ({found[0]!r}): "
        f"that is the run's output, not knowledge; run `{fix}`"
    )
    assert reason != derived_reason(name, get_property(prop), data["verdicts"][prop]), (
        f"properties/knowledge/known/{name}.json, {prop}: the reason is the one derived from what the measure reads; run `{fix}`"
    )


def test_no_stored_reason_points_at_an_example_shown_beside_it():
    """A reason is shown where its example is (``puf check``) and where it is not (a report's
    built-in cells, the hover of its matrix): "counterexample below" is true in one of them only."""
    pointing = [
        f"{name}.json {prop}"
        for name in known_measures()
        for prop, reason in load_known(name)["reasons"].items()
        if re.search(r"(counterexample|witness) (below|above)|\((below|above):", reason)
    ]
    assert pointing == []


@pytest.mark.parametrize("name", known_measures())
def test_a_known_file_stays_small(name):
    """Stored examples are shrunk: a built-in's file under 100 KB (today's largest is under 20 KB)."""
    size = known_path(name).stat().st_size
    assert size < 100_000, f"properties/knowledge/known/{name}.json is {size:,} bytes: shrink its stored examples"


def test_the_normaliser_fixes_a_column_written_with_coverage_and_derived_reasons(tmp_path, monkeypatch):
    from puf.properties.knowledge.known import updates

    data = load_known("sd")
    data["reasons"]["similarity-sensitive"] = derived_reason("sd", get_property("similarity-sensitive"), "violated")
    data["reasons"]["continuity"] = "no counterexample in 60 examples (m = 2–6; largest m = 6)"
    data["reasons"]["deterministic"] += (
        "; the search found no counterexample in 9 examples up to m = 4 (budget 5, seed 0)"
    )
    data["reasons"] = {p: data["reasons"][p] for p in CATALOG if p in data["reasons"]}
    write_known(data, tmp_path / "sd.json")
    monkeypatch.setattr(updates, "known_path", lambda name: tmp_path / f"{name}.json")
    assert updates.normalise_files(["sd"]) == [tmp_path / "sd.json"]
    fixed = json.loads((tmp_path / "sd.json").read_text(encoding="utf-8"))
    assert fixed["reasons"] == {p: r for p, r in load_known("sd")["reasons"].items() if p != "continuity"}
    assert updates.normalise_files(["sd"]) == []  # once is enough


def test_puf_check_update_known_wants_all(capsys):
    assert main(["check", "sd", "--update-known"]) == 2
    assert "--update-known" in capsys.readouterr().err
