"""The paper's rankers beyond the baselines: MultVAE, NGCF, NCL (torch) and NMF (scikit-learn).

Each trains on a small synthetic world in seconds and must beat Random on NDCG@10 there;
the same seed gives identical lists; the lists cache reads back what it stored. The torch
tests skip (with the install command as the reason) only where torch is absent.
"""

import sys

import numpy as np
import pandas as pd
import pytest

from puf import synthetic
from puf.effectiveness import ndcg_at_k
from puf.evaluation import run_rankers
from puf.rankers import NMF, MultVAE, Random, make_ranker, missing_requirement
from puf.rankers.neural import NCL, NGCF, torch_available
from puf.rankers.neural._training import hold_out
from puf.rankers.nmf import sklearn_available

needs_torch = pytest.mark.skipif(
    not torch_available(), reason="torch is not installed: pip install torch==2.13.0 'puf-harness[neural]'"
)
needs_sklearn = pytest.mark.skipif(
    not sklearn_available(), reason="scikit-learn is not installed: pip install 'puf-harness[neural]'"
)

# Small layers for a small world (80 users, 60 items), and batches of 64 interactions for the
# graph models: the world has ~700 training interactions, so their batch sizes (1024, 4096)
# would make one update per epoch. The training loop and losses are the papers'.
SMALL = {
    "multvae": dict(hidden_size=64, latent_size=16, batch_size=20),
    "ngcf": dict(embedding_size=16, layers=(16, 16), batch_size=64),
    "ncl": dict(embedding_size=16, batch_size=64),
    "nmf": dict(n_components=8),
}
FITTED = {}
MODELS = [
    pytest.param("multvae", marks=needs_torch),
    pytest.param("ngcf", marks=needs_torch),
    pytest.param("ncl", marks=needs_torch),
    pytest.param("nmf", marks=needs_sklearn),
]


@pytest.fixture(scope="module")
def world():
    """80 users in 4 communities; the held-out relevance split in halves: validation, test."""
    w = synthetic.world(80, 60, communities=4, concentration=0.9, random_state=0)
    valid, test = hold_out(w.relevance, np.random.default_rng(1), share=0.5, min_items=2)
    return w.histories, valid, test


def fitted(name, world, seed=0, *, again=False):
    """The ranker fitted on the world; kept for the module's other tests unless ``again``."""
    if again or name not in FITTED:
        train, valid, _ = world
        ranker = make_ranker(name, random_state=seed, **SMALL[name])
        ranker = ranker.fit(train, valid=valid) if name != "nmf" else ranker.fit(train)
        if again:
            return ranker
        FITTED[name] = ranker
    return FITTED[name]


@pytest.mark.parametrize("name", MODELS)
def test_beats_random_on_ndcg(name, world):
    train, valid, test = world
    ranker = fitted(name, world)
    lists = ranker.recommend(k=10, exclude=valid)
    baseline = Random(random_state=0).fit(train).recommend(k=10, exclude=valid)
    model, chance = ndcg_at_k(lists, test, k=10).mean(), ndcg_at_k(baseline, test, k=10).mean()
    assert model > chance + 0.1, (model, chance)


@pytest.mark.parametrize("name", MODELS)
def test_same_seed_same_lists(name, world):
    first = fitted(name, world).recommend(k=10)
    assert np.array_equal(first, fitted(name, world, again=True).recommend(k=10))


@needs_torch
@pytest.mark.parametrize("name", ["multvae", "ngcf", "ncl"])
def test_early_stopping_record(name, world):
    ranker = fitted(name, world)
    epochs, losses, ndcgs = zip(*ranker.history_)
    assert list(epochs) == list(range(1, ranker.epochs_ + 1))
    assert ranker.best_valid_ndcg_ == max(ndcgs) == ndcgs[ranker.best_epoch_ - 1]
    assert np.isfinite(losses).all()
    if ranker.stopped_early_:  # patience ran out: the last 10 epochs were no better
        assert ranker.epochs_ - ranker.best_epoch_ == ranker.patience


RESUMABLE = {
    "multvae": SMALL["multvae"],
    "ngcf": SMALL["ngcf"],
    "ncl": dict(SMALL["ncl"], warm_up=1, num_clusters=5),
}  # prototypes on by the stop


