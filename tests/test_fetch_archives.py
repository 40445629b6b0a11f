"""ML-10M, ML-20M and Last.fm fetched end to end from a local HTTP server (127.0.0.1 only).

The server serves miniature archives in each publisher's exact raw format (member paths,
separators, headers, quoting, encodings, line endings), and can break a transfer half way,
ignore ``Range`` requests, or serve a damaged or truncated archive.
"""

import dataclasses
import hashlib
import http.server
import io
import json
import threading
import zipfile

import numpy as np
import pytest

from puf.cli import main
from puf.data import DATASETS, DownloadError, fetch, load, read_atomic

USERS, ITEMS = 12, 15
RATINGS = [
    (u, i, (3.0, 3.5, 4.0, 4.5, 5.0, 1.0, 2.5)[(u + i) % 7], 838985046 + 97 * u + 13 * i)
    for u in range(1, USERS + 1)
    for i in range(1, ITEMS + 1)
]
TITLES = {
    1: "Toy Story (1995)",
    2: "Jumanji (1995)",
    3: "American President, The (1995)",
    4: "Misérables, Les (1995)",
    5: 'Seven (a.k.a. "Se7en") (1995)',
}
GENRES = {
    1: "Adventure|Animation|Children|Comedy|Fantasy",
    2: "Adventure|Children|Fantasy",
    3: "Comedy|Drama|Romance",
    4: "Drama|War",
    5: "(no genres listed)",
}


def title(i):
    return TITLES.get(i, f"Movie {i} (2001)")


def genres(i):
    return GENRES.get(i, "Film-Noir|Sci-Fi")


