"""Lists made outside the harness: TREC, CSV, TSV, Parquet and DataFrames give the numbers of the same lists.

A run names users the split does not hold, lists the users' own training items, or lists
fewer than k items: each is skipped, counted or dropped as documented, and said in one line.
"""

import io

import numpy as np
import pandas as pd
import pytest

import puf
from puf.cli import main
from puf.pair_kernels import pair_kernel
from puf.data import load_atomic
from puf.evaluation import evaluate_lists, evaluate_runs, read_lists


@pytest.fixture()
def toy(tmp_path):
    rng = np.random.default_rng(1)
    rows = [f"u{u}\ti{i}\t4\t{t}" for u in range(12) for t, i in enumerate(rng.choice(20, 10, replace=False))]
    (tmp_path / "toy.inter").write_text(
        "user_id:token\titem_id:token\trating:float\ttimestamp:float\n" + "\n".join(rows) + "\n"
    )
    (tmp_path / "toy.item").write_text(
        "item_id:token\tgenre:token_seq\n" + "\n".join(f"i{i}\tG{i % 3} G{i % 5}" for i in range(20))
    )
    return tmp_path


def unseen_lists(dataset, k=5):
    """Per user (external ids), k items neither in its training nor its validation data, best first."""
    seen = (dataset.matrix("train") + dataset.matrix("valid")).tocsr()
    lists = {}
    for u, user in enumerate(dataset.users):
        own = set(seen.indices[seen.indptr[u] : seen.indptr[u + 1]])
        lists[user] = [dataset.items[i] for i in range(dataset.n_items) if i not in own][u % 3 : u % 3 + k]
    return lists


def csv_rows(lists):
    return [{"user": u, "item": i, "rank": r} for u, items in lists.items() for r, i in enumerate(items, 1)]


def csv_text(lists, extra=()):
    lines = ["user,item,rank"] + [f"{u},{i},{r}" for u, items in lists.items() for r, i in enumerate(items, 1)]
    return "\n".join(lines + list(extra)) + "\n"


def evaluate(toy, spec, *options, capsys):
    code = main(
        ["evaluate", "--inter", str(toy / "toy.inter"), "--item", str(toy / "toy.item"), "--run", spec]
        + ["--k", "5", "--format", "csv", "--out", str(toy / "out"), "--force", "--quiet", *options]
    )
    captured = capsys.readouterr()
    assert code == 0, captured.err
    said = [line for line in captured.err.splitlines() if line.startswith("puf evaluate: run ")]
    return pd.read_csv(io.StringIO(captured.out), index_col="ranker"), "\n".join(said)


@pytest.fixture()
def dataset(toy):
    return load_atomic(toy / "toy.inter", toy / "toy.item")


def test_trec_parquet_and_a_run_with_strangers_give_the_numbers_of_the_csv(toy, dataset, capsys):
    lists = unseen_lists(dataset)
    (toy / "run.csv").write_text(csv_text(lists))
    expected, said = evaluate(toy, f"mine={toy / 'run.csv'}", capsys=capsys)
    assert said == ""  # nothing skipped, seen or short: no line about the run
    # TREC: ordered by score (the rank column deliberately disagrees: trec_eval reads the score)
    trec = [f"{u} Q0 {i} {9 - r} {10.0 - r} tagged" for u, items in lists.items() for r, i in enumerate(items)]
    (toy / "run.trec").write_text("\n".join(trec) + "\n")
    found, _ = evaluate(toy, f"mine={toy / 'run.trec'}", capsys=capsys)
    pd.testing.assert_frame_equal(found, expected)
    # Parquet, its columns named otherwise
    frame = pd.DataFrame(
        [(u, i, 1.0 / (r + 1)) for u, items in lists.items() for r, i in enumerate(items)],
        columns=["uid", "movie", "pred"],
    )
    frame.to_parquet(toy / "run.parquet")
    found, _ = evaluate(
        toy, f"mine={toy / 'run.parquet'}", "--columns", "user=uid,item=movie,score=pred", capsys=capsys
    )
    pd.testing.assert_frame_equal(found, expected)
    # users the split does not hold: skipped, counted in one line, the numbers unchanged
    (toy / "strangers.csv").write_text(csv_text(lists, ["ghost,i1,1", "ghost,i2,2", "nobody,i3,1"]))
    found, said = evaluate(toy, f"mine={toy / 'strangers.csv'}", capsys=capsys)
    pd.testing.assert_frame_equal(found, expected)
    assert said == "puf evaluate: run mine: 2 users not in the dataset skipped (first: 'ghost')"
    counts = pd.read_csv(toy / "out" / "lists.csv", index_col="run")
    assert counts.loc["mine", "unknown_users_skipped"] == 2
    code = main(
        ["evaluate", "--inter", str(toy / "toy.inter"), "--run", f"mine={toy / 'strangers.csv'}", "--strict"]
        + ["--out", str(toy / "strict"), "--quiet"]
    )
    message = capsys.readouterr().err
    assert code == 2
    assert "user 'ghost' is not in dataset 'toy'" in message and "2 of the run's 14 users are not" in message


