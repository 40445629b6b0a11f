"""Evaluate ranked lists on a real dataset: effectiveness, every fairness measure, agreement.

:func:`evaluate_runs` gives one row per ranker with P@k, NDCG@k and the
fairness measures of the PUF paper's study; :func:`measure_agreement` gives
Kendall's tau between every pair of those columns over the rankers (the
paper's Figure 1). :func:`read_run` reads a researcher's own run file and
:func:`run_rankers` produces runs with the built-in baselines.
"""

__all__ = [
    "MEASURE_COLUMNS",
    "evaluate_runs",
    "measure_agreement",
    "per_user_effectiveness",
    "read_run",
    "run_rankers",
]

from .agreement import measure_agreement
from .runs import read_run, run_rankers
from .scores import MEASURE_COLUMNS, evaluate_runs, per_user_effectiveness
