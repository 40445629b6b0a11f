"""The report's "Designed measures" section: ``puf design`` run inside ``puf report --design``.

:func:`design_section` searches the grammar (:func:`puf.properties.proving.design.design`)
for the forms that meet the required properties, at the report's example budget
and seed, writes the result as ``design.json`` (the document of ``puf design
--json``) and returns the section: the accepted candidates ranked by how much
of their decision is proven, each with its catalog row, then every rejected
candidate's first failing cell with its counterexample.
"""

from __future__ import annotations

__all__ = ["design_section"]

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from puf.properties.running.budget import DEFAULT_TIME_LIMIT

from .render import Section


def design_section(
    out: Path,
    *,
    require: Sequence[str],
    forbid: Sequence[str] = (),
    grammar: dict[str, Any] | None = None,
    grammar_name: str = "the default grid",
    max_examples: int | None = None,
    random_state: int = 0,
    proofs: str = "smt",
    n_jobs: int = 1,
    progress: bool = False,
    time_limit: float = DEFAULT_TIME_LIMIT,
) -> Section:
    """Run the designer and return its report section; ``design.json`` is written into ``out``.

    Parameters
    ----------
    out : pathlib.Path
        The report's folder.
    require, forbid : sequence of str
        Catalog properties that must hold / must be violated (as ``puf design``).
    grammar : dict, optional
        Default :data:`puf.grammar.DEFAULT_GRAMMAR`.
    grammar_name : str
        How the text names the grammar (e.g. its file).
    max_examples, random_state, proofs, n_jobs, progress, time_limit
        As for :func:`puf.properties.proving.design.design`.

    Returns
    -------
    puf.reports.render.Section

    Examples
    --------
    >>> import pathlib, tempfile
    >>> out = pathlib.Path(tempfile.mkdtemp())
    >>> s = design_section(out, require=["scale-invariance"], grammar={"index": {"cv": [None]}},
    ...                    grammar_name="one form", proofs="rules", max_examples=5)
    >>> s.title, s.table["form"].tolist(), (out / "design.json").exists()
    ('Designed measures', ['`cv`'], True)
    """
    from puf.properties.proving.design import design
    from puf.properties.proving.design_display import design_document, design_frames, design_summary

    require, forbid = list(require), list(forbid)
    accepted, rejected = design(
        require,
        forbid,
        grammar=grammar,
        proofs=proofs,
        max_examples=max_examples,
        random_state=random_state,
        n_jobs=n_jobs,
        progress=progress,
        time_limit=time_limit,
    )
    note = (
        f"The grammar of measures (`puf.grammar`, {grammar_name}) searched as by `puf design`: each "
        f"candidate's cells decided in order, the required properties first, by proof where one settles "
        f"the cell (proofs {proofs}) and by the search otherwise (up to {max_examples} examples, "
        f"random_state={random_state}); a candidate stops at its first failing cell."
    )
    (out / "design.json").write_text(
        json.dumps(
            design_document(accepted, rejected, require=require, forbid=forbid, note=note),
            indent=1,
            ensure_ascii=False,
        )
        + "\n",
        encoding="utf-8",
    )
    kept, refused = design_frames(accepted, rejected)
    return Section(
        "design",
        "Designed measures",
        note + " " + design_summary(accepted, rejected, require=require, forbid=forbid),
        table=kept,
        table_note="The candidates that meet them, most proven cells first, each with its row of the catalog."
        if len(kept)
        else "No candidate meets them.",
        more_tables=[("Rejected candidates: the first failing cell and its counterexample.", refused)]
        if len(refused)
        else [],
        files=["design.json"],
    )