def zipped(members):
    """The same bytes on every call: a fixed member time (writestr would stamp the clock's)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(
                zipfile.ZipInfo(name, date_time=(2011, 9, 1, 0, 0, 0)), data, compress_type=zipfile.ZIP_DEFLATED
            )
    return buffer.getvalue()


def ml10m_archive():
    ratings = "".join(f"{u}::{i}::{r:g}::{t}\n" for u, i, r, t in RATINGS)
    movies = "".join(f"{i}::{title(i)}::{genres(i)}\n" for i in range(1, ITEMS + 1))
    return zipped(
        {
            "ml-10M100K/ratings.dat": ratings,
            "ml-10M100K/movies.dat": movies.encode(),
            "ml-10M100K/tags.dat": "15::4973::excellent!::1215184630\n",
            "ml-10M100K/README.html": "<html></html>\n",
        }
    )


def ml20m_archive():
    ratings = "userId,movieId,rating,timestamp\n" + "".join(f"{u},{i},{r:.1f},{t}\n" for u, i, r, t in RATINGS)

    def quoted(text):
        return f'"{text}"'.replace('"Se7en"', '""Se7en""') if ("," in text or '"' in text) else text

    movies = "movieId,title,genres\n" + "".join(f"{i},{quoted(title(i))},{genres(i)}\n" for i in range(1, ITEMS + 1))
    return zipped(
        {
            "ml-20m/ratings.csv": ratings,
            "ml-20m/movies.csv": movies.encode(),
            "ml-20m/links.csv": "movieId,imdbId,tmdbId\n1,0114709,862\n",
            "ml-20m/README.txt": "Summary\n",
        }
    )


def lastfm_archive():
    crlf = "\r\n"
    plays = (
        "userID\tartistID\tweight"
        + crlf
        + "".join(f"{u + 1}\t{50 + i}\t{1000 * u + 7 * i + 1}{crlf}" for u, i, _, _ in RATINGS)
    )
    artists = (
        "id\tname\turl\tpictureURL"
        + crlf
        + "".join(
            f'{50 + i}\tArtist "{i}"\thttp://www.last.fm/music/{i}\thttp://userserve/{i}.jpg{crlf}'
            for i in range(1, ITEMS + 1)
        )
    )
    tags = (
        "tagID\ttagValue"
        + crlf
        + "1\tmetal"
        + crlf
        + "2\tnew wave"
        + crlf
        + "3\tmúsica latina"
        + crlf
        + "4\tpop"
        + crlf
    )
    tagged = (
        "userID\tartistID\ttagID\tday\tmonth\tyear"
        + crlf
        + "".join(f"{u}\t{51}\t{t}\t1\t4\t2009{crlf}" for u, t in [(2, 1), (3, 1), (4, 2), (5, 3), (6, 4)])
    )
    return zipped(
        {
            "user_artists.dat": plays,
            "artists.dat": artists.encode("utf-8"),
            "tags.dat": tags.encode("latin-1"),
            "user_taggedartists.dat": tagged,
            "user_friends.dat": "userID\tfriendID" + crlf + "2\t275" + crlf,
            "readme.txt": "HetRec 2011" + crlf,
        }
    )


ARCHIVES = {"ml-10m": ml10m_archive, "ml-20m": ml20m_archive, "lastfm": lastfm_archive}


class Server(http.server.ThreadingHTTPServer):
    """Serves ``files``; ``break_after`` bytes then a dropped connection, once; ``ranges``."""

    daemon_threads = True

    def __init__(self):
        super().__init__(("127.0.0.1", 0), Handler)
        self.files, self.break_after, self.honour_range, self.requests = {}, None, True, []

    def url(self, name):
        return f"http://127.0.0.1:{self.server_address[1]}/{name}"


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        server = self.server
        data = server.files.get(self.path.lstrip("/"))
        server.requests.append((self.path, self.headers.get("Range")))
        if data is None:
            self.send_error(404)
            return
        start = 0
        if self.headers.get("Range") and server.honour_range:
            start = int(self.headers["Range"].split("=")[1].rstrip("-"))
            if start >= len(data):
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{len(data)}")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
        else:
            self.send_response(200)
        self.send_header("Content-Length", str(len(data) - start))
        self.end_headers()
        body = data[start:]
        if server.break_after is not None:
            body, server.break_after = body[: server.break_after], None
            self.wfile.write(body)
            self.wfile.flush()
            self.close_connection = True
            return
        self.wfile.write(body)


@pytest.fixture
def server():
    instance = Server()
    thread = threading.Thread(target=instance.serve_forever, daemon=True)
    thread.start()
    yield instance
    instance.shutdown()
    instance.server_close()
    thread.join(timeout=10)


@pytest.fixture
def serve(server, monkeypatch):
    """Serve the miniature archive of ``name``; pin its MD5 where the publisher publishes one."""

    def serve(name, data=None):
        data = ARCHIVES[name]() if data is None else data
        source = DATASETS[name]
        server.files[source.archive] = data
        if source.md5 is not None:
            monkeypatch.setitem(
                DATASETS, name, dataclasses.replace(source, md5=hashlib.md5(ARCHIVES[name]()).hexdigest())
            )
        return server.url(source.archive)

    return serve


def cached(tmp_path):
    return sorted(p.name for p in tmp_path.iterdir()) if tmp_path.exists() else []


@pytest.mark.parametrize("name", ["ml-10m", "ml-20m"])
def test_movielens_fetch_converts_the_raw_files_exactly(name, serve, tmp_path):
    folder = fetch(name, cache=tmp_path, url=serve(name), progress=False)
    inter = read_atomic(folder / f"{name}.inter")
    assert list(inter.columns) == ["user_id", "item_id", "rating", "timestamp"]
    assert (
        list(
            zip(
                inter["user_id"].astype(int),
                inter["item_id"].astype(int),
                inter["rating"],
                inter["timestamp"].astype(int),
            )
        )
        == RATINGS
    )
    items = read_atomic(folder / f"{name}.item")
    assert dict(zip(items["item_id"], items["movie_title"]))["4"] == "Misérables, Les (1995)"
    assert dict(zip(items["item_id"], items["movie_title"]))["5"] == 'Seven (a.k.a. "Se7en") (1995)'
    assert dict(zip(items["item_id"], items["movie_title"]))["3"] == "American President, The (1995)"
    assert dict(zip(items["item_id"], items["genre"]))["4"] == ("Drama", "War")
    assert dict(zip(items["item_id"], items["genre"]))["5"] == ()
    manifest = json.loads((folder / "MANIFEST.json").read_text())
    assert manifest["source"] == DATASETS[name].url
    assert manifest["archive"]["md5"] == DATASETS[name].md5
    assert cached(tmp_path) == [".downloads", name]
    assert cached(tmp_path / ".downloads") == []  # the archive is not kept once converted


@pytest.mark.parametrize("name", ["ml-10m", "ml-20m", "lastfm"])
def test_fetched_dataset_loads_with_the_shared_preprocessing(name, serve, tmp_path):
    fetch(name, cache=tmp_path, url=serve(name), progress=False)
    data = load(name, cache=tmp_path)
    assert (data.n_users, data.name) == (USERS, name)
    assert data.item_features is not None and data.item_features.shape[0] == data.n_items
    if name == "lastfm":  # implicit feedback: every listened artist is relevant
        assert data.params["threshold"] is not None and "rating" not in data.train
        assert len(data.train) + len(data.valid) + len(data.test) == len(RATINGS)
    else:  # ratings >= 3 are the relevant interactions
        kept = sum(r >= 3 for _, _, r, _ in RATINGS)
        assert len(data.train) + len(data.valid) + len(data.test) == kept


def test_lastfm_conversion_reads_latin1_tags_and_keeps_play_counts(serve, tmp_path):
    folder = fetch("lastfm", cache=tmp_path, url=serve("lastfm"), progress=False)
    inter = read_atomic(folder / "lastfm.inter")
    assert list(inter.columns) == ["user_id", "item_id", "weight", "timestamp"]
    assert inter["weight"].tolist() == [1000.0 * u + 7 * i + 1 for u, i, _, _ in RATINGS]
    order = np.random.default_rng(0).permutation(len(RATINGS)).astype(float)
    assert inter["timestamp"].tolist() == order.tolist()  # the documented fixed random order
    items = read_atomic(folder / "lastfm.item")
    tags = dict(zip(items["item_id"], items["tags"]))
    assert tags["51"] == ("metal", "new_wave", "música_latina")  # top three, ties by tag id
    assert tags["52"] == ()
    assert dict(zip(items["item_id"], items["artist_name"]))["53"] == 'Artist "3"'


def test_lastfm_checksum_is_recorded_at_the_first_download_and_checked_after(serve, server, tmp_path):
    url = serve("lastfm")
    folder = fetch("lastfm", cache=tmp_path, url=url, progress=False)
    record = json.loads((tmp_path / "archives.json").read_text())["lastfm"]
    assert record["sha256"] == hashlib.sha256(server.files[DATASETS["lastfm"].archive]).hexdigest()
    assert fetch("lastfm", cache=tmp_path, url=url, progress=False) == folder  # cached
    assert len(server.requests) == 1
    (folder / "lastfm.inter").write_text("changed\n")  # a damaged entry is fetched again
    assert fetch("lastfm", cache=tmp_path, url=url, progress=False) == folder
    assert len(server.requests) == 2
    other = zipped({"user_artists.dat": "userID\tartistID\tweight\n2\t51\t1\n"})
    serve("lastfm", other)
    (folder / "lastfm.inter").unlink()
    with pytest.raises(ValueError, match="differs from .*recorded at its first download"):
        fetch("lastfm", cache=tmp_path, url=url, progress=False)
    assert not (tmp_path / "lastfm").exists() or not (tmp_path / "lastfm" / "lastfm.inter").exists()


def test_a_broken_transfer_is_resumed_with_a_range_request(serve, server, tmp_path):
    url = serve("ml-20m")
    size = len(server.files["ml-20m.zip"])
    server.break_after = size // 2
    with pytest.raises(DownloadError, match="run the same command again to resume"):
        fetch("ml-20m", cache=tmp_path, url=url, progress=False)
    part = tmp_path / ".downloads" / "ml-20m.zip.part"
    assert part.stat().st_size == size // 2
    assert not (tmp_path / "ml-20m").exists()
    folder = fetch("ml-20m", cache=tmp_path, url=url, progress=False)
    assert server.requests[-1] == ("/ml-20m.zip", f"bytes={size // 2}-")
    assert (folder / "ml-20m.inter").is_file() and not part.exists()


@pytest.mark.parametrize("extra", [0, 7])
def test_a_part_the_server_calls_complete_is_kept_only_at_the_file_size(extra, serve, server, tmp_path):
    # 416 to a resume: the part is whole only when its size is the file's (Content-Range);
    # a longer, foreign part is downloaded anew, never recorded as the reference checksum.
    url = serve("lastfm")
    data = server.files[DATASETS["lastfm"].archive]
    part = tmp_path / ".downloads" / f"{DATASETS['lastfm'].archive}.part"
    part.parent.mkdir(parents=True)
    part.write_bytes(data + b"foreign" if extra else data)
    fetch("lastfm", cache=tmp_path, url=url, progress=False)
    record = json.loads((tmp_path / "archives.json").read_text())["lastfm"]
    assert record["sha256"] == hashlib.sha256(data).hexdigest()
    assert server.requests[-1][1] == (None if extra else f"bytes={len(data)}-")


def test_a_server_that_ignores_the_range_sends_the_whole_file_again(serve, server, tmp_path):
    url = serve("ml-10m")
    server.break_after = 100
    with pytest.raises(DownloadError):
        fetch("ml-10m", cache=tmp_path, url=url, progress=False)
    server.honour_range = False
    folder = fetch("ml-10m", cache=tmp_path, url=url, progress=False)
    assert len(read_atomic(folder / "ml-10m.inter")) == len(RATINGS)


@pytest.mark.parametrize("name", ["ml-10m", "ml-20m", "lastfm"])
@pytest.mark.parametrize("damage", ["flipped byte", "truncated"])
def test_a_damaged_or_truncated_archive_is_refused_and_nothing_is_cached(name, damage, serve, tmp_path):
    data = bytearray(ARCHIVES[name]())
    if damage == "flipped byte":
        data[len(data) // 3] ^= 0xFF
    else:
        data = data[: len(data) * 2 // 3]
    url = serve(name, bytes(data))
    with pytest.raises(ValueError, match="damaged|not a readable zip"):
        fetch(name, cache=tmp_path, url=url, progress=False)
    assert cached(tmp_path) == [".downloads"]  # no entry, no staging folder, no record
    assert cached(tmp_path / ".downloads") == []  # and no part left to resume


def test_no_network_is_a_clear_download_error_with_exit_code_1(tmp_path, capsys):
    closed = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    port = closed.server_address[1]
    closed.server_close()  # nothing listens there now
    url = f"http://127.0.0.1:{port}/ml-10m.zip"
    with pytest.raises(DownloadError, match="cannot be reached .* network connection"):
        fetch("ml-10m", cache=tmp_path, url=url, progress=False)
    assert main(["data", "fetch", "ml-10m", "--cache", str(tmp_path), "--url", url]) == 1
    assert "cannot be reached" in capsys.readouterr().err
    assert not (tmp_path / "ml-10m").exists()


def test_url_is_refused_for_datasets_shipped_in_wheels(tmp_path):
    with pytest.raises(ValueError, match="url is only for .*recbole==1.2.1"):
        fetch("ml-100k", cache=tmp_path, url="http://127.0.0.1:9/x.zip")


def test_cli_fetch_prints_the_folder(serve, tmp_path, capsys):
    url = serve("ml-10m")
    assert main(["data", "fetch", "ml-10m", "--cache", str(tmp_path), "--url", url, "--no-progress"]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / "ml-10m")
    assert main(["data", "list", "--cache", str(tmp_path)]) == 0
    row = capsys.readouterr().out.splitlines()[1].split()
    assert row[:3] == ["ml-10m", "ok", DATASETS["ml-10m"].url]


def test_cli_convert_an_archive_downloaded_by_hand(tmp_path, capsys):
    archive = tmp_path / "ml-20m.zip"
    archive.write_bytes(ml20m_archive())
    out = tmp_path / "atomic"
    assert main(["data", "convert", "ml-20m", str(archive), "--out", str(out), "--no-progress"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["ml-20m.inter", "ml-20m.item"]
    before = (out / "ml-20m.inter").read_bytes()
    assert main(["data", "convert", "ml-20m", str(archive), "--out", str(out)]) == 2
    assert "already holds ml-20m.inter" in capsys.readouterr().err
    assert (out / "ml-20m.inter").read_bytes() == before  # nothing overwritten


def test_cli_convert_qk_video_keeps_clicks_in_file_order(tmp_path, capsys):
    rows = ["user_id,item_id,click,follow,like,share,video_category,watching_times,gender,age"]
    rows += [f"{u},{i},{int((u * i) % 3 != 0)},0,0,0,{i % 4},1,1,3" for u in range(1, 13) for i in range(1, 16)]
    csv = tmp_path / "QK-video.csv"
    csv.write_text("\n".join(rows) + "\n")
    out = tmp_path / "qk"
    assert main(["data", "convert", "qk-video", str(csv), "--out", str(out), "--no-progress"]) == 0
    inter = read_atomic(out / "qk-video.inter")
    clicked = [(r.split(",")[0], r.split(",")[1]) for r in rows[1:] if r.split(",")[2] == "1"]
    assert list(zip(inter["user_id"], inter["item_id"])) == clicked
    assert inter["timestamp"].is_monotonic_increasing
    data = load(out / "qk-video.inter")
    assert data.item_features is not None  # the category column supplies UF's features


def test_cli_convert_names_a_bad_file(tmp_path, capsys):
    bad = tmp_path / "ml-10m.zip"
    bad.write_bytes(b"not a zip")
    assert main(["data", "convert", "ml-10m", str(bad), "--out", str(tmp_path / "o")]) == 2
    assert "not a readable zip archive" in capsys.readouterr().err
    wrong = tmp_path / "wrong.zip"
    wrong.write_bytes(
        zipped({"ml-10M100K/ratings.dat": "1::2::x::3\n", "ml-10M100K/movies.dat": "2::T (1999)::Drama\n"})
    )
    assert main(["data", "convert", "ml-10m", str(wrong), "--out", str(tmp_path / "o" / "new")]) == 2
    assert "ratings.dat" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()  # the refused conversion left no folder behind


@pytest.mark.parametrize(
    "name, members, where",
    [
        (
            "ml-20m",
            {"ml-20m/ratings.csv": "userId,movieId,rating,timestamp\n1,2,3.5,11\n1,3,4.0\n"},
            "ratings.csv: line 3:",
        ),
        ("ml-20m", {"ml-20m/ratings.csv": "userId,movieId,rating,timestamp\n1,2,3.5,11\n1,3,good,12\n"}, "line 3:"),
        ("ml-10m", {"ml-10M100K/ratings.dat": "1::2::3::4\n1::3::x::5\n"}, "ratings.dat: line 2:"),
    ],
)
def test_a_bad_rating_row_names_its_line_in_the_file(name, members, where, tmp_path):
    from puf.data.convert import convert

    movies = {
        "ml-20m": ("ml-20m/movies.csv", "movieId,title,genres\n2,A,Drama\n"),
        "ml-10m": ("ml-10M100K/movies.dat", "2::A::Drama\n"),
    }
    member, text = movies[name]
    archive = tmp_path / f"{name}.zip"
    archive.write_bytes(zipped({**members, member: text}))
    with pytest.raises(ValueError, match=where):
        convert(name, archive, tmp_path, progress=False)


def test_a_member_declaring_more_than_the_dataset_can_hold_is_refused_before_inflating(tmp_path, monkeypatch):
    """A 1 MB archive whose member inflates to 1 GB ended in a MemoryError; the zip's sizes are read first.

    The limit is lowered here so that a small archive stands for the large one.
    """
    import importlib

    from puf.data.convert import convert

    convert_module = importlib.import_module("puf.data.convert")  # puf.data.convert is the function

    def no_inflating(*args, **kwargs):
        raise AssertionError("a member was inflated before the declared sizes were checked")

    monkeypatch.setitem(DATASETS, "ml-10m", dataclasses.replace(DATASETS["ml-10m"], largest_member=100_000))
    archive = tmp_path / "ml-10m.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as bomb:
        bomb.writestr("ml-10M100K/ratings.dat", b"1::2::5::9\n" * 100_000)  # 1.1 MB in about 3 kB
        bomb.writestr("ml-10M100K/movies.dat", "2::T (1999)::Drama\n")
    assert archive.stat().st_size < 10_000
    monkeypatch.setattr(convert_module.zipfile.ZipFile, "testzip", no_inflating)
    with pytest.raises(ValueError) as refused:
        convert("ml-10m", archive, tmp_path, progress=False)
    message = str(refused.value)
    assert "member ml-10M100K/ratings.dat declares 1,100,000 bytes" in message
    assert "(100,000 bytes)" in message and "\n" not in message


def test_members_are_converted_in_blocks_of_whole_lines(tmp_path, monkeypatch):
    from puf.data import _raw
    from puf.data.convert import convert

    monkeypatch.setattr(_raw, "BLOCK_BYTES", 64)  # many blocks, lines cut across them
    archive = tmp_path / "ml-10m.zip"
    archive.write_bytes(ml10m_archive())
    convert("ml-10m", archive, tmp_path, progress=False)
    rows = read_atomic(tmp_path / "ml-10m.inter")
    assert len(rows) == len(RATINGS) and rows["user_id"].tolist() == [str(u) for u, *_ in RATINGS]
    wrong = tmp_path / "wrong.zip"
    wrong.write_bytes(
        zipped(
            {
                "ml-10M100K/ratings.dat": "1::2::3::4\n" * 20 + "1::3::x::5\n",
                "ml-10M100K/movies.dat": "2::A::Drama\n",
            }
        )
    )
    (tmp_path / "w").mkdir()
    with pytest.raises(ValueError, match="ratings.dat: line 21:"):
        convert("ml-10m", wrong, tmp_path / "w", progress=False)


class _Dripping(http.server.BaseHTTPRequestHandler):
    """Promises 1,000 bytes, sends 5 one at a time, then nothing (or redirects to itself)."""

    def log_message(self, *args):
        pass

    def do_GET(self):
        import time

        if self.path == "/loop":
            self.send_response(302)
            self.send_header("Location", "/loop")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Length", "1000")
        self.end_headers()
        for byte in b"12345":
            self.wfile.write(bytes([byte]))
            self.wfile.flush()
            time.sleep(0.1)
        time.sleep(3)  # silent past the client's timeout, then the connection ends


@pytest.fixture
def dripping():
    instance = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Dripping)
    instance.daemon_threads = True
    thread = threading.Thread(target=instance.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{instance.server_address[1]}"
    instance.shutdown()
    instance.server_close()
    thread.join(timeout=10)


def test_a_dripping_server_keeps_every_byte_and_times_out_on_silence(dripping, tmp_path):
    """The timeout is on progress, and what arrived is written as it arrives (a resume keeps it)."""
    import time

    from puf.data import download

    began = time.monotonic()
    with pytest.raises(DownloadError) as broke:
        download(f"{dripping}/x.zip", tmp_path / "x.zip", progress=False, timeout=1.0)
    assert time.monotonic() - began < 30
    assert (tmp_path / "x.zip.part").read_bytes() == b"12345"
    assert "after 5 bytes" in str(broke.value) and "\n" not in str(broke.value)


def test_a_redirect_loop_is_one_line(dripping, tmp_path):
    from puf.data import download

    with pytest.raises(DownloadError) as looped:
        download(f"{dripping}/loop", tmp_path / "x.zip", progress=False, timeout=5.0)
    message = str(looped.value)
    assert "redirect" in message and "\n" not in message, message