def stopped_after(name, world, epoch, checkpoint, monkeypatch, **settings):
    """Fit until ``epoch`` ends, then fail as a killed process would (the checkpoint stays)."""
    train, valid, _ = world
    ranker = make_ranker(name, random_state=0, **settings)
    train_epoch = type(ranker)._train_epoch

    def killed_after(self, torch, model, at):
        if at > epoch:
            raise KeyboardInterrupt
        return train_epoch(self, torch, model, at)

    with monkeypatch.context() as patch:
        patch.setattr(type(ranker), "_train_epoch", killed_after)
        with pytest.raises(KeyboardInterrupt):
            ranker.fit(train, valid=valid, checkpoint=checkpoint)


@needs_torch
@pytest.mark.parametrize("name", ["multvae", "ngcf", "ncl"])
def test_a_resumed_run_ends_as_an_uninterrupted_one(name, world, tmp_path, monkeypatch):
    train, valid, _ = world
    settings = dict(RESUMABLE[name], max_epochs=4)
    whole = make_ranker(name, random_state=0, **settings).fit(train, valid=valid)
    checkpoint = tmp_path / "run.pt"
    stopped_after(name, world, 2, checkpoint, monkeypatch, **settings)
    assert checkpoint.exists()
    resumed = make_ranker(name, random_state=0, **settings).fit(train, valid=valid, checkpoint=checkpoint)
    assert whole.resumed_from_ is None and resumed.resumed_from_ == 2
    assert resumed.history_ == whole.history_ and resumed.best_epoch_ == whole.best_epoch_
    assert np.array_equal(resumed.scores(), whole.scores())  # to the bit
    assert not checkpoint.exists()  # removed once training ended


@needs_torch
def test_a_checkpoint_of_other_settings_is_refused(world, tmp_path, monkeypatch):
    train, valid, _ = world
    checkpoint = tmp_path / "run.pt"
    stopped_after("ngcf", world, 1, checkpoint, monkeypatch, **SMALL["ngcf"])
    other = make_ranker("ngcf", random_state=1, **SMALL["ngcf"])
    with pytest.raises(ValueError, match=r"checkpoint .*run.pt: written for other ranker settings"):
        other.fit(train, valid=valid, checkpoint=checkpoint)
    checkpoint.write_bytes(b"not a checkpoint")
    with pytest.raises(ValueError, match=r"checkpoint .*run.pt: unreadable"):
        other.fit(train, valid=valid, checkpoint=checkpoint)


@needs_torch
def test_without_valid_a_share_of_train_is_held_out(world):
    train, _, _ = world
    ranker = MultVAE(random_state=0, batch_size=20).fit(train)
    assert 1 <= ranker.epochs_ <= ranker.max_epochs
    lists = ranker.recommend(k=10)
    assert not (train.toarray()[np.arange(80)[:, None], lists] > 0).any()  # never a training item


@needs_torch
def test_progress_bar_shows_and_quiets(world, capsys):
    train, valid, _ = world
    NGCF(random_state=0, batch_size=64, max_epochs=2).fit(train, valid=valid)
    assert capsys.readouterr().err == ""
    NGCF(random_state=0, batch_size=64, max_epochs=2).fit(train, valid=valid, progress=True)
    err = capsys.readouterr().err
    assert "ngcf" in err and "valid_ndcg" in err and "loss" in err


@needs_torch
def test_bad_settings_are_clear_errors(world):
    train, valid, _ = world
    with pytest.raises(ValueError, match="learning_rate must be a positive number, got 0"):
        NCL(learning_rate=0).fit(train, valid=valid)
    with pytest.raises(ValueError, match="patience must be >= 1"):
        NCL(patience=0).fit(train, valid=valid)
    with pytest.raises(ValueError, match="valid has 2 users, expected 80"):
        NCL().fit(train, valid=np.zeros((2, 60)))
    with pytest.raises(ValueError, match="valid holds no interaction"):
        NCL().fit(train, valid=np.zeros((80, 60)))


def test_without_torch_the_error_says_how_to_install(monkeypatch, world):
    monkeypatch.setitem(sys.modules, "torch", None)  # makes `import torch` fail
    with pytest.raises(ImportError, match=r"needs the optional 'torch' library: pip install torch"):
        MultVAE().fit(world[0])
    assert missing_requirement("ngcf") == (
        "ngcf needs the optional library torch: pip install torch==2.13.0 'puf-harness[neural]'"
    )


def tiny_dataset():
    from puf.data import preprocess

    rng = np.random.default_rng(0)
    rows = [(f"u{u}", f"i{(u % 3) * 6 + j}", 5.0, t) for u in range(24) for t, j in enumerate(rng.permutation(6))]
    frame = pd.DataFrame(rows, columns=["user_id", "item_id", "rating", "timestamp"])
    return preprocess(frame, core=1, ratios=(0.5, 0.17, 0.33), min_train=1, name="tiny")


