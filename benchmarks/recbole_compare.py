"""Quality check against the authors' framework: RecBole and puf.rankers on the same ML-100K split.

Not part of the test suite and not a dependency. Run it in its own environment,
because RecBole 1.2.1 needs older libraries than the harness's defaults
(Python <= 3.11, numpy < 2 for its ``np.float_``, torch < 2.6 for its
checkpoint loading, scipy < 1.14 for its ``dok_matrix._update``, pandas < 3,
setuptools < 81, and faiss-cpu for NCL). The environment below follows those
constraints but has not been built on the harness's development machine (a
1.7 GB install that the time and the shared 2-core CPU did not allow), so
this script has not been run there and the README shows no comparison numbers::

    python3.11 -m venv /tmp/recbole-env && . /tmp/recbole-env/bin/activate
    pip install "numpy<2" "scipy<1.14" "pandas<3" "setuptools<81" "torch==2.5.1" \
        --index-url https://download.pytorch.org/whl/cpu --extra-index-url https://pypi.org/simple
    pip install recbole==1.2.1 faiss-cpu ray -e ".[neural]"
    python benchmarks/recbole_compare.py --out recbole-compare      # hours on 2 CPU cores

It writes the harness's preprocessed ML-100K split (relevance = rating >= 3,
5-core, 60/20/20 per user in time order) as RecBole benchmark files, so both
frameworks train on the same interactions; trains MultiVAE, NGCF, NCL, BPR and
ItemKNN with RecBole (its model defaults, early stopping on valid NDCG@10,
``stopping_step`` 10) and the same rankers with ``puf.rankers``; exports
RecBole's top-10 lists with the README's recipe (external tokens, not
RecBole's internal ids); and evaluates both sets of lists with
:func:`puf.evaluation.evaluate_runs`, writing ``comparison.csv`` and
``comparison.md`` side by side (P@10, NDCG@10 and every fairness measure).
"""

import argparse
import pathlib
import sys
import time

import pandas as pd

MODELS = {"MultiVAE": "multvae", "NGCF": "ngcf", "NCL": "ncl", "BPR": "bpr", "ItemKNN": "itemknn"}


def write_benchmark_files(dataset, folder):
    """The split as RecBole benchmark files NAME.train.inter, NAME.valid.inter, NAME.test.inter."""
    folder.mkdir(parents=True, exist_ok=True)
    for split in ("train", "valid", "test"):
        frame = dataset.split(split)
        table = pd.DataFrame({"user_id:token": frame["user_id"].astype(str),
                              "item_id:token": frame["item_id"].astype(str),
                              "rating:float": frame["rating"], "timestamp:float": frame["timestamp"]})
        table.to_csv(folder / f"{folder.name}.{split}.inter", sep="\t", index=False)


def export_topk(model, dataset, test_data, path, *, k=10):
    """The README's recipe: RecBole top-k lists -> a ``puf evaluate --run`` file.

    ``full_sort_topk`` masks each user's training (and, on test_data,
    validation) items as RecBole's own evaluation does; ids are mapped back to
    the dataset's tokens, which is what ``puf evaluate`` reads.
    """
    import torch
    from recbole.utils.case_study import full_sort_topk

    users = torch.arange(1, dataset.user_num)  # internal id 0 is RecBole's [PAD]
    scores, items = full_sort_topk(users, model, test_data, k=k, device=model.device)
    user_tokens = dataset.id2token(dataset.uid_field, users.numpy())
    item_tokens = dataset.id2token(dataset.iid_field, items.cpu().numpy())
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("user_id:token\titem_id:token\trank:float\n")
        for user, row in zip(user_tokens, item_tokens):
            handle.writelines(f"{user}\t{item}\t{rank}\n" for rank, item in enumerate(row, 1))


def train_recbole(model_name, data_folder, seed):
    from recbole.config import Config
    from recbole.data import create_dataset, data_preparation
    from recbole.utils import get_model, get_trainer, init_seed

    config = Config(model=model_name, dataset=data_folder.name, config_dict={
        "data_path": str(data_folder.parent), "benchmark_filename": ["train", "valid", "test"],
        "load_col": {"inter": ["user_id", "item_id", "rating", "timestamp"]},
        "user_inter_num_interval": "[0,inf)", "item_inter_num_interval": "[0,inf)",
        "eval_args": {"mode": "full", "order": "TO", "group_by": "user"},
        "metrics": ["Precision", "NDCG"], "topk": [10], "valid_metric": "NDCG@10",
        "seed": seed, "reproducibility": True, "device": "cpu", "use_gpu": False,
        "show_progress": False, "worker": 0,
    })
    init_seed(config["seed"], config["reproducibility"])
    dataset = create_dataset(config)
    train_data, valid_data, test_data = data_preparation(config, dataset)
    model = get_model(config["model"])(config, train_data._dataset).to(config["device"])
    trainer = get_trainer(config["MODEL_TYPE"], config["model"])(config, model)
    start = time.perf_counter()
    trainer.fit(train_data, valid_data, saved=False, show_progress=False)
    return model, dataset, test_data, time.perf_counter() - start


def main(argv=None):
    parser = argparse.ArgumentParser(prog="benchmarks/recbole_compare.py",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="recbole-compare", help="output folder")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--models", default=",".join(MODELS),
                        help=f"comma-separated RecBole model names (default {','.join(MODELS)})")
    args = parser.parse_args(argv)
    try:
        import recbole  # noqa: F401
    except ImportError:
        print("recbole is not installed; see this script's docstring for an environment",
              file=sys.stderr)
        return 2
    from puf.data import load
    from puf.evaluation import evaluate_runs, read_run, run_rankers

    out = pathlib.Path(args.out)
    dataset = load("ml-100k")
    data_folder = out / "data" / "ml-100k-puf"
    write_benchmark_files(dataset, data_folder)
    runs, seconds = {}, {}
    for model_name in [m.strip() for m in args.models.split(",") if m.strip()]:
        model, recbole_data, test_data, seconds[f"RecBole {model_name}"] = train_recbole(
            model_name, data_folder, args.seed)
        path = out / f"recbole_{model_name}.tsv"
        export_topk(model, recbole_data, test_data, path)
        runs[f"RecBole {model_name}"] = read_run(path, dataset, k=10)
        ours = MODELS[model_name]
        timings = {}
        runs[f"puf {ours}"] = run_rankers(dataset, [ours], k=10, random_state=args.seed,
                                          timings=timings)[ours]
        seconds[f"puf {ours}"] = timings[ours]
    table = evaluate_runs(dataset, runs, k=10)
    table.insert(0, "train seconds", pd.Series(seconds))
    table.to_csv(out / "comparison.csv")
    (out / "comparison.md").write_text(table.round(4).to_markdown() + "\n", encoding="utf-8")
    print(table.round(4).to_string())
    return 0


if __name__ == "__main__":
    sys.exit(main())
