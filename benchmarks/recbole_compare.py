"""Quality check against the authors' framework: RecBole and puf.rankers on the same ML-100K split.

Not part of the test suite and not a dependency. It runs in its own environment,
because RecBole 1.2.1 needs older libraries than the harness's defaults: numpy < 2
(its ``Config`` reads ``np.float_``), scipy < 1.12 (NGCF's and NCL's adjacency
uses ``dok_matrix._update``, which scipy 1.13.1 no longer has), pandas < 3,
setuptools < 81, faiss-cpu (NCL's k-means), and, with torch >= 2.6,
``weights_only=False`` when it loads its own checkpoints (this script sets
``TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=1`` in its own process, which torch honours
wherever the caller did not pass ``weights_only``). The harness
itself installs into the same environment. The commands that built it on the
development machine (Python 3.11.7; torch's CPU wheel 2.13.0 as the README installs it,
the rest from PyPI; no PyTorch index)::

    python3.11 -m venv /work/recbole-env
    /work/recbole-env/bin/pip install torch==2.13.0      # the CPU build; never a CUDA one
    /work/recbole-env/bin/pip install "numpy<2" "scipy<1.12" "pandas<3" "setuptools<81" \
        recbole==1.2.1 faiss-cpu
    /work/recbole-env/bin/pip install -e ".[neural]"     # the harness, from the repository root
    /work/recbole-env/bin/python benchmarks/recbole_compare.py --out recbole-compare

(numpy 1.26.4, scipy 1.11.4, pandas 2.3.3, setuptools 80.10.2, faiss-cpu 1.15.1,
recbole 1.2.1, torch 2.13.0+cpu; ``pip check`` clean.)

What it does:

1. writes the harness's preprocessed ML-100K split (relevance = rating >= 3,
   5-core, 60/20/20 per user in time order) as RecBole benchmark files
   ``NAME.train.inter``, ``.valid.inter``, ``.test.inter`` (``benchmark_filename``),
   and checks that RecBole reads back exactly those interactions, users and items;
2. trains MultiVAE, BPR, ItemKNN, NGCF and NCL with RecBole, one at a time, one
   thread, its model defaults, early stopping on valid NDCG@10 (``stopping_step``
   10, at most ``epochs`` 300), with RecBole's checkpointing (``saved=True``) so
   that, as in RecBole's ``run_recbole``, the test evaluation and the exported
   lists come from the best-validation model, not the last epoch's. One change to
   RecBole: NCL's k-means asks for ``num_clusters`` 1000 prototypes, more than
   ML-100K's 943 user rows, which faiss refuses; the script caps the number of
   clusters at the number of rows, as ``puf.rankers.NCL`` does;
3. exports RecBole's top-10 lists with the README's recipe (``full_sort_topk``,
   external tokens): for the test split (training and validation items masked)
   and for the validation split (training items masked); the table puts RecBole's
   own test P@10/NDCG@10 and best valid NDCG@10 beside the harness's evaluation
   of those files, and counts listed items the user already has (0 expected);
4. reads the harness's lists for the same models from its run cache
   (``CACHE/runs``, as ``puf evaluate`` does; trains and stores only what is not
   there) and evaluates both sets with :func:`puf.evaluation.evaluate_runs`.

Outputs in ``--out``: ``recbole_<Model>.tsv`` (test lists), ``.valid.tsv``,
``.json`` (training facts: seconds, epochs, best epoch, RecBole's own valid and
test metrics, load average at start and end), ``comparison.csv`` and
``comparison.md`` (P@10, NDCG@10 and every fairness measure of both frameworks'
lists side by side, with seconds, epochs, best epoch and best valid NDCG@10),
rewritten after every model; RecBole's ``log/``, ``log_tensorboard/`` and
``checkpoints/``. A model whose ``recbole_<Model>.tsv`` and ``.json`` exist is not
trained again, so an interrupted run resumes with the next model.

``--stopping-step 300`` (into another ``--out``) trains RecBole's models through
all 300 epochs, still keeping the best-validation model: a diagnostic of whether
RecBole's early stopping ended a model before it had learned, not the comparison.
On the development machine the run above took 9.5 minutes of wall clock at load
average 6-8 (RecBole's five models; the harness's lists came from the cache).
"""

import os

# One thread, set before numpy, torch and faiss start their thread pools: the comparison runs
# when other processes compete for a small machine's cores, and one thread is what the harness's rankers use.
for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import logging  # noqa: E402
import pathlib  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

MODELS = {"MultiVAE": "multvae", "BPR": "bpr", "ItemKNN": "itemknn", "NGCF": "ngcf", "NCL": "ncl"}
"""RecBole model -> the harness's ranker; the default order runs the fast ones first."""