def test_a_table_with_rank_and_score_is_ordered_by_score_rank_breaking_ties(toy, dataset, capsys):
    """LensKit's and Microsoft Recommenders' runs carry both columns: read as trec_eval reads a
    TREC run, so tied scores keep the recommender's order and the numbers are the rank-only run's."""
    lists = unseen_lists(dataset)
    (toy / "run.csv").write_text(csv_text(lists))
    expected, _ = evaluate(toy, f"mine={toy / 'run.csv'}", capsys=capsys)
    tied = [(u, i, 1.0 if r < 3 else 0.5, r + 1) for u, items in lists.items() for r, i in enumerate(items)]
    frame = pd.DataFrame(tied, columns=["user", "item", "score", "rank"]).sample(frac=1.0, random_state=0)
    frame.to_csv(toy / "lenskit.csv", index=False)
    found, said = evaluate(toy, f"mine={toy / 'lenskit.csv'}", capsys=capsys)
    pd.testing.assert_frame_equal(found, expected)
    assert said == ""
    renamed = frame.rename(columns={"score": "prediction", "rank": "position"})
    columns = {"rank": "position", "score": "prediction"}
    assert (
        read_lists(renamed, dataset, columns=columns).rankings.tolist() == read_lists(frame, dataset).rankings.tolist()
    )
    reversed_ranks = frame.assign(rank=6 - frame["rank"])  # naming one order column leaves the other out
    by_rank = read_lists(reversed_ranks, dataset, columns={"rank": "rank"}).rankings
    assert [list(row[::-1]) for row in by_rank] == read_lists(
        frame, dataset, columns={"rank": "rank"}
    ).rankings.tolist()


def test_a_compressed_run_reads_and_a_file_that_is_not_text_is_named(toy, dataset, capsys):
    import gzip

    lists = unseen_lists(dataset)
    (toy / "run.csv").write_text(csv_text(lists))
    expected, _ = evaluate(toy, f"mine={toy / 'run.csv'}", capsys=capsys)
    (toy / "run.csv.gz").write_bytes(gzip.compress(csv_text(lists).encode()))
    found, _ = evaluate(toy, f"mine={toy / 'run.csv.gz'}", capsys=capsys)
    pd.testing.assert_frame_equal(found, expected)
    np.savez(toy / "arrays.npz", ids=np.arange(10))
    with pytest.raises(ValueError, match=r"arrays\.npz: not UTF-8 text \(byte .*\): a zip archive"):
        read_lists(toy / "arrays.npz", dataset)
    (toy / "wide.tsv").write_text("user\titem\trank\n", encoding="utf-16")
    with pytest.raises(ValueError, match=r"wide\.tsv: not UTF-8 text \(byte 0xff at offset 0\): UTF-16 text"):
        read_lists(toy / "wide.tsv", dataset)


