"""MultVAE (Liang, Krishnan, Hoffman & Jebara, WWW 2018), in torch, CPU."""

from __future__ import annotations

__all__ = ["MultVAE"]

import numpy as np

from ._training import TorchRanker


class MultVAE(TorchRanker):
    """Variational autoencoder with a multinomial likelihood and KL annealing.

    The paper's architecture and training: the L2-normalised history row,
    dropout 0.5 on it, encoder I -> 600 -> 2x200 (tanh), decoder 200 -> 600 -> I,
    log-softmax multinomial log-likelihood, KL weight beta annealed linearly from 0
    over ``total_anneal_steps`` gradient updates and capped at ``anneal_cap``;
    Adam, learning rate 1e-3, batches of 500 users, no weight decay. Xavier
    weights and N(0, 0.001^2) biases, as in the authors' code. Lists come from
    the decoder's logits on the user's training row (no sampling at test time).

    Parameters
    ----------
    hidden_size : int, default 600
    latent_size : int, default 200
        (RecBole's default is 128; the paper's is 200.)
    dropout : float, default 0.5
    anneal_cap : float, default 0.2
    total_anneal_steps : int, default 200000
    learning_rate : float, default 1e-3
    batch_size : int, default 500
    max_epochs, patience : int, default 300, 10
        Early stopping on validation NDCG@10 (see :class:`TorchRanker`).
    random_state : None, int or numpy.random.Generator
    device : str, default "cpu"
        The torch device that trains and scores (e.g. ``"cuda"`` where torch sees a GPU).

    Examples
    --------
    >>> MultVAE(latent_size=16).latent_size
    16
    """

    name = "multvae"
    _carried = ("updates_",)  # the KL annealing's step count

    def __init__(
        self,
        *,
        hidden_size: int = 600,
        latent_size: int = 200,
        dropout: float = 0.5,
        anneal_cap: float = 0.2,
        total_anneal_steps: int = 200000,
        learning_rate: float = 1e-3,
        batch_size: int = 500,
        max_epochs: int = 300,
        patience: int = 10,
        random_state: int | np.random.Generator | None = None,
        device: str = "cpu",
    ) -> None:
        super().__init__(
            learning_rate=learning_rate,
            batch_size=batch_size,
            max_epochs=max_epochs,
            patience=patience,
            random_state=random_state,
            device=device,
        )
        self.hidden_size = hidden_size
        self.latent_size = latent_size
        self.dropout = dropout
        self.anneal_cap = anneal_cap
        self.total_anneal_steps = total_anneal_steps

    def _build(self, torch, train):
        nn = torch.nn
        n = self.n_items_

        def linear(a, b):
            layer = nn.Linear(a, b)
            nn.init.xavier_uniform_(layer.weight)
            nn.init.normal_(layer.bias, std=0.001)
            return layer

        model = nn.ModuleDict(
            {
                "encoder": nn.ModuleList([linear(n, self.hidden_size), linear(self.hidden_size, 2 * self.latent_size)]),
                "decoder": nn.ModuleList([linear(self.latent_size, self.hidden_size), linear(self.hidden_size, n)]),
            }
        )
        self.optimizer_ = torch.optim.Adam(model.parameters(), lr=self.learning_rate)
        self.updates_ = 0
        return model

    def _forward(self, torch, model, rows):
        F = torch.nn.functional
        h = F.dropout(F.normalize(rows, dim=1), p=self.dropout, training=model.training)
        h = torch.tanh(model["encoder"][0](h))
        mu, logvar = model["encoder"][1](h).chunk(2, dim=1)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar) if model.training else mu
        return model["decoder"][1](torch.tanh(model["decoder"][0](z))), mu, logvar

    def _rows(self, torch, matrix, users):
        return torch.from_numpy(matrix[users].toarray().astype(np.float32)).to(self.device)

    def _train_epoch(self, torch, model, epoch):
        F = torch.nn.functional
        order = self.rng_.permutation(self.n_users_)
        total, batches = 0.0, 0
        for start in range(0, order.size, self.batch_size):
            rows = self._rows(torch, self.fit_train_, order[start : start + self.batch_size])
            logits, mu, logvar = self._forward(torch, model, rows)
            self.updates_ += 1
            beta = min(self.anneal_cap, self.updates_ / self.total_anneal_steps)
            nll = -(F.log_softmax(logits, dim=1) * rows).sum(dim=1).mean()
            kl = (-0.5 * (1 + logvar - mu.pow(2) - logvar.exp()).sum(dim=1)).mean()
            loss = nll + beta * kl
            self.optimizer_.zero_grad()
            loss.backward()
            self.optimizer_.step()
            total, batches = total + float(loss.detach()), batches + 1
        return total / batches

    def _all_scores(self, torch, model, final):
        source = self.train_ if final else self.fit_train_
        return lambda users: self._forward(torch, model, self._rows(torch, source, users))[0]
