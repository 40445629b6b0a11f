"""Graph rankers in torch, CPU: NGCF (Wang et al., SIGIR 2019) and NCL (Lin et al., WWW 2022).

Both learn from BPR triples (user, a training item, a uniformly drawn item
the user has not seen), one per training interaction per epoch, with the
interactions shuffled; the propagation runs over the symmetric-normalised
user-item graph D^-1/2 A D^-1/2 of the training split, as in RecBole.
"""

from __future__ import annotations

__all__ = ["NCL", "NGCF"]

from typing import Any

import numpy as np

from ._training import TorchRanker
from .graph_inputs import interaction_keys, normalized_adjacency, sample_negatives, symmetric_propagation


class _BPRGraph(TorchRanker):
    def __init__(
        self, *, embedding_size, reg_weight, learning_rate, batch_size, max_epochs, patience, random_state, device
    ):
        super().__init__(
            learning_rate=learning_rate,
            batch_size=batch_size,
            max_epochs=max_epochs,
            patience=patience,
            random_state=random_state,
            device=device,
        )
        self.embedding_size = embedding_size
        self.reg_weight = reg_weight

    def _build(self, torch, train):
        nn = torch.nn
        self.adjacency_ = normalized_adjacency(torch, train).to(self.device)
        self.propagate_ = symmetric_propagation(torch)
        self.keys_ = interaction_keys(train)
        model = self._layers(torch)
        model["user_embedding"] = nn.Embedding(self.n_users_, self.embedding_size)
        model["item_embedding"] = nn.Embedding(self.n_items_, self.embedding_size)
        for parameter in model.parameters():
            if parameter.dim() > 1:  # RecBole's xavier_uniform_initialization
                nn.init.xavier_uniform_(parameter)
            else:
                nn.init.zeros_(parameter)
        self.optimizer_ = torch.optim.Adam(model.parameters(), lr=self.learning_rate)
        coo = train.tocoo()
        self.pairs_ = (coo.row.astype(np.int64), coo.col.astype(np.int64))
        return model

    def _ego(self, torch, model):
        return torch.cat([model["user_embedding"].weight, model["item_embedding"].weight])

    def _train_epoch(self, torch, model, epoch):
        F = torch.nn.functional
        users, items = self.pairs_
        order = self.rng_.permutation(users.size)
        total, batches = 0.0, 0
        for start in range(0, order.size, self.batch_size):
            batch = order[start : start + self.batch_size]
            u, i = users[batch], items[batch]
            j = sample_negatives(self.keys_, self.n_items_, u, self.rng_)
            u, i, j = (torch.from_numpy(a).to(self.device) for a in (u, i, j))
            user_all, item_all, extra = self._propagate(torch, model)
            positive = (user_all[u] * item_all[i]).sum(dim=1)
            negative = (user_all[u] * item_all[j]).sum(dim=1)
            bpr = -F.logsigmoid(positive - negative).mean()
            # RecBole's EmbLoss: the norms of the batch's ego embeddings over the batch size.
            reg = (
                model["user_embedding"].weight[u].norm()
                + model["item_embedding"].weight[i].norm()
                + model["item_embedding"].weight[j].norm()
            ) / u.numel()
            loss = bpr + self.reg_weight * reg + self._extra_loss(torch, model, extra, u, i, epoch)
            self.optimizer_.zero_grad()
            loss.backward()
            self.optimizer_.step()
            total, batches = total + float(loss.detach()), batches + 1
        return total / batches

    def _extra_loss(self, torch, model, extra, u, i, epoch):
        return 0.0

    def _all_scores(self, torch, model, final):
        user_all, item_all, _ = self._propagate(torch, model)
        return lambda users: user_all[torch.from_numpy(np.asarray(users)).to(self.device)] @ item_all.T


