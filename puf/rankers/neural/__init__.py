"""The PUF paper's neural rankers in torch, CPU only: MultVAE, NGCF and NCL.

Install with ``pip install torch==2.13.0`` (a CPU build) and
``pip install "puf-harness[neural]"``. Each trains on the training split
until NDCG@10 on the validation split stops improving (see
:class:`TorchRanker`), with one torch thread and a seeded private RNG, so the
same ``random_state`` gives identical lists on CPU.
"""

__all__ = ["MultVAE", "NCL", "NGCF", "TorchRanker", "torch_available"]

from ._training import TorchRanker, torch_available
from .graph import NCL, NGCF
from .multvae import MultVAE
