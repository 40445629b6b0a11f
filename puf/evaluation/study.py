"""The settings of a study: what every variant is scored with, on every world, and where the engines run."""

from __future__ import annotations

__all__ = ["Study", "study_gamma"]

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    from ..engines.blocks import Scheduler
    from ..variant import Variant


@dataclass(frozen=True, eq=False)
class Study:
    """The settings one study scores its variants with (:func:`puf.evaluation.roads.score_worlds`).

    Attributes
    ----------
    k : int, optional
        Cut-off; default the lists' length.
    gamma : float in [0, 1], optional
        The study's γ for every variant whose similarity takes one (:func:`study_gamma`).
    sample : int, optional
        Estimate every pair measure (and UF) from this many drawn pairs, with a 95% interval.
    random_state : None, int or numpy.random.Generator, default 0
        Seed of the drawn pairs (``sample`` only).
    max_pairs : int, optional
        Skip the exact roads over all user pairs beyond this many pairs
        (:func:`puf.evaluation.planner.plan_roads`).
    overrides : dict of (str, float) to numpy.ndarray
        (similarity name, γ) -> an (m, m) matrix read instead of the worlds' own (e.g.
        reshaped to a skewness): every road reading that similarity reads the matrix.
    engine : {"local", "dask"}, default "local"
        Where the engines run their blocks: threads here, or tasks on a dask.distributed
        cluster; the values are the same.
    scheduler : str or distributed.Client, optional
        With ``engine="dask"``: the scheduler's address or a client (default the running one).
    n_jobs : int, optional
        Threads of the local engine (default every usable core).
    progress : bool, default False
        A progress bar over each engine pass.
    raised : {"stop", "undefined"}, default "stop"
        A measure that raises on a world stops the study with a ValueError naming it,
        the world and the error; with "undefined" its value there is NaN and the error is
        kept (:attr:`puf.evaluation.roads.WorldScores.raised`), so a measure that raises
        at a corner of a sweep leaves a gap, not a stopped report.

    Examples
    --------
    >>> Study(k=10, sample=1000).options
    {'n_jobs': None, 'engine': 'local', 'scheduler': None, 'progress': False}
    """

    k: int | None = None
    gamma: float | None = None
    sample: int | None = None
    random_state: int | np.random.Generator | None = 0
    max_pairs: int | None = None
    overrides: Mapping[tuple[str, float | None], NDArray[np.float64]] = field(default_factory=dict)
    engine: str = "local"
    scheduler: Scheduler = None
    n_jobs: int | None = None
    progress: bool = False
    raised: str = "stop"

    @property
    def options(self) -> dict[str, Any]:
        """The engines' keywords saying where and how their blocks run."""
        return {"n_jobs": self.n_jobs, "engine": self.engine, "scheduler": self.scheduler, "progress": self.progress}


def study_gamma(variant: Variant, gamma: float | None, similarity: str) -> float | None:
    """The γ a variant reads ``similarity`` with: the study's, else its own, else the declared one.

    None for a similarity that takes no γ.

    Examples
    --------
    >>> import puf
    >>> study_gamma(puf.variants("UF")[0], None, "uf"), study_gamma(puf.variants("PUF-P")[0], 0.3, "uf")
    (0.5, 0.3)
    """
    from ..registry import declared_gamma

    declared = declared_gamma(similarity)
    if declared is None:
        return None
    own = gamma if gamma is not None else variant.gamma
    return declared if own is None else own