K = 10
DATA_NAME = "ml-100k-puf"


def write_benchmark_files(dataset, folder):
    """The split as RecBole benchmark files NAME.train.inter, NAME.valid.inter, NAME.test.inter."""
    folder.mkdir(parents=True, exist_ok=True)
    for split in ("train", "valid", "test"):
        frame = dataset.split(split)
        table = pd.DataFrame(
            {
                "user_id:token": frame["user_id"].astype(str),
                "item_id:token": frame["item_id"].astype(str),
                "rating:float": frame["rating"],
                "timestamp:float": frame["timestamp"],
            }
        )
        table.to_csv(folder / f"{folder.name}.{split}.inter", sep="\t", index=False)


def check_same_split(dataset, recbole_dataset, loaders):
    """RecBole must read exactly the harness's interactions, users and items per split."""
    if recbole_dataset.user_num - 1 != dataset.n_users or recbole_dataset.item_num - 1 != dataset.n_items:
        raise RuntimeError(
            f"RecBole sees {recbole_dataset.user_num - 1} users and "
            f"{recbole_dataset.item_num - 1} items, the harness {dataset.n_users} "
            f"and {dataset.n_items}"
        )
    uid, iid = recbole_dataset.uid_field, recbole_dataset.iid_field
    for split, loader in zip(("train", "valid", "test"), loaders):
        inter = loader._dataset.inter_feat
        users = recbole_dataset.id2token(uid, inter[uid].numpy())
        items = recbole_dataset.id2token(iid, inter[iid].numpy())
        ours = dataset.split(split)
        theirs = set(zip(users.tolist(), items.tolist()))
        if theirs != set(zip(ours["user_id"].astype(str), ours["item_id"].astype(str))):
            raise RuntimeError(f"RecBole's {split} interactions differ from the harness's")


def export_topk(model, recbole_dataset, eval_data, path, *, k=K):
    """The README's recipe: RecBole top-k lists -> a ``puf evaluate --run`` file.

    ``full_sort_topk`` masks what RecBole's own full-sort evaluation masks: the
    training items on the validation loader, training and validation items on the
    test loader. Ids are mapped back to the dataset's tokens, which is what
    ``puf evaluate`` reads. Every user of the harness's split has validation and
    test items, so every user gets a list.
    """
    import torch
    from recbole.utils.case_study import full_sort_topk

    users = torch.arange(1, recbole_dataset.user_num)  # internal id 0 is RecBole's [PAD]
    _, items = full_sort_topk(users, model, eval_data, k=k, device=model.device)
    user_tokens = recbole_dataset.id2token(recbole_dataset.uid_field, users.numpy())
    item_tokens = recbole_dataset.id2token(recbole_dataset.iid_field, items.cpu().numpy())
    partial = path.with_name(path.name + ".partial")
    with open(partial, "w", encoding="utf-8") as handle:
        handle.write("user_id:token\titem_id:token\trank:float\n")
        for user, row in zip(user_tokens, item_tokens):
            handle.writelines(f"{user}\t{item}\t{rank}\n" for rank, item in enumerate(row, 1))
    os.replace(partial, path)


def cap_ncl_clusters():
    """RecBole's NCL asks faiss for ``num_clusters`` (1000) prototypes per side; ML-100K has 943
    user rows and faiss refuses more clusters than points. Cap k at the rows, as puf.rankers.NCL
    does; the item side (1,204 rows) keeps 1000."""
    from recbole.model.general_recommender.ncl import NCL

    original = NCL.run_kmeans
    if getattr(original, "capped_at_rows", False):
        return

    def run_kmeans(self, x):
        asked = self.k
        self.k = min(asked, len(x))
        try:
            return original(self, x)
        finally:
            self.k = asked

    run_kmeans.capped_at_rows = True
    NCL.run_kmeans = run_kmeans


def recbole_config(model_name, data_folder, out, seed, stopping_step=10):
    from recbole.config import Config

    return Config(
        model=model_name,
        dataset=data_folder.name,
        config_dict={
            "data_path": str(data_folder.parent),
            "benchmark_filename": ["train", "valid", "test"],
            "load_col": {"inter": ["user_id", "item_id", "rating", "timestamp"]},
            "user_inter_num_interval": "[0,inf)",
            "item_inter_num_interval": "[0,inf)",
            "eval_args": {"mode": "full", "order": "TO", "group_by": "user"},
            "metrics": ["Precision", "NDCG"],
            "topk": [K],
            "valid_metric": f"NDCG@{K}",
            "seed": seed,
            "reproducibility": True,
            "device": "cpu",
            "use_gpu": False,
            "show_progress": False,
            "worker": 0,
            "checkpoint_dir": str(out / "checkpoints"),
            "stopping_step": stopping_step,
        },
    )