class NGCF(_BPRGraph):
    """Neural graph collaborative filtering.

    Embeddings of size 64, three propagation layers of 64 with
    E' = LeakyReLU_0.2(W1 (L E + E) + W2 (L E ⊙ E)), message dropout 0.1, no node
    dropout, each layer's output L2-normalised; users and items are the
    concatenation of all layers (4 x 64); BPR loss with L2 weight 1e-5 on the
    batch's ego embeddings; Adam, batches of 1024 (all as in the paper and
    RecBole's NGCF.yaml). Learning rate 1e-3: the paper tunes it over
    {1e-4, 5e-4, 1e-3, 5e-3}; RecBole's default is 1e-3.

    Parameters
    ----------
    embedding_size : int, default 64
    layers : tuple of int, default (64, 64, 64)
    message_dropout : float, default 0.1
    reg_weight : float, default 1e-5
    learning_rate : float, default 1e-3
    batch_size : int, default 1024
    max_epochs, patience : int, default 300, 10
    random_state : None, int or numpy.random.Generator
    device : str, default "cpu"
        The torch device that trains and scores (e.g. ``"cuda"`` where torch sees a GPU).

    Examples
    --------
    >>> NGCF(layers=(32, 32)).layers
    (32, 32)
    """

    name = "ngcf"

    def __init__(
        self,
        *,
        embedding_size: int = 64,
        layers: tuple[int, ...] = (64, 64, 64),
        message_dropout: float = 0.1,
        reg_weight: float = 1e-5,
        learning_rate: float = 1e-3,
        batch_size: int = 1024,
        max_epochs: int = 300,
        patience: int = 10,
        random_state: int | np.random.Generator | None = None,
        device: str = "cpu",
    ) -> None:
        super().__init__(
            embedding_size=embedding_size,
            reg_weight=reg_weight,
            learning_rate=learning_rate,
            batch_size=batch_size,
            max_epochs=max_epochs,
            patience=patience,
            random_state=random_state,
            device=device,
        )
        self.layers = tuple(layers)
        self.message_dropout = message_dropout

    def _layers(self, torch):
        nn = torch.nn
        sizes = (self.embedding_size,) + self.layers
        return nn.ModuleDict(
            {
                "sum": nn.ModuleList([nn.Linear(a, b) for a, b in zip(sizes, sizes[1:])]),
                "product": nn.ModuleList([nn.Linear(a, b) for a, b in zip(sizes, sizes[1:])]),
            }
        )

    def _propagate(self, torch, model):
        F = torch.nn.functional
        embeddings = self._ego(torch, model)
        outputs = [embeddings]
        for linear_sum, linear_product in zip(model["sum"], model["product"]):
            side = self.propagate_(self.adjacency_, embeddings)
            embeddings = F.leaky_relu(
                linear_sum(side + embeddings) + linear_product(side * embeddings), negative_slope=0.2
            )
            embeddings = F.dropout(embeddings, p=self.message_dropout, training=model.training)
            outputs.append(F.normalize(embeddings, dim=1))
        final = torch.cat(outputs, dim=1)
        return final[: self.n_users_], final[self.n_users_ :], None


def kmeans(torch: Any, points: Any, k: int, *, iterations: int = 25) -> tuple[Any, Any]:
    """Lloyd's k-means from k distinct points drawn with torch's RNG (as faiss's default).

    Returns the centroids (k, d) and each point's cluster; an empty cluster
    keeps its previous centroid. ``k`` is capped at the number of points.

    Examples
    --------
    >>> import torch
    >>> _ = torch.manual_seed(0)
    >>> points = torch.tensor([[0.0, 0.0], [0.0, 0.1], [5.0, 5.0], [5.0, 5.1]])
    >>> centroids, labels = kmeans(torch, points, 2)
    >>> bool(labels[0] == labels[1]) and bool(labels[2] == labels[3]) and bool(labels[0] != labels[2])
    True
    """
    k = min(k, points.shape[0])
    centroids = points[torch.randperm(points.shape[0])[:k]].clone()
    for _ in range(iterations):
        labels = torch.cdist(points, centroids).argmin(dim=1)
        sums = torch.zeros_like(centroids).index_add_(0, labels, points)
        counts = torch.bincount(labels, minlength=k).unsqueeze(1)
        filled = counts.squeeze(1) > 0
        centroids[filled] = sums[filled] / counts[filled]
    return centroids, torch.cdist(points, centroids).argmin(dim=1)