def test_a_list_given_empty_is_the_shortest_list_not_a_missing_user(toy, dataset):
    import json

    lists = unseen_lists(dataset)
    first = dataset.users[0]
    without = {user: items for user, items in lists.items() if user != first}
    (toy / "without.csv").write_text(csv_text(without))
    with pytest.raises(ValueError, match=f"the run lists no item for 1 of the {dataset.n_users} users"):
        read_lists(toy / "without.csv", dataset)
    padded = read_lists(toy / "without.csv", dataset, missing="pad")
    ids = {user: items for user, items in lists.items()} | {first: []}
    scored = {user: {item: 1.0 / (r + 1) for r, item in enumerate(items)} for user, items in ids.items()}
    mymedialite = [
        f"{user}\t[{','.join(f'{i}:{1.0 / (r + 1)}' for r, i in enumerate(items))}]" for user, items in ids.items()
    ]
    sources = {"ids.json": json.dumps(ids), "scored.json": json.dumps(scored), "mml.txt": "\n".join(mymedialite)}
    for name, text in sources.items():
        (toy / name).write_text(text)
        found = read_lists(toy / name, dataset)
        assert found.rankings.tolist() == padded.rankings.tolist(), name
        assert found.short == padded.short + 1, name  # the empty list is a list, shorter than k
    (toy / "none.json").write_text(json.dumps({user: [] for user in lists}))
    with pytest.raises(ValueError, match="every list is empty; give k to score them"):
        read_lists(toy / "none.json", dataset)
    assert (read_lists(toy / "none.json", dataset, k=3).rankings == -1).all()


def test_near_misses_of_a_format_are_named_for_what_they_are(toy, dataset):
    lists = unseen_lists(dataset)
    (toy / "five.txt").write_text("\n".join(f"{u} Q0 {items[0]} 1 0.5" for u, items in lists.items()))
    with pytest.raises(ValueError, match=r"five\.txt: line 1: a TREC run line is 'qid Q0 docid rank score tag'"):
        read_lists(toy / "five.txt", dataset)
    (toy / "four.tsv").write_text("\n".join(f"{u}\t{items[0]}\t0.5\t1" for u, items in lists.items()))
    with pytest.raises(
        ValueError, match=r"four\.tsv: line 1 reads as data, not a header: \['u0', 'i.*', '0\.5', '1'\]"
    ):
        read_lists(toy / "four.tsv", dataset)
    (toy / "semicolons.csv").write_text(csv_text(lists).replace(",", ";"))
    (toy / "run.csv").write_text(csv_text(lists))
    expected = read_lists(toy / "run.csv", dataset).rankings.tolist()
    assert read_lists(toy / "semicolons.csv", dataset).rankings.tolist() == expected
    frame = pd.read_csv(toy / "run.csv", dtype=str).astype({"rank": int})
    frame.set_index("user").to_parquet(toy / "indexed.parquet")  # the user column as the index
    assert read_lists(toy / "indexed.parquet", dataset).rankings.tolist() == expected
    assert read_lists(frame.set_index("user"), dataset).rankings.tolist() == expected
    with pytest.raises(ValueError, match=r"^the frame: the header must name one user column"):
        read_lists(frame.rename(columns={"user": "who"}), dataset)
    ranks = frame.rename(columns={"rank": "score"})  # ranks under a score header: refused, not reversed
    with pytest.raises(ValueError, match=r"the score column 'score' holds 1, 2, 3, \.\.\. in every user's order"):
        read_lists(ranks, dataset)
    assert read_lists(ranks, dataset, columns={"rank": "score"}).rankings.tolist() == expected
    reversed_lists = read_lists(ranks, dataset, columns={"score": "score"}).rankings  # named a score: read so
    assert [sorted(row) for row in reversed_lists.tolist()] == [sorted(row) for row in expected]
    stranger = pd.concat([frame, pd.DataFrame({"user": ["u0"], "item": ["nowhere"], "rank": [9]})])
    with pytest.raises(
        ValueError,
        match=r"item 'nowhere' is not in dataset 'toy' \(after preprocessing; 1 listed item is not: scored as "
        r"misses unless strict\)",
    ):
        read_lists(stranger, dataset, strict=True)