def load_average():
    """``uptime``'s three load averages (1, 5, 15 minutes)."""
    return [round(value, 2) for value in os.getloadavg()]


def train_recbole(model_name, dataset, data_folder, out, seed, stopping_step=10):
    """Train one RecBole model; export its best model's lists; return its facts."""
    import torch
    from recbole.data import create_dataset, data_preparation
    from recbole.utils import get_model, get_trainer, init_logger, init_seed

    torch.set_num_threads(1)
    config = recbole_config(model_name, data_folder, out, seed, stopping_step)
    for handler in logging.root.handlers[:]:  # init_logger's basicConfig: one log file per model
        logging.root.removeHandler(handler)
        handler.close()
    init_seed(config["seed"], config["reproducibility"])
    init_logger(config)
    logger = logging.getLogger()
    logger.info(config)
    recbole_dataset = create_dataset(config)
    logger.info(recbole_dataset)
    train_data, valid_data, test_data = data_preparation(config, recbole_dataset)
    check_same_split(dataset, recbole_dataset, (train_data, valid_data, test_data))
    init_seed(config["seed"] + config["local_rank"], config["reproducibility"])  # as run_recbole
    model = get_model(config["model"])(config, train_data._dataset).to(config["device"])
    logger.info(model)
    trainer = get_trainer(config["MODEL_TYPE"], config["model"])(config, model)
    load_start = load_average()
    start = time.perf_counter()
    best_valid_score, best_valid_result = trainer.fit(train_data, valid_data, saved=True, show_progress=False)
    seconds = time.perf_counter() - start
    load_end = load_average()
    # The best-validation checkpoint back into the model, as run_recbole's evaluate does.
    test_result = trainer.evaluate(test_data, load_best_model=True, show_progress=False)
    checkpoint = torch.load(trainer.saved_model_file, map_location="cpu", weights_only=False)
    epochs = len(trainer.train_loss_dict)
    facts = {
        "model": model_name,
        "seconds": seconds,
        "epochs": epochs,
        "best_epoch": int(checkpoint["epoch"]) + 1,  # RecBole counts from 0, the harness from 1
        "stopped_early": epochs < config["epochs"],
        "best_valid_ndcg": float(best_valid_score),
        "valid_result": {key: float(value) for key, value in best_valid_result.items()},
        "test_result": {key: float(value) for key, value in test_result.items()},
        "stopping_step": config["stopping_step"],
        "load_start": load_start,
        "load_end": load_end,
        "checkpoint": trainer.saved_model_file,
        "threads": torch.get_num_threads(),
    }
    export_topk(model, recbole_dataset, valid_data, out / f"recbole_{model_name}.valid.tsv")
    export_topk(model, recbole_dataset, test_data, out / f"recbole_{model_name}.tsv")
    return facts


def harness_lists(dataset, name, seed, cache):
    """The harness's lists and training facts, from its run cache where ``puf evaluate`` put them."""
    from puf.evaluation import run_rankers

    facts = {}
    rankings = run_rankers(dataset, [name], k=K, random_state=seed, cache=cache, facts=facts)[name]
    return rankings, facts[name]


def seen_items_listed(dataset, rankings, splits):
    """How many listed items the user already has in ``splits``: 0 when they are masked."""
    seen = sum(dataset.matrix(split) for split in splits).tocsr()
    rows = np.repeat(np.arange(rankings.shape[0]), rankings.shape[1])
    items = rankings.ravel()
    listed = items >= 0
    return int(np.count_nonzero(np.asarray(seen[rows[listed], items[listed]]).ravel()))