class NCL(_BPRGraph):
    """Neighbourhood-enriched contrastive learning on a LightGCN backbone.

    LightGCN (3 layers, embeddings of 64, mean of layers 0..3) with BPR and L2
    weight 1e-4, plus NCL's two InfoNCE losses at temperature 0.1: the
    structural one between each node's layer-2 and layer-0 embedding
    (weight ``ssl_reg`` 1e-7, items weighted by ``alpha`` 1) and the prototype
    one between layer-0 embeddings and their k-means centroid (weight
    ``proto_reg`` 8e-8, ``num_clusters`` 1000), k-means run on the
    embeddings at the start of every epoch after ``warm_up`` 20 epochs, the
    prototype loss off before. Adam, learning rate 1e-3, batches of 4096.
    Values from RecBole's NCL.yaml, the authors' ml-1m.yaml and overall.yaml;
    k-means is our own torch Lloyd (25 iterations from random points, as
    faiss's default) instead of faiss, and needs no more clusters than points,
    so a side with fewer than ``num_clusters`` users (or items) gets one
    cluster per user (item).

    Parameters
    ----------
    embedding_size : int, default 64
    n_layers : int, default 3
    reg_weight : float, default 1e-4
    ssl_temp : float, default 0.1
    ssl_reg : float, default 1e-7
    alpha : float, default 1.0
    proto_reg : float, default 8e-8
    num_clusters : int, default 1000
    warm_up : int, default 20
    learning_rate : float, default 1e-3
    batch_size : int, default 4096
    max_epochs, patience : int, default 300, 10
    random_state : None, int or numpy.random.Generator
    device : str, default "cpu"
        The torch device that trains and scores (e.g. ``"cuda"`` where torch sees a GPU).

    Examples
    --------
    >>> NCL(num_clusters=10).num_clusters
    10
    """

    name = "ncl"

    def __init__(
        self,
        *,
        embedding_size: int = 64,
        n_layers: int = 3,
        reg_weight: float = 1e-4,
        ssl_temp: float = 0.1,
        ssl_reg: float = 1e-7,
        alpha: float = 1.0,
        proto_reg: float = 8e-8,
        num_clusters: int = 1000,
        warm_up: int = 20,
        learning_rate: float = 1e-3,
        batch_size: int = 4096,
        max_epochs: int = 300,
        patience: int = 10,
        random_state: int | np.random.Generator | None = None,
        device: str = "cpu",
    ) -> None:
        super().__init__(
            embedding_size=embedding_size,
            reg_weight=reg_weight,
            learning_rate=learning_rate,
            batch_size=batch_size,
            max_epochs=max_epochs,
            patience=patience,
            random_state=random_state,
            device=device,
        )
        self.n_layers = n_layers
        self.ssl_temp = ssl_temp
        self.ssl_reg = ssl_reg
        self.alpha = alpha
        self.proto_reg = proto_reg
        self.num_clusters = num_clusters
        self.warm_up = warm_up

    def _layers(self, torch):
        return torch.nn.ModuleDict()

    def _propagate(self, torch, model):
        embeddings = self._ego(torch, model)
        layers = [embeddings]
        for _ in range(max(self.n_layers, 2)):  # 2 = hyper_layers * 2: the structural contrast
            layers.append(self.propagate_(self.adjacency_, layers[-1]))
        final = torch.stack(layers[: self.n_layers + 1], dim=1).mean(dim=1)
        return final[: self.n_users_], final[self.n_users_ :], layers

    def _train_epoch(self, torch, model, epoch):
        if epoch > self.warm_up:  # RecBole's E-step: cluster the current ego embeddings
            F = torch.nn.functional
            with torch.no_grad():
                self.prototypes_ = []
                for table in (model["user_embedding"].weight, model["item_embedding"].weight):
                    centroids, labels = kmeans(torch, table.detach(), self.num_clusters)
                    self.prototypes_.append((F.normalize(centroids, dim=1), labels))
        return super()._train_epoch(torch, model, epoch)

    def _info_nce(self, torch, anchors, positives, candidates, weights):
        """Sum over anchors of weight x -log softmax of the positive among the candidates."""
        F = torch.nn.functional
        anchors = F.normalize(anchors, dim=1)
        positive = (anchors * positives).sum(dim=1) / self.ssl_temp
        spread = torch.logsumexp(anchors @ candidates.T / self.ssl_temp, dim=1)
        return -(weights * (positive - spread)).sum()

    def _extra_loss(self, torch, model, extra, u, i, epoch):
        F = torch.nn.functional
        m = self.n_users_
        center, context = extra[0], extra[2]
        users_all, items_all = F.normalize(center[:m], dim=1), F.normalize(center[m:], dim=1)
        # A node repeated in the batch adds the same term again: each distinct node once,
        # weighted by its count, is RecBole's sum over the batch at a fraction of the cost.
        u, u_count = torch.unique(u, return_counts=True)
        i, i_count = torch.unique(i, return_counts=True)
        u_count, i_count = u_count.to(center.dtype), i_count.to(center.dtype)
        structural = self._info_nce(
            torch, context[:m][u], users_all[u], users_all, u_count
        ) + self.alpha * self._info_nce(torch, context[m:][i], items_all[i], items_all, i_count)
        loss = self.ssl_reg * structural
        if epoch > self.warm_up:
            (user_centroids, user_labels), (item_centroids, item_labels) = self.prototypes_
            prototype = self._info_nce(
                torch, center[:m][u], user_centroids[user_labels[u]], user_centroids, u_count
            ) + self._info_nce(torch, center[m:][i], item_centroids[item_labels[i]], item_centroids, i_count)
            loss = loss + self.proto_reg * prototype
        return loss
