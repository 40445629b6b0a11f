"""Shared training loop of the torch rankers: seeded, one thread, early stopping on NDCG@10.

Every torch ranker trains epoch by epoch, scores the validation split after
each epoch (top-10 of the unseen items, NDCG@10 over the users who have a
validation item), keeps the parameters of the best epoch and stops when
``patience`` epochs in a row bring no improvement (RecBole's ``stopping_step``
of 10, its ``valid_metric: NDCG@10``); ``max_epochs`` (RecBole's ``epochs``
of 300) is a safety cap that the fitted attribute ``stopped_early_`` reports.

The patience clock starts only once the training loss has fallen 1 % below
its first epoch's value: a model still on its initial plateau has not started
to learn, and stopping it there keeps a near-random model. NCL with its
paper's settings sits on such a plateau for ~35 epochs on ML-100K (its
contrastive terms dominate the tiny Xavier-initialised embeddings) and then
learns; MultVAE and NGCF leave it in the first epoch, so the rule never
changes their stopping point.
"""

from __future__ import annotations

__all__ = ["TorchRanker", "torch_available"]

import contextlib
import copy
import importlib.util
import json
import os
import pathlib
import time
from types import ModuleType
from typing import Self

import numpy as np
import scipy.sparse as sp

from ...arrays import MatrixLike
from ...validation import check_histories, check_k
from ...effectiveness import ndcg_at_k
from .._base import Ranker
from .checkpoint import load_checkpoint, save_checkpoint, training_fingerprint

VALID_K = 10
"""Cut-off of the early-stopping metric (NDCG@10, the PUF paper's cut-off)."""

LEARNING_STARTED = 0.01
"""Relative fall of the training loss below its first value that starts the patience clock."""


def torch_available() -> bool:
    """Whether the optional ``torch`` library can be imported.

    Examples
    --------
    >>> isinstance(torch_available(), bool)
    True
    """
    return importlib.util.find_spec("torch") is not None


def import_torch(ranker: str) -> ModuleType:
    """Return the ``torch`` module, or raise an ImportError that says how to install it."""
    try:
        import torch
    except ImportError as exc:
        raise ImportError(
            f"the {ranker} ranker needs the optional 'torch' library: "
            "pip install torch==2.13.0  (a CPU build), then pip install 'puf-harness[neural]'"
        ) from exc
    return torch


@contextlib.contextmanager
def _one_thread_seeded(torch, seed):
    """One torch thread and a private, seeded global RNG; both restored afterwards.

    One thread was as fast as two on an idle 2-core machine and 30x faster when
    another process shared the CPU; it also makes the float sums reproducible.
    """
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            yield
    finally:
        torch.set_num_threads(threads)


def hold_out(
    train: sp.csr_matrix, rng: np.random.Generator, *, share: float = 0.1, min_items: int = 3
) -> tuple[sp.csr_matrix, sp.csr_matrix]:
    """Hold out ``share`` (at least one) of the interactions of each user with ``min_items`` or more.

    Used for early stopping when ``fit`` gets no validation split. Returns
    ``(kept, held)``, two CSR matrices of ``train``'s shape that sum to it.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> kept, held = hold_out(sp.csr_matrix(np.ones((3, 20))), np.random.default_rng(0))
    >>> np.diff(held.indptr).tolist(), int(kept.nnz)
    ([2, 2, 2], 54)
    """
    train = sp.csr_matrix(train)
    counts = np.diff(train.indptr)
    wanted = np.where(counts >= min_items, np.maximum(1, np.round(share * counts)), 0)
    # Rank each user's interactions by a random key; the lowest `wanted` ranks are held out.
    keys = rng.random(train.nnz)
    rows = np.repeat(np.arange(train.shape[0]), counts)
    order = np.lexsort((keys, rows))
    rank = np.empty(train.nnz, dtype=np.int64)
    rank[order] = np.arange(train.nnz) - np.repeat(train.indptr[:-1], counts)
    held = rank < wanted[rows]
    coo = train.tocoo()  # same entry order as CSR's data
    shape = train.shape
    kept = sp.csr_matrix((coo.data[~held], (coo.row[~held], coo.col[~held])), shape=shape)
    out = sp.csr_matrix((coo.data[held], (coo.row[held], coo.col[held])), shape=shape)
    return kept, out