def comparison(dataset, done, out, seed, cache):
    """Both frameworks' lists of every finished model, evaluated by the harness, side by side."""
    from puf.evaluation import evaluate_runs, per_user_effectiveness, read_run

    runs, rows = {}, {}
    for model_name, facts in done.items():
        ours = MODELS[model_name]
        theirs = f"RecBole {model_name}"
        runs[theirs] = read_run(out / f"recbole_{model_name}.tsv", dataset, k=K)
        valid_run = read_run(out / f"recbole_{model_name}.valid.tsv", dataset, k=K, split="valid")
        valid = per_user_effectiveness(dataset, {theirs: valid_run}, k=K, split="valid")
        rows[theirs] = {
            "train seconds": facts["seconds"],
            "epochs": facts["epochs"],
            "best epoch": facts["best_epoch"],
            "best valid NDCG@10": facts["best_valid_ndcg"],
            "own valid NDCG@10 (harness eval)": valid[f"NDCG@{K}"].mean(),
            "own test P@10": facts["test_result"][f"precision@{K}"],
            "own test NDCG@10": facts["test_result"][f"ndcg@{K}"],
            "load start": facts["load_start"][0],
            "load end": facts["load_end"][0],
            "seen items listed (test, valid)": (
                f"{seen_items_listed(dataset, runs[theirs], ('train', 'valid'))}, "
                f"{seen_items_listed(dataset, valid_run, ('train',))}"
            ),
        }
        rankings, info = harness_lists(dataset, ours, seed, cache)
        runs[f"puf {ours}"] = rankings
        rows[f"puf {ours}"] = {
            "train seconds": info["seconds"],
            "epochs": info.get("epochs", np.nan),
            "best epoch": info.get("best_epoch", np.nan),
            "best valid NDCG@10": info.get("best_valid_ndcg", np.nan),
            "cached": info["cached"],
            "seen items listed (test, valid)": f"{seen_items_listed(dataset, rankings, ('train', 'valid'))}, -",
        }
    table = pd.DataFrame.from_dict(rows, orient="index").join(evaluate_runs(dataset, runs, k=K))
    table.index.name = "run"
    table.to_csv(out / "comparison.csv")
    (out / "comparison.md").write_text(table.round(4).to_markdown() + "\n", encoding="utf-8")
    return table


def main(argv=None):
    parser = argparse.ArgumentParser(prog="benchmarks/recbole_compare.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="recbole-compare", help="output folder")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--models", default=",".join(MODELS), help=f"comma-separated RecBole model names (default {','.join(MODELS)})"
    )
    parser.add_argument(
        "--cache",
        metavar="DIR",
        default=None,
        help="the harness's cache folder (as puf evaluate --cache); its runs/ holds the trained lists",
    )
    parser.add_argument(
        "--stopping-step",
        type=int,
        default=10,
        help="RecBole's stopping_step (default 10, its default; the comparison "
        "uses it). 300 = no early stopping within RecBole's 300 epochs, "
        "the best-validation model still kept: a diagnostic of whether a "
        "model stopped before it had learned",
    )
    args = parser.parse_args(argv)
    names = [m.strip() for m in args.models.split(",") if m.strip()]
    unknown = [m for m in names if m not in MODELS]
    if unknown:
        parser.error(f"unknown model(s) {unknown}; choose from {', '.join(MODELS)}")
    try:
        import recbole  # noqa: F401
    except ImportError:
        print("recbole is not installed; see this script's docstring for an environment", file=sys.stderr)
        return 2
    # RecBole's trainer.evaluate(load_best_model=True) calls torch.load without weights_only;
    # torch >= 2.6 then refuses the pickled Config in RecBole's own checkpoint. This process only.
    os.environ.setdefault("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "1")
    from puf.data import load
    from puf.data.dataset_cache import cache_dir

    out = pathlib.Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    cache = cache_dir(args.cache) / "runs"
    dataset = load("ml-100k", cache=args.cache)
    data_folder = out / "data" / DATA_NAME
    write_benchmark_files(dataset, data_folder)
    cap_ncl_clusters()
    os.chdir(out)  # RecBole writes log/ and log_tensorboard/ into the working directory
    done = {}
    for model_name in names:
        facts_path = out / f"recbole_{model_name}.json"
        if facts_path.exists() and (out / f"recbole_{model_name}.tsv").exists():
            done[model_name] = json.loads(facts_path.read_text(encoding="utf-8"))
            if done[model_name].get("stopping_step", 10) != args.stopping_step:
                parser.error(
                    f"{facts_path} was trained with stopping_step "
                    f"{done[model_name].get('stopping_step', 10)}; use another --out"
                )
            print(f"{model_name}: lists exist, not trained again", flush=True)
        else:
            print(f"{model_name}: training, load {load_average()}", flush=True)
            facts = train_recbole(model_name, dataset, data_folder, out, args.seed, args.stopping_step)
            facts_path.write_text(json.dumps(facts, indent=1) + "\n", encoding="utf-8")
            done[model_name] = facts
            print(
                f"{model_name}: {facts['seconds']:.1f} s, {facts['epochs']} epochs (best "
                f"{facts['best_epoch']}), test {facts['test_result']}, load "
                f"{facts['load_start']} -> {facts['load_end']}",
                flush=True,
            )
        table = comparison(dataset, done, out, args.seed, cache)
    print(table.round(4).to_string())
    return 0


if __name__ == "__main__":
    sys.exit(main())
