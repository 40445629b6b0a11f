"""Evaluate ranked lists on a real dataset: effectiveness, every fairness measure, agreement.

:func:`evaluate_runs` gives one row per ranker with P@k, NDCG@k and every
registered fairness measure (on P@k and NDCG@k where it reads effectiveness); :func:`measure_agreement` gives
Kendall's tau between every pair of those columns over the rankers (the
paper's Figure 1). :func:`evaluate_lists` scores lists made outside the harness (TREC, CSV, TSV, Parquet
files or a DataFrame) read by :func:`read_lists`, which skips and counts what the split
cannot judge; :func:`write_split` writes the split they are judged on, to train a model
elsewhere; :func:`run_rankers` produces runs with the built-in baselines.
:func:`score_variants` scores variants on any :class:`puf.World` through
:meth:`puf.World.population`: ``puf evaluate`` and the report's sweeps both use it;
:func:`variant_scores` gives each variant's road and the sampled estimates too.
"""

__all__ = [
    "MEASURE_COLUMNS",
    "measure_columns",
    "ListsEvaluation",
    "RunLists",
    "evaluate_lists",
    "evaluate_runs",
    "raised_runs",
    "measure_agreement",
    "per_user_effectiveness",
    "read_lists",
    "read_run",
    "run_rankers",
    "Study",
    "score_variants",
    "study_similarity",
    "variant_scores",
    "write_pair_limits",
    "write_split",
]

from .agreement import measure_agreement
from .planner import study_similarity
from .roads import score_variants, variant_scores
from .lists import ListsEvaluation, RunLists, evaluate_lists, read_lists, read_run
from .runs import run_rankers
from .split_files import write_split
from .study import Study
from .scores import evaluate_runs, measure_columns, per_user_effectiveness, raised_runs, write_pair_limits


def __getattr__(name):
    # The registry's current columns, read on each access (see scores.measure_columns).
    if name == "MEASURE_COLUMNS":
        return measure_columns()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