class TorchRanker(Ranker):
    """Base of the torch rankers: ``fit(train, valid=...)`` trains to early stopping.

    Subclasses implement ``_build(torch, train)`` (returns the module),
    ``_train_epoch(torch, model, epoch)`` (returns the mean loss) and
    ``_all_scores(torch, model, final)`` (returns a callable users -> float32 score tensor, in
    eval mode; ``final`` is False while validating, True for the lists).

    Fitted attributes: ``epochs_`` (epochs run), ``best_epoch_``, ``best_valid_ndcg_``,
    ``stopped_early_``, ``history_`` (one ``(epoch, loss, valid_ndcg)`` per epoch),
    ``learning_from_`` (the first epoch whose loss was 1 % below the first one, or None),
    ``resumed_from_`` (the checkpoint's epoch training resumed after, or None) and
    ``resumed_seconds_`` (the training seconds the checkpoint had already spent).
    A subclass names in ``_carried`` the attributes its epochs update (e.g. a step counter),
    so that a checkpoint keeps them.
    """

    _carried: tuple[str, ...] = ()

    def __init__(
        self,
        *,
        learning_rate: float,
        batch_size: int,
        max_epochs: int = 300,
        patience: int = 10,
        random_state: int | np.random.Generator | None = None,
        device: str = "cpu",
    ) -> None:
        super().__init__(random_state=random_state)
        self.device = device
        self.learning_rate = learning_rate
        self.batch_size = batch_size
        self.max_epochs = max_epochs
        self.patience = patience

    def fit(
        self,
        train: MatrixLike,
        *,
        valid: MatrixLike | None = None,
        progress: bool = False,
        checkpoint: str | os.PathLike[str] | None = None,
    ) -> Self:
        """Train on ``train`` until NDCG@10 on ``valid`` stops improving.

        Parameters
        ----------
        train : scipy sparse matrix or array, shape (m, n)
            Training interactions.
        valid : scipy sparse matrix or array, shape (m, n), optional
            Validation interactions for early stopping; they are masked like
            training items when the validation lists are ranked. Default: 10 %
            of the training interactions (at least one) of every user with 3 or more,
            drawn with ``random_state``, held out for it (and not trained on).
        progress : bool, default False
            Show a tqdm bar over the epochs (loss, validation NDCG@10, best).
        checkpoint : str or path-like, optional
            File that holds the whole training state, written after every
            epoch and removed when training ends. If it exists when ``fit``
            starts, training resumes after its epoch and ends with the same
            lists, to the bit, as an uninterrupted run. A checkpoint written
            for other settings or data is refused with a ValueError.

        Returns
        -------
        self
        """
        torch = import_torch(type(self).__name__)
        check_k(self.max_epochs, name="max_epochs")
        check_k(self.patience, name="patience")
        check_k(self.batch_size, name="batch_size")
        if not (isinstance(self.learning_rate, (int, float)) and self.learning_rate > 0):
            raise ValueError(f"learning_rate must be a positive number, got {self.learning_rate!r}")
        try:
            torch.device(self.device)
        except (RuntimeError, TypeError):
            raise ValueError(f"device must be a torch device such as 'cpu' or 'cuda', got {self.device!r}") from None
        super().fit(train)  # validates, binarises, sets train_, rng_, calls _fit
        train = self.train_
        if valid is None:
            train, valid = hold_out(train, self.rng_)
        else:
            valid = check_histories(valid, n_users=self.n_users_, n_items=self.n_items_, name="valid").astype(
                np.float64
            )
        if valid.nnz == 0:
            raise ValueError(
                "valid holds no interaction (without valid: no user has 3 or more "
                "training interactions to hold one out); early stopping needs some"
            )
        seed = int(self.rng_.integers(2**31 - 1))
        with _one_thread_seeded(torch, seed):
            self._train(torch, train, valid, progress, checkpoint)
        return self

    def _fit(self, train):
        pass  # the work is in _train, which also needs the validation split

    def _train(self, torch, train, valid, progress, checkpoint):
        from tqdm.auto import tqdm

        self.fit_train_ = train
        model = self._build(torch, train).to(self.device)  # the parameters move in place
        judged = np.flatnonzero(np.diff(valid.indptr) > 0)
        fingerprint = None if checkpoint is None else training_fingerprint(self, train, valid)
        loop = self._start(torch, model, checkpoint, fingerprint)
        bar = tqdm(
            total=self.max_epochs,
            initial=loop["epoch"],
            desc=self.name,
            unit="epoch",
            disable=not progress,
            leave=False,
        )
        started = time.perf_counter()
        while loop["epoch"] < self.max_epochs and loop["waited"] < self.patience:
            epoch = loop["epoch"] = loop["epoch"] + 1
            model.train()
            loss = float(self._train_epoch(torch, model, epoch))
            if not np.isfinite(loss):
                raise ValueError(
                    f"{type(self).__name__}: the training loss became {loss} at epoch {epoch}; lower learning_rate"
                )
            ndcg = self._valid_ndcg(torch, model, train, valid, judged)
            self._record(loop, model, epoch, loss, ndcg)
            bar.update(1)
            bar.set_postfix(loss=f"{loss:.4f}", valid_ndcg=f"{ndcg:.4f}", best=f"{loop['best']:.4f}")
            if checkpoint is not None and loop["waited"] < self.patience and epoch < self.max_epochs:
                self._save(torch, model, loop, checkpoint, fingerprint, started)
        bar.close()
        self.epochs_ = loop["epoch"]
        self.stopped_early_ = loop["waited"] >= self.patience
        self.best_valid_ndcg_ = loop["best"]
        model.load_state_dict(loop["best_state"])
        model.eval()
        with torch.no_grad():
            # Kept as a function: the (m, n) scores of every user at once would not fit at scale.
            self.score_users_ = self._all_scores(torch, model, final=True)
        if checkpoint is not None:  # the fitted ranker now holds everything it had
            pathlib.Path(checkpoint).unlink(missing_ok=True)

    def _record(self, loop, model, epoch, loss, ndcg):
        """Book one epoch into the early-stopping record ``loop``."""
        self.history_.append((epoch, loss, ndcg))
        first = loop["first_loss"] = loss if loop["first_loss"] is None else loop["first_loss"]
        if self.learning_from_ is None and loss <= first - LEARNING_STARTED * abs(first):
            self.learning_from_ = epoch
        if ndcg > loop["best"]:
            loop["best"], loop["waited"], self.best_epoch_ = ndcg, 0, epoch
            loop["best_state"] = copy.deepcopy(model.state_dict())
        elif self.learning_from_ is not None:
            loop["waited"] += 1

    def _start(self, torch, model, checkpoint, fingerprint):
        """A fresh early-stopping record, or the one ``checkpoint`` holds, with its state restored."""
        self.history_, self.learning_from_, self.resumed_from_, self.resumed_seconds_ = [], None, None, 0.0
        state = None if checkpoint is None else load_checkpoint(checkpoint, fingerprint)
        if state is None:
            return {"epoch": 0, "best": -1.0, "best_state": None, "waited": 0, "first_loss": None, "seconds": 0.0}
        model.load_state_dict(state["model"])
        self.optimizer_.load_state_dict(state["optimizer"])
        torch.set_rng_state(state["torch_rng"])
        self.rng_.bit_generator.state = json.loads(state["numpy_rng"])
        for name, value in state["carried"].items():
            setattr(self, name, value)
        self.history_ = [tuple(row) for row in state["history"]]
        self.learning_from_, self.best_epoch_ = state["learning_from"], state["best_epoch"]
        loop = state["loop"]
        self.resumed_from_, self.resumed_seconds_ = loop["epoch"], loop["seconds"]
        return loop

    def _save(self, torch, model, loop, checkpoint, fingerprint, started):
        loop = {**loop, "seconds": self.resumed_seconds_ + time.perf_counter() - started}
        save_checkpoint(
            checkpoint,
            {
                "fingerprint": fingerprint,
                "loop": loop,
                "model": model.state_dict(),
                "optimizer": self.optimizer_.state_dict(),
                "torch_rng": torch.get_rng_state(),
                "numpy_rng": json.dumps(self.rng_.bit_generator.state, default=np.ndarray.tolist),
                "carried": {name: getattr(self, name) for name in self._carried},
                "history": self.history_,
                "learning_from": self.learning_from_,
                "best_epoch": self.best_epoch_,
            },
        )

    def _valid_ndcg(self, torch, model, train, valid, judged):
        model.eval()
        rankings = []
        with torch.no_grad():
            score = self._all_scores(torch, model, final=False)
            for batch in np.array_split(judged, max(1, judged.size // 2048)):
                scores = score(batch)
                seen = train[batch].tocoo()
                scores[
                    torch.from_numpy(seen.row).to(scores.device), torch.from_numpy(seen.col).to(scores.device)
                ] = -torch.inf
                rankings.append(torch.topk(scores, min(VALID_K, self.n_items_), dim=1).indices.cpu().numpy())
        return float(ndcg_at_k(np.vstack(rankings), valid[judged], k=VALID_K).mean())

    def _score(self, users):
        torch = import_torch(type(self).__name__)
        with _one_thread_seeded(torch, 0), torch.no_grad():  # one thread: the same bits every time
            return self.score_users_(users).double().cpu().numpy()