def test_cells_of_pairs_or_records_list_their_items(toy, dataset):
    """Spark ALS's ``recommendForAllUsers`` writes each user's list as ``{itemId, rating}``
    structs; a frame may hold ``(item, score)`` pairs: the items are read, best first."""
    lists = unseen_lists(dataset)
    (toy / "run.csv").write_text(csv_text(lists))
    expected = read_lists(toy / "run.csv", dataset).rankings.tolist()
    spark = pd.DataFrame(
        {
            "userId": list(lists),
            "recommendations": [
                [{"itemId": i, "rating": 5.0 - r} for r, i in enumerate(items)] for items in lists.values()
            ],
        }
    )
    spark.to_parquet(toy / "als.parquet")
    columns = {"user": "userId", "items": "recommendations"}
    assert read_lists(toy / "als.parquet", dataset, columns=columns).rankings.tolist() == expected
    pairs = pd.DataFrame(
        {"user": list(lists), "items": [[(i, 5.0 - r) for r, i in enumerate(v)] for v in lists.values()]}
    )
    assert read_lists(pairs, dataset).rankings.tolist() == expected


def test_seen_items_are_counted_kept_by_default_and_dropped_on_request(toy, dataset, capsys):
    lists = unseen_lists(dataset)
    (toy / "run.csv").write_text(csv_text(lists))
    expected, _ = evaluate(toy, f"mine={toy / 'run.csv'}", capsys=capsys)
    train = dataset.matrix("train")
    with_seen = {}
    for u, (user, items) in enumerate(lists.items()):
        first_seen = dataset.items[train.indices[train.indptr[u]]]
        with_seen[user] = [first_seen] + items if u < 3 else items  # three users list a training item first
    (toy / "seen.csv").write_text(csv_text(with_seen))
    kept, said = evaluate(toy, f"mine={toy / 'seen.csv'}", capsys=capsys)
    assert "3 of 60 listed items are the users' own training or validation items, kept" in said
    assert not kept.equals(expected)  # a training item is never relevant: it takes a slot
    dropped, said = evaluate(toy, f"mine={toy / 'seen.csv'}", "--drop-seen", capsys=capsys)
    assert "3 of 60 listed items are the users' own training or validation items, dropped" in said
    pd.testing.assert_frame_equal(dropped, expected)
    counts = pd.read_csv(toy / "out" / "lists.csv", index_col="run")
    assert counts.loc["mine", "seen_items"] == 3 and bool(counts.loc["mine", "seen_dropped"])


def test_short_lists_are_scored_as_such_and_counted(dataset):
    lists = unseen_lists(dataset)
    rows = [(u, i, r) for u, items in lists.items() for r, i in enumerate(items[: 2 if u == "u0" else 5], 1)]
    frame = pd.DataFrame(rows, columns=["user_id", "item_id", "rank"])
    found = read_lists(frame, dataset, k=5)
    assert found.short == 1 and found.summary() == "1 list shorter than k = 5"
    assert found.rankings[dataset.users.get_loc("u0")].tolist()[2:] == [-1, -1, -1]
    evaluated = evaluate_lists(dataset, {"mine": frame}, k=5, measures=["SD-P", "PUF-NDCG"])
    direct = evaluate_runs(dataset, {"mine": found.rankings}, k=5, measures=["SD-P", "PUF-NDCG"])
    pd.testing.assert_frame_equal(evaluated.scores, direct)
    assert evaluated.lists.loc["mine", "short_lists"] == 1
    assert list(evaluated.per_user.columns) == ["ranker", "user_id", "P@5", "NDCG@5"]


def test_bad_lists_name_the_row_or_line(dataset, tmp_path):
    with pytest.raises(ValueError, match="none of the run's 1 users is"):
        read_lists(pd.DataFrame({"user": ["ghost"], "item": ["i1"], "rank": [1]}), dataset)
    with pytest.raises(ValueError, match=r"the frame: row 2: score 'high' is not a number"):
        read_lists(pd.DataFrame({"user": ["u0", "u0"], "item": ["i1", "i2"], "score": [1, "high"]}), dataset)
    with pytest.raises(ValueError, match="a TREC run line is 'qid Q0 docid rank score tag'"):
        path = tmp_path / "bad.trec"
        path.write_text("u0 Q0 i1 1 0.5 tag\nu0 Q0 i2 2\n")
        read_lists(path, dataset)
    with pytest.raises(ValueError, match=r"user is named twice \(user, user_id: say which in columns\)"):
        read_lists(pd.DataFrame({"user": ["u0"], "user_id": ["u0"], "item": ["i1"], "rank": [1]}), dataset)
    with pytest.raises(ValueError, match=r"the header must name one user column .* \(columns given: user=who\)"):
        read_lists(pd.DataFrame({"user": ["u0"], "item": ["i1"], "rank": [1]}), dataset, columns={"user": "who"})


