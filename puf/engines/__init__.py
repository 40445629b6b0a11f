"""Scale engines: pairwise measures at MovieLens-20M size without an m x m matrix.

Exact engines stream over tiles of user pairs (Jaccard, UF), collapse the pair sum
to one pass over the non-zeros (cosine), or estimate from uniformly sampled
pairs with a confidence interval (PUF, UF); ME/MME/PEU stream over blocks of users. Every
engine runs its blocks on local threads or, with ``engine="dask"``, on a
dask.distributed cluster.
"""

__all__ = [
    "puf_from_histories",
    "PairEstimate",
    "cosine_puf",
    "inner_product_puf",
    "jaccard_puf",
    "sample_puf",
    "envy_measures",
    "uf_streaming",
    "uf_streaming_runs",
    "sample_uf",
]

from .cosine import cosine_puf, inner_product_puf
from .envy import envy_measures
from .jaccard import jaccard_puf
from .pairwise import puf_from_histories
from .sampling import PairEstimate, sample_puf
from .uf import uf_streaming, uf_streaming_runs
from .uf_sampling import sample_uf