@needs_torch
def test_run_cache_reads_back_the_same_lists(tmp_path):
    data = tiny_dataset()
    params = {"multvae": {"batch_size": 8, "max_epochs": 5}}
    facts = {}
    first = run_rankers(data, "mostpop,multvae", k=3, params=params, cache=tmp_path, facts=facts)
    assert not facts["multvae"]["cached"] and facts["multvae"]["epochs"] <= 5
    again = {}
    second = run_rankers(data, "mostpop,multvae", k=3, params=params, cache=tmp_path, facts=again)
    assert again["multvae"]["cached"] and not again["mostpop"]["cached"]  # a second: not cached
    assert again["multvae"]["epochs"] == facts["multvae"]["epochs"]
    for name in first:
        assert np.array_equal(first[name], second[name])
    retrained = {}
    third = run_rankers(data, "multvae", k=3, params=params, cache=tmp_path, retrain=True, facts=retrained)
    assert not retrained["multvae"]["cached"] and np.array_equal(third["multvae"], first["multvae"])
    # Other settings are another entry: trained, not read.
    other = {}
    run_rankers(
        data, "multvae", k=3, params={"multvae": {"batch_size": 4, "max_epochs": 5}}, cache=tmp_path, facts=other
    )
    assert not other["multvae"]["cached"]
    assert len(list(tmp_path.glob("tiny-multvae-seed0-k3-test-*.npz"))) == 2


@needs_torch
def test_run_cache_resumes_a_stopped_training(tmp_path, monkeypatch):
    data = tiny_dataset()
    params = {"multvae": {"batch_size": 8, "max_epochs": 4, "patience": 4}}
    whole = run_rankers(data, "multvae", k=3, params=params)["multvae"]
    from puf.rankers.neural import MultVAE

    train_epoch = MultVAE._train_epoch

    def killed_after_two(self, torch, model, epoch):
        if epoch > 2:
            raise KeyboardInterrupt
        return train_epoch(self, torch, model, epoch)

    with monkeypatch.context() as patch:
        patch.setattr(MultVAE, "_train_epoch", killed_after_two)
        with pytest.raises(KeyboardInterrupt):
            run_rankers(data, "multvae", k=3, params=params, cache=tmp_path)
    assert len(list(tmp_path.glob("tiny-multvae-*.checkpoint.pt"))) == 1
    facts = {}
    resumed = run_rankers(data, "multvae", k=3, params=params, cache=tmp_path, facts=facts)
    assert facts["multvae"]["resumed_from"] == 2 and not facts["multvae"]["cached"]
    assert np.array_equal(resumed["multvae"], whole)
    assert not list(tmp_path.glob("*.checkpoint.pt"))


@needs_sklearn
def test_nmf_scores_are_its_factor_product(world):
    ranker = NMF(n_components=5, random_state=0).fit(world[0])
    np.testing.assert_allclose(ranker.scores([0, 1]), ranker.user_factors_[[0, 1]] @ ranker.item_factors_)
    assert (ranker.user_factors_ >= 0).all() and (ranker.item_factors_ >= 0).all()


def test_evaluate_names_missing_libraries_before_training(monkeypatch, capsys):
    from puf.cli.commands.evaluate import _ranker_names
    from puf.rankers import PAPER_RANKERS

    monkeypatch.setitem(sys.modules, "torch", None)  # torch_available() is then False
    with pytest.raises(ImportError, match="multvae needs the optional library torch"):
        _ranker_names(list(PAPER_RANKERS), True)
    assert _ranker_names("all", True) == "all"
    assert "skipping multvae needs the optional library torch" in capsys.readouterr().err
    assert _ranker_names(["mostpop"], True) == ["mostpop"]


@needs_torch
def test_the_device_is_one_option_on_the_one_code_path():
    from puf.rankers import MultVAE

    train = (np.random.default_rng(0).random((40, 30)) < 0.2).astype(float)
    cpu = MultVAE(hidden_size=8, latent_size=4, max_epochs=2, random_state=0).fit(train)
    named = MultVAE(hidden_size=8, latent_size=4, max_epochs=2, random_state=0, device="cpu").fit(train)
    assert np.array_equal(cpu.recommend(k=5), named.recommend(k=5))
    with pytest.raises(ValueError, match="device must be a torch device"):
        MultVAE(max_epochs=1, device="abacus").fit(train)