def test_list_options_need_a_run(toy, capsys):
    code = main(["evaluate", "--inter", str(toy / "toy.inter"), "--drop-seen", "--rankers", "mostpop", "-q"])
    assert code == 2 and "--drop-seen and --columns need --run" in capsys.readouterr().err


_SPLIT_PARTS = ("train.inter", "valid.inter", "test.inter", "item", "test.qrels", "split.json")


def test_the_split_out_round_trips_through_run(tmp_path, capsys):
    """Lists made from ``puf data split``'s files alone are judged as the harness's own ranker's."""
    folder = tmp_path / "split"
    assert main(["data", "split", "ml-100k", "--out", str(folder)]) == 0
    assert capsys.readouterr().out.split() == [str(folder / f"ml-100k.{p}") for p in _SPLIT_PARTS]
    written = sorted(p.name for p in folder.iterdir())
    assert written == sorted(f"ml-100k.{part}" for part in _SPLIT_PARTS)
    read = {part: pd.read_csv(folder / f"ml-100k.{part}.inter", sep="\t", dtype=str) for part in ("train", "valid")}
    items = pd.read_csv(folder / "ml-100k.item", sep="\t", dtype=str)["item_id:token"]
    # MostPop from the files alone: training popularity, ties to the earlier line of the .item file
    popularity = read["train"]["item_id:token"].value_counts().reindex(items, fill_value=0)
    order = items.to_numpy()[np.argsort(-popularity.to_numpy(), kind="stable")]
    seen = pd.concat(read.values()).groupby("user_id:token")["item_id:token"].agg(set)
    lines = ["user,item,rank"]
    for user, own in seen.items():
        top = [item for item in order[: 10 + len(own)] if item not in own][:10]
        lines += [f"{user},{item},{rank}" for rank, item in enumerate(top, 1)]
    (tmp_path / "pop.csv").write_text("\n".join(lines) + "\n")
    qrels = pd.read_csv(folder / "ml-100k.test.qrels", sep=" ", header=None, dtype=str)
    assert qrels[0].nunique() == len(seen) and set(qrels[3]) == {"1"}
    code = main(
        ["evaluate", "--data", "ml-100k", "--run", f"pop={tmp_path / 'pop.csv'}", "--rankers", "mostpop"]
        + ["--format", "csv", "--out", str(tmp_path / "out"), "--quiet"]
    )
    captured = capsys.readouterr()
    assert code == 0, captured.err
    table = pd.read_csv(io.StringIO(captured.out), index_col="ranker")
    np.testing.assert_allclose(table.loc["pop"].to_numpy(), table.loc["mostpop"].to_numpy(), rtol=0, atol=0)
    assert main(["data", "split", "ml-100k", "--out", str(folder)]) == 2  # nothing is overwritten
    assert "already holds ml-100k.train.inter" in capsys.readouterr().err


def test_a_row_per_user_gives_the_numbers_of_a_row_per_item(toy, dataset, capsys):
    """A list per user in one cell, best first (a Kaggle-style submission, RecBole's
    full_sort_topk written a user a line, implicit's arrays in a DataFrame) is the same run as
    its rows per item: ids separated by spaces, commas or |, a printed list, or a list column."""
    lists = unseen_lists(dataset)
    (toy / "run.csv").write_text(csv_text(lists))
    expected, _ = evaluate(toy, f"mine={toy / 'run.csv'}", capsys=capsys)
    (toy / "spaces.csv").write_text("user_id,items\n" + "".join(f"{u},{' '.join(i)}\n" for u, i in lists.items()))
    (toy / "printed.tsv").write_text("uid\titem_list\n" + "".join(f"{u}\t{i!r}\n" for u, i in lists.items()))
    for name in ("spaces.csv", "printed.tsv"):
        found, said = evaluate(toy, f"mine={toy / name}", capsys=capsys)
        pd.testing.assert_frame_equal(found, expected)
        assert said == ""
    (toy / "kaggle.csv").write_text("customer,prediction\n" + "".join(f"{u},{'|'.join(i)}\n" for u, i in lists.items()))
    found, _ = evaluate(toy, f"mine={toy / 'kaggle.csv'}", "--columns", "user=customer,items=prediction", capsys=capsys)
    pd.testing.assert_frame_equal(found, expected)
    frame = pd.DataFrame({"user": list(lists), "items": [np.array(i, dtype=object) for i in lists.values()]})
    direct = read_lists(frame, dataset, k=5).rankings
    assert (direct == read_lists(toy / "run.csv", dataset, k=5).rankings).all()


def test_a_row_per_user_is_checked_as_a_row_per_item_is(dataset):
    """An item listed twice in a user's cell names the line; naming both shapes is refused."""
    with pytest.raises(ValueError, match="row 1"):
        read_lists(pd.DataFrame({"user": ["u0"], "items": ["i1 i2 i1"]}), dataset)
    with pytest.raises(ValueError, match=r"columns must name items \(a row per user\) or item, rank and score"):
        read_lists(pd.DataFrame({"u": ["u0"]}), dataset, columns={"items": "x", "rank": "r"})


def test_a_run_without_a_header_is_read_as_user_item_score(toy, dataset, capsys):
    """Elliot and LibRec write a run as ``user item score`` lines, tab- or space-separated, with
    no header, and MyMediaLite as ``user [item:score,...]``: the same numbers as the run with one. Whole numbers alone in the third column
    could be ranks, which read as scores would reverse every list: refused, saying what to add."""
    lists = unseen_lists(dataset)
    (toy / "run.csv").write_text(csv_text(lists))
    expected, _ = evaluate(toy, f"mine={toy / 'run.csv'}", capsys=capsys)
    lines = [(u, i, 1.0 - r / 10 + 0.05) for u, items in lists.items() for r, i in enumerate(items)]
    (toy / "elliot.tsv").write_text("".join(f"{u}\t{i}\t{s:.4f}\n" for u, i, s in lines))
    (toy / "librec.txt").write_text("".join(f"{u} {i} {s:.4f}\n" for u, i, s in lines))
    for name in ("elliot.tsv", "librec.txt"):
        found, _ = evaluate(toy, f"mine={toy / name}", capsys=capsys)
        pd.testing.assert_frame_equal(found, expected)
    scored = {u: ",".join(f"{i}:{1 - r / 10:.2f}" for r, i in enumerate(items)) for u, items in lists.items()}
    (toy / "mymedialite.txt").write_text("".join(f"{u}\t[{s}]\n" for u, s in scored.items()))
    found, _ = evaluate(toy, f"mine={toy / 'mymedialite.txt'}", capsys=capsys)  # user [item:score,...]
    pd.testing.assert_frame_equal(found, expected)
    (toy / "ranks.tsv").write_text(
        "".join(f"{u}\t{i}\t{r}\n" for u, items in lists.items() for r, i in enumerate(items, 1))
    )
    with pytest.raises(ValueError, match=r"ranks\.tsv: line 1: no header, and the third column holds whole numbers"):
        read_lists(toy / "ranks.tsv", dataset)


def test_a_json_run_gives_the_numbers_of_the_csv(toy, dataset, capsys):
    """A run kept as JSON: a user's list of ids or of [item, score] pairs (Surprise's get_top_n
    dumped), {item: score} objects, pandas' to_json in each of its named layouts, and JSON Lines."""
    import json

    lists = unseen_lists(dataset)
    (toy / "run.csv").write_text(csv_text(lists))
    expected, _ = evaluate(toy, f"mine={toy / 'run.csv'}", capsys=capsys)
    scored = {u: [[i, 1.0 - r / 10] for r, i in enumerate(items)] for u, items in lists.items()}
    records = [{"user": u, "item": i, "rank": r} for u, items in lists.items() for r, i in enumerate(items, 1)]
    writes = {
        "ids.json": json.dumps(lists),
        "pairs.json": json.dumps(scored),
        "objects.json": json.dumps({u: dict(pairs) for u, pairs in scored.items()}),
        "columns.json": pd.DataFrame(records).to_json(),
        "records.json": pd.DataFrame(records).to_json(orient="records"),
        "records.jsonl": pd.DataFrame(records).to_json(orient="records", lines=True),
        "split.json": pd.DataFrame(records).to_json(orient="split"),
        "index.json": pd.DataFrame(records).to_json(orient="index"),
        "table.json": pd.DataFrame(records).to_json(orient="table"),
        "indented.json": "\n" + json.dumps(lists, indent=2),
    }
    for name, text in writes.items():
        (toy / name).write_text(text)
        found, said = evaluate(toy, f"mine={toy / name}", capsys=capsys)
        pd.testing.assert_frame_equal(found, expected, obj=name)
        assert said == ""


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"u0": ["i1", "i2"', r"line 1: not JSON: Expecting ',' delimiter"),
        ('{"u0": [true, false]}', r"row 1: user 'u0': a list is ids best first, \[item, score\] pairs"),
        ('{"u0": [["i1", "high"]]}', r"row 1: user 'u0': a list is ids best first"),
        ('{"u0": {"i1": "high"}}', r"row 1: score 'high' is not a number"),
        ('{"u0": ["i1"], "u1": [["i2", 0.5]]}', r"row 1: user 'u0' lists ids alone where row 2 gives scores"),
        ("[1, 2]", r"a JSON run is a list of records or an object .* got a list of int"),
        ("\n\n", r"run\.json: line 1: empty file; expected JSON"),
    ],
)
def test_a_json_run_that_is_not_a_run_names_where(dataset, tmp_path, text, message):
    (tmp_path / "run.json").write_text(text)
    with pytest.raises(ValueError, match=message):
        read_lists(tmp_path / "run.json", dataset)


def test_a_json_lines_record_that_is_no_object_names_its_line(dataset, tmp_path):
    (tmp_path / "run.jsonl").write_text('{"user": "u0", "item": "i1", "rank": 1}\n["u0", "i2", 2]\n')
    with pytest.raises(ValueError, match=r"run\.jsonl: line 2: a JSON Lines record is an object"):
        read_lists(tmp_path / "run.jsonl", dataset)


def test_items_the_split_does_not_hold_are_misses_at_their_ranks_and_counted(toy, dataset, capsys):
    lists, train = unseen_lists(dataset, k=6), dataset.matrix("train")
    test = dataset.matrix("test")
    # An unknown item must not read as the previous user's last item: (u, -1) is u·n − 1 as a key.
    last = dataset.items[dataset.n_items - 1]
    after = next(u for u in range(1, dataset.n_users) if train[u - 1, dataset.n_items - 1])
    unknown, stand_in = {}, {}
    for u, (user, items) in enumerate(lists.items()):
        items = [i for i in items if i != last][:5]
        slot = u % 5
        judged = set(test.indices[test.indptr[u] : test.indptr[u + 1]])
        miss = next(dataset.items[i] for i in range(dataset.n_items) if i not in judged and not train[u, i])
        rest = [i for i in items if i != miss]
        unknown[user] = rest[:slot] + [f"gone{u % 4}"] + rest[slot:4]
        stand_in[user] = rest[:slot] + [miss] + rest[slot:4]
    (toy / "unknown.csv").write_text(csv_text(unknown))
    (toy / "stand_in.csv").write_text(csv_text(stand_in))
    found = read_lists(toy / "unknown.csv", dataset)
    rows = found.rankings.tolist()
    assert [row.index(-1) for row in rows] == [u % 5 for u in range(dataset.n_users)]
    assert found.unknown_items == ("gone0", "gone1", "gone2", "gone3") and found.unknown_listed == dataset.n_users
    assert found.seen == 0 and found.short == 0 and found.empty == ()
    first_only = read_lists(toy / "unknown.csv", dataset, k=1)  # only users 0, 5, 10 list one first
    assert first_only.unknown_items == ("gone0", "gone1", "gone2") and first_only.unknown_listed == 3
    assert read_lists(toy / "stand_in.csv", dataset, k=1).unknown_items == ()
    assert read_lists(toy / "unknown.csv", dataset, drop_seen=True).rankings[after].tolist() == rows[after]
    scored, said = evaluate(toy, f"mine={toy / 'unknown.csv'}", capsys=capsys)
    assert said == (
        f"puf evaluate: run mine: {dataset.n_users} of {5 * dataset.n_users} listed items are not in the "
        "dataset (4 items, first: 'gone0'), scored as misses at their ranks"
    )
    assert pd.read_csv(toy / "out" / "lists.csv", index_col="run").loc["mine", "unknown_items"] == dataset.n_users
    judged_alike, _ = evaluate(toy, f"mine={toy / 'stand_in.csv'}", capsys=capsys)
    same = [c for c in scored.columns if c.endswith(("P@5", "NDCG@5", "-P", "-NDCG")) and not c.startswith("PUF")]
    pd.testing.assert_frame_equal(scored[same], judged_alike[same])  # a miss at the same rank
    with pytest.raises(ValueError, match=r"unknown\.csv: line 2: item 'gone0' is not in dataset 'toy'"):
        read_lists(toy / "unknown.csv", dataset, strict=True)
    numbers = {user: [item.replace("i", "") + ".0" for item in items] for user, items in lists.items()}
    with pytest.raises(
        ValueError, match=r"item '.*\.0' is not in dataset 'toy' \(after preprocessing; none of the run's"
    ):
        read_lists(pd.DataFrame(csv_rows(numbers)), dataset)  # ids read as floats: refused, not all misses
    (toy / "twice.csv").write_text(csv_text(unknown, extra=["u0,gone0,9"]))
    with pytest.raises(ValueError, match=r"item 'gone0' is listed twice for user 'u0' \(first on line 2\)"):
        read_lists(toy / "twice.csv", dataset)


def _list_gap(effectiveness, list_distance):
    s_u, s_v = effectiveness
    return list_distance * np.abs(s_u - s_v)


@pair_kernel(_list_gap)
def list_gap(effectiveness, list_distance):
    """A measure of pairs reading d_L: the mean of d_L(u, v)·|S(u) − S(v)|."""
    s, d = np.asarray(effectiveness), np.asarray(list_distance)
    u, v = np.triu_indices(s.size, 1)
    return float(np.mean(_list_gap((s[u], s[v]), d[u, v])))


def test_a_list_with_no_item_of_the_split_leaves_the_distances_between_lists_undefined(dataset):
    lists = unseen_lists(dataset)
    empty = dict(lists, u0=["gone", "gone too"], u3=[])
    measures = ["UF", "PUF-P", "SD-NDCG", list_gap]
    with pytest.warns(puf.UndefinedMeasureWarning) as caught:
        found = evaluate_lists(dataset, {"mine": _rows(empty), "whole": _rows(lists)}, k=5, measures=measures)
    said = sorted({str(w.message) for w in caught})
    assert said == [
        f"{label} is undefined on run 'mine': 2 users' lists hold no item in the first 5, and the distance "
        "between two lists needs an item in each"
        for label in ("UF", "list_gap-NDCG", "list_gap-P")
    ]
    assert found.scores.loc["mine", ["UF", "list_gap-P", "list_gap-NDCG"]].isna().all()
    assert found.scores.loc["mine", ["PUF-P", "SD-NDCG"]].notna().all()
    alone = evaluate_lists(dataset, {"whole": _rows(lists)}, k=5, measures=measures)
    pd.testing.assert_frame_equal(found.scores.loc[["whole"]], alone.scores)
    assert found.lists.loc["mine", "empty_lists"] == 2 and found.lists.loc["whole", "empty_lists"] == 0
    with pytest.warns(puf.UndefinedMeasureWarning) as caught_sampling:
        sampled = evaluate_lists(
            dataset, {"mine": _rows(empty), "whole": _rows(lists)}, k=5, measures=measures, sample=300, random_state=0
        )
    assert sorted({str(w.message) for w in caught_sampling}) == said
    assert sampled.scores.loc["mine", ["UF", "list_gap-P"]].isna().all()
    assert sampled.scores.loc["whole", ["UF", "list_gap-P"]].notna().all()
    assert (
        read_lists(_rows(empty), dataset)
        .summary()
        .endswith("2 lists shorter than k = 5; 2 lists hold no item of the dataset (first: 'u0')")
    )


def _rows(lists):
    """A row per user, its items best first (an empty list given as such)."""
    return pd.DataFrame({"user": list(lists), "items": list(lists.values())})
